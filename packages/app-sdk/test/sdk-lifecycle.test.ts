/**
 * The instance lifecycle an app observes through its SDK (spec 6.1), over a real Runtime (the
 * testkit: memory store, FakeAppServer, fake clock): `start`, `foreground`, `background`, `closing`,
 * `closed`; `suspend` → `restore` → `foreground` across a restart; `failed`; the Runtime's own
 * wind-down (disable). Every assertion is the sequence of phases the app's listener received, in order.
 */
import { describe, expect, it } from "vitest";
import type { AppDiagnostic, AppInstancePhase, InstanceAppRuntimeSDK } from "../src/index.js";
import type { TestRuntime } from "../src/testkit/index.js";
import { notesManifest, until, useTestRuntime } from "./fixtures.js";

/** notes and timer installed; the test plays the host (no automatic ready reports). */
const start = useTestRuntime();

/** The phases `sdk` reports from now on. */
function record(sdk: InstanceAppRuntimeSDK): AppInstancePhase[] {
  const seen: AppInstancePhase[] = [];
  sdk.lifecycle.instance.onChange((phase) => seen.push(phase));
  return seen;
}

/** Launches a notes instance in conversation s-1 (in front) and binds an SDK to it. */
async function launchNotes(k: TestRuntime, diagnostics?: (entry: AppDiagnostic) => void): Promise<InstanceAppRuntimeSDK> {
  const { instance_id } = await k.sdk("notes").apps.launch({ app_scope: "notes", conversation_id: "s-1" });
  return k.sdk("notes", { instance_id, ...(diagnostics === undefined ? {} : { diagnostics }) });
}

