/** The launcher's list and the deep links the shell follows (issue 21, "Opening and switching"). */
import { describe, expect, it } from "vitest";
import { iconHue, launcherItems, oneLine, type LauncherApp } from "../src/shell/launcher-items.js";
import { formatOpenLink, parseOpenLink } from "../src/shell/open-link.js";

const app = (app_scope: string, name: string, description = "", core = false): LauncherApp => ({ app_scope, name, description, core, ...(core ? {} : { entrypoint: "main" }) });
const APPS = [app("chat", "Chat", "Your conversations.", true), app("app-registry", "Apps", "Install apps.", true), app("whiteboard", "Whiteboard", "A whiteboard you and the agent draw on. Pen and shapes."), app("journal", "Journal", "A private journal, one entry a day."), app("pomodoro", "Pomodoro", "A focus timer.")];

describe("the launcher's rows", () => {
  it("lists the apps open now first (most recent first), then installed apps (open ones first, then by name), core apps last", () => {
    const rows = launcherItems({ apps: APPS, recent: [{ instance_id: "i2", app_scope: "pomodoro", name: "Pomodoro", conversation: "Focus" }, { instance_id: "i1", app_scope: "whiteboard", name: "Whiteboard" }], query: "" });
    expect(rows.map((r) => `${r.kind}:${r.app_scope}`)).toEqual(["instance:pomodoro", "instance:whiteboard", "app:pomodoro", "app:whiteboard", "app:journal", "app:chat", "app:app-registry"]);
    expect(rows.find((r) => r.kind === "app" && r.app_scope === "whiteboard")).toMatchObject({ summary: "A whiteboard you and the agent draw on." });
  });

  it("filters by every word of the query over name, description and conversation, names that start with it first", () => {
    const recent = [{ instance_id: "i1", app_scope: "whiteboard", name: "Whiteboard", conversation: "Trip to Lisbon" }];
    expect(launcherItems({ apps: APPS, recent, query: "lisbon" }).map((r) => r.key)).toEqual(["instance:i1"]);
    expect(launcherItems({ apps: APPS, recent: [], query: "  JOUR " }).map((r) => r.key)).toEqual(["app:journal"]);
    expect(launcherItems({ apps: APPS, recent: [], query: "agent draw" }).map((r) => r.key)).toEqual(["app:whiteboard"]);
    // "a" is in every description, but within each section the names starting with it come first; sections keep their order.
    expect(launcherItems({ apps: [...APPS, app("abacus", "Abacus", "Count a lot.")], recent: [], query: "a" }).map((r) => r.key)).toEqual(["app:abacus", "app:journal", "app:pomodoro", "app:whiteboard", "app:app-registry", "app:chat"]);
    expect(launcherItems({ apps: APPS, recent: [], query: "nothing like it" })).toEqual([]);
  });

  it("shows one line of a description, and one hue per app", () => {
    expect(oneLine("A focus timer the agent starts.\nIt shows how long is left.")).toBe("A focus timer the agent starts.");
    expect(oneLine("No full stop")).toBe("No full stop");
    expect(oneLine("Version 1.2 is here. Second.")).toBe("Version 1.2 is here.");
    expect(iconHue("whiteboard")).toBe(iconHue("whiteboard"));
    expect(iconHue("whiteboard")).not.toBe(iconHue("journal"));
  });
});

describe("deep links", () => {
  it("reads #/open/<app_scope>?conversation=…&entry=… and writes it back the same", () => {
    expect(parseOpenLink("#/open/whiteboard?conversation=conv_1&entry=canvas")).toEqual({ ok: true, target: { app_scope: "whiteboard", conversation_id: "conv_1", entrypoint: "canvas" } });
    expect(parseOpenLink("#/open/journal")).toEqual({ ok: true, target: { app_scope: "journal" } });
    expect(formatOpenLink({ app_scope: "whiteboard", conversation_id: "conv_1", entrypoint: "canvas" })).toBe("#/open/whiteboard?conversation=conv_1&entry=canvas");
    expect(parseOpenLink(formatOpenLink({ app_scope: "journal" }))).toEqual({ ok: true, target: { app_scope: "journal" } });
  });

  it("leaves other hashes alone and refuses a link it cannot read, saying why", () => {
    expect(parseOpenLink("")).toBeUndefined();
    expect(parseOpenLink("#settings")).toBeUndefined();
    expect(parseOpenLink("#/open/Not An App")).toMatchObject({ ok: false, reason: "“Not An App” is not an app's name" });
    expect(parseOpenLink("#/open/%E0%A4%A")).toMatchObject({ ok: false, reason: "the link is garbled" });
    expect(parseOpenLink("#/open/whiteboard?entry=../x")).toMatchObject({ ok: false, reason: "the link names no valid page of the app" });
    expect(parseOpenLink("#/open/whiteboard?conversation=")).toMatchObject({ ok: false, reason: "the link names no valid conversation" });
  });
});
