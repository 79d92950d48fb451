/**
 * The SDK's other parts through a real Runtime (the testkit): navigation (`apps`), the lifecycle the
 * view model carries, and diagnostics to the host's sink — plus the context every part shares.
 */
import { describe, expect, it } from "vitest";
import type { JsonValue } from "@lineup/protocol";
import type { AppDiagnostic, Lifecycle } from "../src/index.js";
import { until, useTestRuntime } from "./fixtures.js";

const start = useTestRuntime();

describe("the SDK's context, navigation, lifecycle and diagnostics", () => {
  it("gives an installed app its context", async () => {
    const k = await start();
    expect(k.sdk("notes", { app_session_id: "s-1" }).app).toMatchObject({ app_scope: "notes", app_version: "1.0.0", kind: "installed", instance_id: "notes:main", app_session_id: "s-1" });
  });

  it("launches and closes an app through the Runtime; a disabled target is refused with its code", async () => {
    const k = await start();
    const sdk = k.sdk("notes");
    const handle = await sdk.apps.launch({ app_scope: "timer", conversation_id: "s-1" });
    expect(k.runtime.instances.snapshot().instances).toEqual([expect.objectContaining({ instance_id: handle.instance_id, app_scope: "timer", conversation_id: "s-1", status: "launching" })]);
    await sdk.apps.close(handle.instance_id);
    expect(k.runtime.instances.snapshot().instances.find((i) => i.instance_id === handle.instance_id)?.status ?? "gone").toMatch(/closing|closed|gone/);

    expect((await k.runtime.appManager.disable("timer")).status).toBe("succeeded");
    await expect(sdk.apps.launch({ app_scope: "timer", conversation_id: "s-1" })).rejects.toMatchObject({ code: "app_disabled" });
  });

  it("lists the apps a person could open, focuses what it opened, opens the default app, and may not touch another app's instance", async () => {
    const k = await start();
    const notes = k.sdk("notes");
    expect(notes.apps.listAvailable().map((a) => a.app_scope)).toEqual(expect.arrayContaining(["chat", "notes", "timer"]));
    expect(notes.apps.listAvailable().find((a) => a.is_default)?.app_scope).toBe(k.runtime.appManager.defaultApp());
    const timer = await notes.apps.launch({ app_scope: "timer", conversation_id: "s-1" });
    const other = await k.runtime.appManager.launch({ app_scope: "notes", conversation_id: "s-2" });
    await notes.apps.focus(timer.instance_id);
    expect(k.runtime.instances.snapshot().focus_stack.at(-1)).toBe(timer.instance_id);
    // The timer's SDK did not open the notes instance: refused, and nothing changes.
    await expect(k.sdk("timer").apps.focus(other.instance_id)).rejects.toMatchObject({ code: "not_owner" });
    await expect(k.sdk("timer").apps.close(other.instance_id)).rejects.toMatchObject({ code: "not_owner" });
    expect(k.runtime.instances.snapshot().focus_stack.at(-1)).toBe(timer.instance_id);
    await notes.apps.openDefaultApp();
    const top = k.runtime.instances.snapshot().focus_stack.at(-1)!;
    expect(k.runtime.instances.snapshot().instances.find((i) => i.instance_id === top)?.app_scope).toBe(k.runtime.appManager.defaultApp());
  });

  it("lifecycle follows the Runtime's lifecycle in the view model: each change once", async () => {
    const k = await start();
    const sdk = k.sdk("notes");
    expect(sdk.lifecycle.current().status).toBe("online");
    const seen: Lifecycle["status"][] = [];
    const off = sdk.lifecycle.onChange((lifecycle) => seen.push(lifecycle.status));
    k.runtime.dropConnection();
    await until(() => seen.length > 0);
    // The reconnect waits a backoff on the Runtime's (fake) clock.
    k.advanceTime(60_000);
    await until(() => seen.at(-1) === "online");
    expect(seen).toEqual(["reconnecting", "authenticating", "synchronizing", "online"]);
    off();
  });

  it("diagnostics go to the host's sink as structured entries, never throwing and never with a stack", async () => {
    const k = await start();
    const seen: AppDiagnostic[] = [];
    const sdk = k.sdk("notes", { diagnostics: (entry) => seen.push(entry) });
    sdk.diagnostics.log("info", "synced", { notes: 3 });
    sdk.diagnostics.log("warn", "odd data", { when: () => 1 } as unknown as JsonValue);
    sdk.diagnostics.error(Object.assign(new Error("could not save\n    at save (notes.ts:1:1)"), { code: "store_write_failed" }));
    sdk.diagnostics.error("a string");
    expect(seen).toEqual([
      { app_scope: "notes", level: "info", message: "synced", data: { notes: 3 } },
      { app_scope: "notes", level: "warn", message: "odd data" },
      { app_scope: "notes", level: "error", message: "could not save", code: "store_write_failed" },
      { app_scope: "notes", level: "error", message: "a string" },
    ]);

    const throwing = k.sdk("notes", {
      diagnostics: () => {
        throw new Error("sink down");
      },
    });
    expect(() => throwing.diagnostics.log("error", "x")).not.toThrow();
    expect(() => throwing.diagnostics.error(new Error("y"))).not.toThrow();
    expect(() => k.sdk("notes").diagnostics.error(null)).not.toThrow();
  });
});