describe("the app instance lifecycle through the SDK", () => {
  it("binds the SDK to the Runtime's instance: its id, entrypoint and conversation; the Runtime's lifecycle stays", async () => {
    const k = await start();
    const sdk = await launchNotes(k);
    const [instance] = k.runtime.instances.snapshot().instances;
    expect(sdk.app).toMatchObject({ app_scope: "notes", instance_id: instance!.instance_id, scope: { conversation_id: "s-1" } });
    expect(sdk.lifecycle.instance.instance_id).toBe(instance!.instance_id);
    expect(sdk.lifecycle.instance.current()).toBe("start");
    expect(sdk.lifecycle.current().status).toBe("online");
    // The unbound form is unchanged: the app's global face, no instance lifecycle.
    expect(k.sdk("notes").app.instance_id).toBe("notes:main");
    expect(k.sdk("notes").lifecycle.instance).toBeUndefined();
  });

  it("start → foreground → background when another app comes in front → foreground → closing → closed, then nothing", async () => {
    const k = await start();
    const sdk = await launchNotes(k);
    const id = sdk.app.instance_id;
    const seen = record(sdk);

    await k.runtime.instances.ready(id);
    expect(sdk.lifecycle.instance.current()).toBe("foreground");
    const timer = await k.sdk("notes").apps.launch({ app_scope: "timer", conversation_id: "s-1" });
    await k.runtime.instances.ready(timer.instance_id);
    expect(sdk.lifecycle.instance.current()).toBe("background");
    await k.runtime.instances.focus(id);
    await sdk.apps.close(id);
    await k.runtime.instances.closed(id);
    expect(seen).toEqual(["foreground", "background", "foreground", "closing", "closed"]);
    expect(sdk.lifecycle.instance.current()).toBe("closed");

    await k.runtime.instances.focus(timer.instance_id);
    expect(seen).toHaveLength(5);
  });

  it("across a restart: the instance comes back suspended, then restore → foreground when its surface is back", async () => {
    const k = await start();
    const before = await launchNotes(k);
    const id = before.app.instance_id;
    await k.runtime.instances.ready(id);
    expect(before.lifecycle.instance.current()).toBe("foreground");

    await k.restart();
    const sdk = k.sdk("notes", { instance_id: id });
    expect(sdk.lifecycle.instance.current()).toBe("suspend");
    const seen = record(sdk);
    // The host mounts the surface again; its ready report brings the instance back (one commit, two steps).
    await k.runtime.instances.ready(id);
    expect(seen).toEqual(["restore", "foreground"]);

    // The user goes back to the shell, and later picks the app again.
    await k.runtime.instances.background(id);
    await k.runtime.instances.focus(id);
    expect(seen).toEqual(["restore", "foreground", "background", "foreground"]);
  });

  it("with autoReady the testkit brings a suspended instance back after a restart, as a host would", async () => {
    const k = await start({ apps: [{ manifest: notesManifest() }] });
    const { instance_id } = await k.sdk("notes").apps.launch({ app_scope: "notes", conversation_id: "s-1" });
    await until(() => k.runtime.instances.snapshot().foreground === instance_id);
    await k.restart();
    await until(() => k.runtime.instances.snapshot().foreground === instance_id);
    expect(k.sdk("notes", { instance_id }).lifecycle.instance.current()).toBe("foreground");
  });

  it("the Runtime keeps the final say: disabling the app winds its instance down (closing → closed)", async () => {
    const k = await start();
    const sdk = await launchNotes(k);
    const id = sdk.app.instance_id;
    await k.runtime.instances.ready(id);
    const seen = record(sdk);
    expect((await k.runtime.appManager.disable("notes")).status).toBe("succeeded");
    expect(sdk.lifecycle.instance.current()).toBe("closing");
    await k.runtime.instances.closed(id);
    expect(seen).toEqual(["closing", "closed"]);
  });

  it("a surface that fails ends the instance as failed, once", async () => {
    const k = await start();
    const sdk = await launchNotes(k);
    const seen = record(sdk);
    await k.runtime.instances.failed(sdk.app.instance_id, "the page did not load");
    expect(seen).toEqual(["failed"]);
    expect(sdk.lifecycle.instance.current()).toBe("failed");
  });

  it("a throwing listener goes to diagnostics; the other listeners still get each change", async () => {
    const k = await start();
    const diagnostics: AppDiagnostic[] = [];
    const sdk = await launchNotes(k, (entry) => diagnostics.push(entry));
    sdk.lifecycle.instance.onChange(() => {
      throw new Error("listener broke");
    });
    const seen = record(sdk);
    const off = sdk.lifecycle.instance.onChange(() => {
      throw new Error("not called after off");
    });
    off();
    await k.runtime.instances.ready(sdk.app.instance_id);
    expect(seen).toEqual(["foreground"]);
    expect(diagnostics).toEqual([{ app_scope: "notes", level: "error", message: "instance lifecycle listener threw: listener broke" }]);
  });

  it("an app cannot bind to (or observe) another app's instance: not_found", async () => {
    const k = await start();
    const notes = await launchNotes(k);
    expect(() => k.sdk("timer", { instance_id: notes.app.instance_id })).toThrow(expect.objectContaining({ code: "not_found" }));
    expect(() => k.sdk("notes", { instance_id: "inst-unknown" })).toThrow(expect.objectContaining({ code: "not_found" }));
  });
});

describe("an instance's SDK and the Runtime's other parts", () => {
  it("an instance's SDK serves that instance's tool calls, and its session data is the conversation's", async () => {
    const k = await start();
    const sdk = await launchNotes(k);
    const served: string[] = [];
    // The app's global face registers too: the Runtime routes the instance's calls past it.
    k.sdk("notes").tools.register("notes.edit", () => {
      served.push("app");
      return { by: "app" };
    });
    sdk.tools.register("notes.edit", (_args, call) => {
      served.push(call.instance_id ?? "none");
      return { by: "instance" };
    });
    await k.runtime.instances.ready(sdk.app.instance_id);
    const outcome = await k.agent.call("notes", "notes.edit", {});
    expect(outcome).toMatchObject({ result: { by: "instance" } });
    expect(served).toEqual([sdk.app.instance_id]);

    await sdk.sessionData.replace({ data: { text: "hello" }, expected_revision: 0 });
    expect(await k.sdk("notes", { app_session_id: "s-1" }).sessionData.get()).toEqual({ data: { text: "hello" }, revision: 1 });
    expect(await k.sdk("notes").sessionData.get()).toEqual({ data: null, revision: 0 });
  });
});
