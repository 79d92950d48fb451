/**
 * `sdk.actions.cancelTurn` (the chat's Stop) against a real Runtime: the agent's turn is cancelled on the
 * server, the chat's fold shows it stopped, the agent's call still open in the turn ends `cancelled_by_user`
 * and the app holding it is told (its handler's signal aborts), while a timer the turn started runs on.
 */
import { describe, expect, it } from "vitest";
import type { AgentAppMessage } from "@lineup/app-sdk";
import { EMPTY_TIMELINE, foldMessages, hasOpenTurn, TIMELINE_TYPES, type TimelineModel } from "@lineup/app-sdk/chat";
import { notesManifest, timerManifest, until, useTestRuntime } from "./fixtures.js";

const start = useTestRuntime({ apps: [{ manifest: notesManifest() }, { manifest: timerManifest() }] });

describe("sdk.actions.cancelTurn", () => {
  it("stops the running turn: the fold shows it stopped, its open call ends cancelled_by_user and the app is told; a timer it started runs on", async () => {
    const kit = await start();
    const chat = kit.sdk("chat");
    let model: TimelineModel = EMPTY_TIMELINE;
    const seen: AgentAppMessage[] = [];
    chat.agentMessages.subscribe({ conversation_id: "s-1", types: TIMELINE_TYPES, include_pending: true }, (message) => {
      seen.push(message);
      model = foldMessages(model, [message]);
    });
    // The app holds the call until it is told to stop.
    let aborted = false;
    kit.sdk("notes").tools.register("notes.do", (_args, ctx) => new Promise((_resolve, reject) => ctx.signal.addEventListener("abort", () => ((aborted = true), reject(new Error("stopped"))))));
    kit.sdk("timer").tools.registerOperation<{ minutes: number }>("focus.start", (args) => ({ duration_ms: args.minutes * 60_000 }));

    await chat.actions.dispatch({ type: "conversation.send_text", conversation_id: "s-1", text: "focus, and take notes" });
    await until(() => hasOpenTurn(model));
    const turnId = seen.find((m) => m.type === "lineup.message" && m.sender.kind === "user")!.turn_id!;
    kit.server.agentUpdatesTurn("s-1", turnId, { status: "working", label: "Taking notes" });
    const timer = await kit.agent.invoke("timer", "focus.start", { minutes: 25 });
    await timer.waitFor("lineup.tool.progress");
    const notes = await kit.agent.invoke("notes", "notes.do", {});
    await notes.waitFor("lineup.tool.receipt");
    await until(() => model.status?.state === "working");

    const receipt = await chat.actions.cancelTurn("s-1");
    expect(receipt).toMatchObject({ action_type: "turn.cancel", conversation_id: "s-1", status: "queued" });
    expect((await notes.done).error).toMatchObject({ code: "cancelled_by_user" });
    await until(() => aborted);
    expect(kit.server.turnState("s-1", turnId)).toBe("cancelled");

    await until(() => !hasOpenTurn(model));
    expect(model.status).toEqual({ state: "stopped" });
    expect(model.rows.filter((r) => r.kind === "notice")).toMatchObject([{ level: "info", text: "You stopped the agent." }]);
    await until(() => model.rows.some((r) => r.kind === "tool" && r.phase === "failed"));
    expect(model.rows.find((r) => r.kind === "tool" && r.phase === "failed")).toMatchObject({ code: "cancelled_by_user" });

    // The timer already ran by itself: Stop on the turn leaves it to its end.
    expect(timer.outputs().some(([type]) => type === "lineup.tool.result" || type === "lineup.tool.error")).toBe(false);
    kit.advanceTime(25 * 60_000);
    expect((await timer.done).result).toMatchObject({ outcome: "completed" });

    await expect(chat.actions.cancelTurn("s-1")).rejects.toMatchObject({ code: "invalid_state" });
  });

  it("says which conversation: an unbound SDK must name one", async () => {
    const kit = await start();
    await expect(kit.sdk("chat").actions.cancelTurn()).rejects.toMatchObject({ code: "invalid_params" });
    await expect(kit.sdk("chat").actions.cancelTurn("s-1")).rejects.toMatchObject({ code: "invalid_state" });
  });
});
