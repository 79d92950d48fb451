import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { diffProjections, projectManifest, resolveToolDescriptor, validateManifest, type AppManifest } from "@lineup/protocol";
import { copy, SPEC_9_EXAMPLE, voiceManifest } from "./manifest-samples.js";

function valid(manifest: AppManifest): AppManifest {
  const result = validateManifest(manifest);
  if (!result.ok) throw new Error(`invalid sample: ${JSON.stringify(result.error)}`);
  return result.value;
}

describe("projectManifest", () => {
  it("shows what the spec 9 example adds, with defaults applied", () => {
    expect(projectManifest(copy(SPEC_9_EXAMPLE) as AppManifest)).toEqual({
      app_scope: "whiteboard",
      name: "whiteboard",
      version: "1.0.0",
      description: "",
      entrypoints: [{ id: "canvas", kind: "contextual", title: "canvas", default_eligible: false, display_modes: ["foreground"] }],
      tools: [{ method: "board.create", contract_version: "1", title: "board.create", call_model: "command", risk_level: "low", requires_foreground: false, capabilities: [] }],
      subscriptions: [
        { type: "lineup.app.state.patch", scope: "instance" },
        { type: "lineup.tool.invoke", scope: "conversation" },
      ],
      capabilities: [],
      events: [],
      agent_tasks: [],
      required_features: ["app.lifecycle.v1", "app.tools.v1", "surface.state.v1", "app.session-data.v1"],
      storage: { session_data_quota_bytes: null, quota_bytes: null, schema_version: null, collections: [] },
      execution: { mode: "local", endpoints: [], data_boundary: null },
      backends: [],
      workflows: [],
      risk: "low",
    });
  });

  it("carries the name and description in other languages when the manifest gives them, and nothing when not", () => {
    const localized = valid(JSON.parse(readFileSync(new URL("../fixtures/manifest/valid/localized-name-and-description.json", import.meta.url), "utf8")).input as AppManifest);
    expect(projectManifest(localized)).toMatchObject({ name: "Draw and guess", localized: { "zh-CN": { name: "你画我猜", description: "你来画，智能体来猜。" }, "zh-Hant-TW": { name: "你畫我猜" } } });
    expect(projectManifest(copy(SPEC_9_EXAMPLE) as AppManifest)).not.toHaveProperty("localized");
  });

  it("says where the app's work runs, what it keeps and which programs it runs", () => {
    const journal = valid(JSON.parse(readFileSync(new URL("../fixtures/manifest/valid/journal-storage-backends-workflows.json", import.meta.url), "utf8")).input as AppManifest);
    const projection = projectManifest(journal);
    expect(projection.execution).toEqual({
      mode: "server-assisted",
      endpoints: [{ id: "sync", url: "https://api.example.com/journal", host: "api.example.com", purpose: "Keeps a copy of your entries for your other devices." }],
      data_boundary: "Entry text and dates go to api.example.com; nothing else leaves the device.",
    });
    expect(projection.storage).toMatchObject({ quota_bytes: 52_428_800, schema_version: 2, collections: ["entries", "settings"] });
    expect(projection.backends.map((b) => [b.id, b.plane, b.protocol, b.endpoint_host, b.memory_mb, b.optional])).toEqual([
      ["search", "client-local", "wasm", null, 16, false],
      ["importer", "client-local", "stdio-jsonrpc", null, 64, true],
      ["sync", "cloud-remote", "remote-http", "api.example.com", 64, true],
    ]);
    expect(projection.workflows).toEqual([{ id: "summarize-week", title: "Summarize my week", step_kinds: ["storage.list", "agent.task", "confirm", "artifact.create", "evidence.record"], asks_person: true, other_app_tools: [] }]);
    // Data leaving the device, or a program of the app's own on it: at least medium.
    expect(projection.risk).toBe("medium");
  });

  it("asks approval for an update that sends data to a new server or runs a new program", () => {
    const base = JSON.parse(readFileSync(new URL("../fixtures/manifest/valid/journal-storage-backends-workflows.json", import.meta.url), "utf8")).input as AppManifest;
    const before = projectManifest(valid(base));
    const next = copy(base) as AppManifest;
    next.execution!.endpoints!.push({ id: "backup", url: "https://backup.example.net/v1", purpose: "Backups." });
    next.backends!.push({ id: "ocr", plane: "client-local", protocol: "wasm", entry: "backends/ocr.wasm", methods: [{ name: "read" }] });
    const diff = diffProjections(before, projectManifest(valid(next)));
    expect(diff.added_endpoints).toEqual(["backup.example.net"]);
    expect(diff.added_backends.map((b) => b.id)).toEqual(["ocr"]);
    expect(diff.requires_approval).toBe(true);
  });

  it("lists the agent tasks the app may start, with the tools each may give the agent", () => {
    const manifest = copy(SPEC_9_EXAMPLE) as AppManifest;
    manifest.runtime_sdk.optional_features = ["app.agent-task.v1"];
    manifest.agent_tasks = { entries: [{ id: "tidy_board", title: "Tidy this board", tools: [{ method: "board.create" }, { app_scope: "pomodoro" as never, method: "focus.start" }] }, { id: "plan", title: "Plan" }] };
    expect(projectManifest(valid(manifest)).agent_tasks).toEqual([
      { id: "tidy_board", title: "Tidy this board", tools: ["whiteboard/board.create", "pomodoro/focus.start"] },
      { id: "plan", title: "Plan", tools: [] },
    ]);
  });

  it("refuses agent tasks without their feature, or declared twice", () => {
    const manifest = copy(SPEC_9_EXAMPLE) as AppManifest;
    manifest.agent_tasks = { entries: [{ id: "tidy_board", title: "Tidy" }] };
    expect(validateManifest(manifest)).toMatchObject({ ok: false, error: { code: "manifest_invalid", path: "/agent_tasks" } });
    manifest.runtime_sdk.required_features.push("app.agent-task.v1");
    manifest.agent_tasks = { entries: [{ id: "tidy_board", title: "Tidy" }, { id: "tidy_board", title: "Again" }] };
    expect(validateManifest(manifest)).toMatchObject({ ok: false, error: { code: "manifest_invalid", path: "/agent_tasks/entries/1/id" } });
    manifest.agent_tasks = { entries: [{ id: "tidy_board", title: "Tidy", tools: [{ method: "board.create" }, { app_scope: "whiteboard" as never, method: "board.create" }] }] };
    expect(validateManifest(manifest)).toMatchObject({ ok: false, error: { code: "manifest_invalid", path: "/agent_tasks/entries/0/tools/1" } });
  });

  it("lists capabilities with the app's purpose and the registry's risk, riskiest first, and which tools use them", () => {
    const manifest = voiceManifest();
    manifest.runtime_sdk.required_features.push("app.session-data.v1");
    manifest.capabilities = [
      { name: "notification.show", purpose: "Say when the transcript is ready." },
      { name: "file.save", purpose: "Save recordings you choose to keep." },
      { name: "microphone.record", purpose: "Record the note the agent asked for." },
    ];
    manifest.storage = { session_data_quota_bytes: 2048 };
    const projection = projectManifest(valid(manifest));
    expect(projection.capabilities.map((c) => [c.name, c.risk])).toEqual([
      ["microphone.record", "high"],
      ["file.save", "medium"],
      ["notification.show", "low"],
    ]);
    expect(projection.capabilities[0]).toMatchObject({ purpose: "Record the note the agent asked for.", requires_confirmation: true, used_by_tools: ["voice.request_recording"] });
    expect(projection.capabilities[1]!.used_by_tools).toEqual([]);
    expect(projection.tools[0]).toMatchObject({ method: "voice.request_recording", title: "Record a voice note", call_model: "interactive", risk_level: "high", requires_foreground: true });
    expect(projection.risk).toBe("high");
    expect(projection.storage).toEqual({ session_data_quota_bytes: 2048, quota_bytes: null, schema_version: null, collections: [] });
    expect(projection.name).toBe("Voice");
  });

  it("projects a manifest that spells out its defaults the same as one that omits them", () => {
    const terse = copy(SPEC_9_EXAMPLE) as AppManifest;
    const explicit = copy(terse);
    explicit.tools = terse.tools!.map((t) => ({ ...resolveToolDescriptor(t), capabilities: [] }));
    explicit.entrypoints = [{ id: "canvas", kind: "contextual", default_eligible: false, display_modes: ["foreground"], title: "canvas" }];
    expect(projectManifest(valid(explicit))).toEqual(projectManifest(terse));
  });
});

