/**
 * `surface.agent.cancelTurn()`: the person's Stop in the app, as `agent.cancel_turn` over the bridge. It names no
 * conversation (the host stops the instance's own), resolves with the host's receipt, and rejects with the
 * host's refusal as a typed `LineUpError`.
 */
import { bridgeResult, LineUpError, type ConversationID } from "@lineup/protocol";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { connectSurface, type Surface } from "../src/index.js";
import { FakeHost } from "./fake-host.js";

const RECEIPT = { receipt_id: "rcpt-1", conversation_id: "conv-1" as ConversationID, accepted_at: "2026-12-02T09:30:00.000Z", status: "queued" } as const;

let host: FakeHost;
let surface: Surface;
beforeEach(async () => {
  host = new FakeHost();
  const connecting = connectSurface({ window: host.window, applyTheme: false });
  host.handover();
  surface = await connecting;
  await surface.lifecycle.ready();
});
afterEach(() => {
  surface.disconnect();
  host.close();
});

describe("surface.agent.cancelTurn", () => {
  it("asks the host with empty params (the conversation is the instance's) and resolves with the Stop's receipt", async () => {
    host.on("agent.cancel_turn", () => RECEIPT);
    await expect(surface.agent.cancelTurn()).resolves.toEqual(RECEIPT);
    expect(host.requestsOf("agent.cancel_turn").map((r) => r.params)).toEqual([{}]);
  });

  it("rejects with the host's refusal and its code: nothing running, or the app not in front", async () => {
    let refusal = new LineUpError("invalid_state", "the agent is not working on a turn in conv-1: nothing to stop");
    host.on("agent.cancel_turn", () => {
      throw refusal;
    });
    const nothing = await surface.agent.cancelTurn().catch((error: unknown) => error);
    expect(nothing).toBeInstanceOf(LineUpError);
    expect(nothing).toMatchObject({ code: "invalid_state", message: refusal.message });
    refusal = new LineUpError("foreground_required", "stop-probe may stop the agent only while it is in front");
    await expect(surface.agent.cancelTurn()).rejects.toMatchObject({ code: "foreground_required" });
  });

  it("refuses a receipt whose frame breaks the bridge's frame schema (an extra key) instead of handing it to the app", async () => {
    host.on("agent.cancel_turn", () => new Promise(() => {}));
    const stopping = surface.agent.cancelTurn();
    const request = await host.nextRequest("agent.cancel_turn");
    host.send({ ...bridgeResult(host.nonce, request.id, "agent.cancel_turn", RECEIPT), idempotency_key: "idem-1" });
    await expect(stopping).rejects.toMatchObject({ code: "bridge_frame_invalid" });
  });
});