describe("diffProjections", () => {
  const v1 = projectManifest(valid(voiceManifest()));

  it("finds nothing between a version and itself", () => {
    expect(diffProjections(v1, v1)).toEqual({
      added_capabilities: [],
      removed_capabilities: [],
      added_tools: [],
      removed_tools: [],
      changed_tools: [],
      added_subscriptions: [],
      removed_subscriptions: [],
      added_events: [],
      removed_events: [],
      added_endpoints: [],
      added_backends: [],
      requires_approval: false,
    });
  });

  it("lists the events an update adds and drops, without asking for approval", () => {
    const before = projectManifest(valid({ ...voiceManifest(), events: [{ name: "note.recorded", description: "You recorded a note." }, { name: "note.deleted" }] }));
    const after = projectManifest(valid({ ...voiceManifest(), events: [{ name: "note.recorded" }, { name: "note.shared" }] }));
    const diff = diffProjections(before, after);
    expect([diff.added_events, diff.removed_events, diff.requires_approval]).toEqual([["note.shared"], ["note.deleted"], false]);
    // The projection carries each event's own words (empty when it has none).
    expect(before.events).toEqual([
      { name: "note.recorded", description: "You recorded a note." },
      { name: "note.deleted", description: "" },
    ]);
  });

  it("requires approval when an update adds a capability, and lists exactly what is new", () => {
    const next = voiceManifest();
    next.version = "1.1.0";
    next.capabilities!.push({ name: "file.save", purpose: "Keep recordings." });
    next.tools!.push({
      method: "voice.save_recording",
      contract_version: "1",
      input_schema: { type: "object" },
      output_schema: {},
      capabilities: ["file.save"],
      risk_level: "medium",
    });
    const diff = diffProjections(v1, projectManifest(valid(next)));
    expect(diff.requires_approval).toBe(true);
    expect(diff.added_capabilities.map((c) => c.name)).toEqual(["file.save"]);
    expect(diff.added_tools.map((t) => t.method)).toEqual(["voice.save_recording"]);
    expect(diff.removed_capabilities).toEqual([]);
  });

  it("does not require approval for removals, but lists them", () => {
    const next = voiceManifest();
    next.tools = [];
    next.capabilities = [];
    next.agent_subscriptions = [];
    const diff = diffProjections(v1, projectManifest(valid(next)));
    expect(diff.requires_approval).toBe(false);
    expect(diff.removed_capabilities.map((c) => c.name)).toEqual(["microphone.record"]);
    expect(diff.removed_tools.map((t) => t.method)).toEqual(["voice.request_recording"]);
    expect(diff.removed_subscriptions).toEqual([{ type: "lineup.tool.invoke", scope: "conversation" }]);
  });

  it("reports a tool whose contract changed", () => {
    const next = voiceManifest();
    next.tools![0]!.contract_version = "2";
    next.agent_subscriptions!.push({ type: "lineup.tool.cancel", scope: "conversation" });
    const diff = diffProjections(v1, projectManifest(valid(next)));
    expect(diff.changed_tools).toHaveLength(1);
    expect(diff.changed_tools[0]).toMatchObject({ method: "voice.request_recording", before: { contract_version: "1" }, after: { contract_version: "2" } });
    expect(diff.added_subscriptions).toEqual([{ type: "lineup.tool.cancel", scope: "conversation" }]);
    expect(diff.requires_approval).toBe(false);
  });
});
