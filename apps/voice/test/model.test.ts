/**
 * Voice Notes in Node: the pure model (requests, what LineUp's recording hands back, refusals as the
 * call's typed failures, the stored list), the notes over session data and a scripted bridge — an
 * agent's request answered by Record, Not now, a discarded or refused recording, a cancelled call, a
 * note of the person's own — and the manifest the build emits from the tool declaration.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { capabilityCompleted, capabilityRefused, resolveToolDescriptor, validateManifest, type ArtifactRef, type BridgeParams, type CapabilityResult, type JsonValue } from "@lineup/protocol";
import { LocalSessionData, toolDescriptors, ToolFailure, type CapabilityRequest } from "@lineup/surface-sdk";
import { describe, expect, it } from "vitest";
import {
  failureOf,
  formatDuration,
  MAX_NOTES,
  mergeNotes,
  noteFileName,
  parseStored,
  purposeFor,
  readRecording,
  recordingRequest,
  storedForm,
  type VoiceNote,
} from "../src/model.js";
import { VoiceNotes, type StageReport } from "../src/notes.js";
import { tools } from "../src/tools.js";

const T0 = Date.UTC(2026, 10, 30, 9, 0, 5);
const AUDIO = Buffer.from("OggS fake opus bytes").toString("base64");
const webHostRecording = (duration_ms = 4_200): CapabilityResult => capabilityCompleted({ recording: { name: "recording.webm", mime_type: "audio/webm", size: 20, data: AUDIO }, duration_ms });
const ref = (id: string): ArtifactRef => ({ artifact_id: id, name: `${id}.webm`, mime_type: "audio/webm", size: 20, sha256: "a".repeat(64) }) as ArtifactRef;
const note = (id: string, created_at: string, duration_ms = 1_000): VoiceNote => ({ id, name: `${id}.webm`, duration_ms, mime_type: "audio/webm", size: 20, created_at });

describe("the voice model", () => {
  it("a request keeps the prompt trimmed and the length within 1 … 300 s (60 s by default)", () => {
    expect(recordingRequest("c1", { prompt: "  Say your name  ", max_seconds: 30 })).toEqual({ call_id: "c1", prompt: "Say your name", max_seconds: 30 });
    expect(recordingRequest("c1", {})).toEqual({ call_id: "c1", max_seconds: 60 });
    expect(recordingRequest("c1", { prompt: "   ", max_seconds: 0 })).toEqual({ call_id: "c1", max_seconds: 1 });
    expect(recordingRequest("c1", { prompt: "x".repeat(300), max_seconds: 1_000 })).toMatchObject({ max_seconds: 300 });
    expect(recordingRequest("c1", { prompt: "x".repeat(300) }).prompt).toHaveLength(200);
  });

  it("the purpose LineUp shows says what the agent asked, or that the note is the person's own", () => {
    expect(purposeFor(recordingRequest("c1", { prompt: "Describe the bug" }))).toBe("The agent asked you: “Describe the bug” The recording is kept in this conversation for the agent to read.");
    expect(purposeFor(recordingRequest("c1", {}))).toBe("The agent asked you for a voice note. The recording is kept in this conversation for the agent to read.");
    expect(purposeFor(undefined)).toBe("Record a voice note you keep in this conversation.");
    expect(purposeFor(recordingRequest("c1", { prompt: "y".repeat(200) })).length).toBeLessThanOrEqual(500);
  });

  it("reads what microphone.record hands back: the web host's bytes, or an artifact a host already made", () => {
    expect(readRecording((webHostRecording() as { value: JsonValue }).value)).toEqual({ kind: "bytes", name: "recording.webm", mime_type: "audio/webm", size: 20, data: AUDIO, duration_ms: 4_200 });
    expect(readRecording({ recording: ref("art-9"), duration_ms: 900.4 })).toEqual({ kind: "artifact", artifact: ref("art-9"), duration_ms: 900 });
    expect(readRecording({ artifact: ref("art-9"), duration_ms: 1 })).toMatchObject({ kind: "artifact" });
    for (const bad of [null, "x", {}, { recording: { mime_type: "audio/webm", data: AUDIO } }, { duration_ms: 5 }, { recording: { mime_type: "audio/webm", data: "" }, duration_ms: 5 }, { recording: { data: AUDIO }, duration_ms: 5 }, { recording: { mime_type: "audio/webm", data: AUDIO }, duration_ms: -1 }]) {
      expect(readRecording(bad as JsonValue), JSON.stringify(bad)).toBeUndefined();
    }
  });

  it("a refused recording becomes the call's failure with an app tool code", () => {
    const code = (status: Parameters<typeof capabilityRefused>[0]) => failureOf(capabilityRefused(status, "why")).code;
    expect(["cancelled_by_user", "permission_denied", "policy_denied", "expired", "unsupported_on_host", "failed"].map((s) => code(s as Parameters<typeof capabilityRefused>[0]))).toEqual([
      "cancelled_by_user",
      "permission_denied",
      "permission_denied",
      "operation_expired",
      "handler_failed",
      "handler_failed",
    ]);
    expect(failureOf(capabilityRefused("cancelled_by_user", "the user discarded the recording")).message).toBe("the person cancelled the recording (the user discarded the recording)");
  });

  it("names the artifact by when it was saved and its type; formats lengths; keeps the list newest first, once per note", () => {
    expect(noteFileName(T0, "audio/webm;codecs=opus")).toBe("voice-note-20261130-090005.webm");
    expect(noteFileName(T0, "audio/x-unknown")).toBe("voice-note-20261130-090005.bin");
    expect([0, 300, 1_499, 1_500, 61_000, 300_000].map(formatDuration)).toEqual(["0:00", "0:01", "0:01", "0:02", "1:01", "5:00"]);
    const a = note("a", "2026-11-30T09:00:00.000Z");
    const b = note("b", "2026-11-30T10:00:00.000Z");
    expect(mergeNotes([a], [b, { ...a, name: "other" }])).toEqual([b, a]);
    const many = Array.from({ length: MAX_NOTES + 5 }, (_, i) => note(`n${i}`, new Date(T0 + i * 1_000).toISOString()));
    expect(mergeNotes(many, [])).toHaveLength(MAX_NOTES);
    expect(mergeNotes(many, [])[0]!.id).toBe(`n${MAX_NOTES + 4}`);
  });

  it("stores the list and reads it back; entries that are not notes are skipped", () => {
    const notes = [note("b", "2026-11-30T10:00:00.000Z"), note("a", "2026-11-30T09:00:00.000Z")];
    expect(parseStored(JSON.parse(JSON.stringify(storedForm(notes))))).toEqual(notes);
    expect(parseStored(null)).toEqual([]);
    expect(parseStored({ notes: "x" })).toEqual([]);
    expect(parseStored({ notes: [notes[0]!, { id: "x" }, { ...notes[1]!, created_at: "yesterday" }, 5] as unknown as JsonValue[] })).toEqual([notes[0]]);
  });
});

/** A bridge whose capability requests wait for the test, with artifacts kept in memory. */
function scriptedBridge(prefix = "art") {
  const requests: { request: CapabilityRequest; answer: (result: CapabilityResult) => void }[] = [];
  const created: BridgeParams<"artifact.create">[] = [];
  const stored = new Map<string, { artifact: ArtifactRef; data: string }>();
  return {
    requests,
    created,
    capabilities: {
      request: (request: CapabilityRequest) => new Promise<CapabilityResult>((answer) => requests.push({ request, answer })),
    },
    artifacts: {
      async create(request: BridgeParams<"artifact.create">): Promise<ArtifactRef> {
        created.push(request);
        const artifact = { ...ref(`${prefix}-${created.length}`), name: request.name, mime_type: request.mime_type };
        stored.set(artifact.artifact_id, { artifact, data: request.content.data });
        return artifact;
      },
      async read(request: BridgeParams<"artifact.read">) {
        const found = stored.get(request.artifact_id);
        if (found === undefined) throw new Error("no such artifact");
        return { artifact: found.artifact, content: { encoding: "base64" as const, data: found.data }, truncated: false };
      },
    },
    /** Answers the oldest waiting capability request. */
    answer(result: CapabilityResult): void {
      requests.shift()!.answer(result);
    },
  };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

function setup(data = new LocalSessionData(), prefix = "art") {
  const bridge = scriptedBridge(prefix);
  let now = T0;
  const notes = new VoiceNotes({ sessionData: data, capabilities: bridge.capabilities, artifacts: bridge.artifacts, now: () => now });
  const stages: StageReport[] = [];
  const ask = (call_id: string, args: { prompt?: string; max_seconds?: number } = {}, signal = new AbortController().signal) =>
    notes.request(recordingRequest(call_id, args), { signal, progress: async (report) => void stages.push(report) });
  return { data, bridge, notes, stages, ask, advance: (ms: number) => (now += ms) };
}

describe("the voice notes", () => {
  it("the agent's request waits for the person; Record asks LineUp for the microphone, saves the audio as an artifact, lists the note and completes the call", async () => {
    const { data, bridge, notes, stages, ask } = setup();
    await notes.load();
    const call = ask("c1", { prompt: "Say the order number", max_seconds: 20 });
    expect(notes.requests).toEqual([{ call_id: "c1", prompt: "Say the order number", max_seconds: 20 }]);
    const recording = notes.record("c1");
    expect(notes.activity).toEqual({ kind: "recording", call_id: "c1" });
    expect(bridge.requests.map((r) => r.request)).toEqual([
      { capability: "microphone.record", purpose: "The agent asked you: “Say the order number” The recording is kept in this conversation for the agent to read.", input: { max_ms: 20_000 } },
    ]);
    // One recording at a time: another press does nothing.
    await notes.record();
    expect(bridge.requests).toHaveLength(1);
    bridge.answer(webHostRecording(4_200));
    await recording;
    expect(bridge.created).toEqual([{ name: "voice-note-20261130-090005.webm", mime_type: "audio/webm", content: { encoding: "base64", data: AUDIO } }]);
    expect(await call).toEqual({ outcome: "recorded", artifact_id: "art-1", duration_ms: 4_200, mime_type: "audio/webm", size: 20 });
    expect(stages.map((s) => s.stage)).toEqual(["recording", "saving"]);
    expect(notes.requests).toEqual([]);
    expect(notes.activity).toEqual({ kind: "idle" });
    expect(notes.notes).toEqual([{ id: "art-1", name: "voice-note-20261130-090005.webm", duration_ms: 4_200, mime_type: "audio/webm", size: 20, created_at: "2026-11-30T09:00:05.000Z" }]);
    expect(parseStored(data.current.data)).toEqual(notes.notes);
    // Played back from the artifact's bytes.
    const audio = await notes.audio("art-1");
    expect(Buffer.from(audio.bytes).toString()).toBe("OggS fake opus bytes");
    expect(audio.mime_type).toBe("audio/webm");
  });

  it("Not now ends the call cancelled_by_user and takes the request off the screen", async () => {
    const { notes, ask, bridge } = setup();
    await notes.load();
    const call = ask("c1");
    const second = ask("c2", { prompt: "Later" });
    expect(notes.requests.map((r) => r.call_id)).toEqual(["c1", "c2"]);
    notes.decline("c1");
    await expect(call).rejects.toEqual(new ToolFailure("cancelled_by_user", "the person chose not to record now"));
    expect(notes.requests.map((r) => r.call_id)).toEqual(["c2"]);
    expect(bridge.requests).toHaveLength(0);
    notes.decline("c2");
    await expect(second).rejects.toMatchObject({ code: "cancelled_by_user" });
  });

  it("a discarded or refused recording ends the call with its code and keeps no note", async () => {
    const { notes, ask, bridge } = setup();
    await notes.load();
    const discarded = ask("c1");
    const first = notes.record("c1");
    bridge.answer(capabilityRefused("cancelled_by_user", "the user discarded the recording"));
    await first;
    await expect(discarded).rejects.toMatchObject({ code: "cancelled_by_user", message: "the person cancelled the recording (the user discarded the recording)" });
    // The person's own choice is no problem to show.
    expect(notes.problem).toBeUndefined();

    const denied = ask("c2");
    const second = notes.record("c2");
    bridge.answer(capabilityRefused("permission_denied", "the user did not allow microphone.record"));
    await second;
    await expect(denied).rejects.toMatchObject({ code: "permission_denied" });
    expect(notes.problem).toBe("Not recorded: the microphone was not allowed (the user did not allow microphone.record)");

    const expired = ask("c3");
    const third = notes.record("c3");
    bridge.answer(capabilityRefused("expired", "microphone.record was not answered in time"));
    await third;
    await expect(expired).rejects.toMatchObject({ code: "operation_expired" });
    expect(notes.notes).toEqual([]);
    expect(bridge.created).toEqual([]);
    expect(notes.activity).toEqual({ kind: "idle" });
  });

  it("a recording LineUp cannot hand back, or an artifact that cannot be saved, fails the call handler_failed", async () => {
    const { notes, ask, bridge } = setup();
    await notes.load();
    const odd = ask("c1");
    const first = notes.record("c1");
    bridge.answer(capabilityCompleted({ something: "else" }));
    await first;
    await expect(odd).rejects.toMatchObject({ code: "handler_failed", message: "LineUp's recording could not be read" });

    bridge.artifacts.create = async () => {
      throw Object.assign(new Error("the artifact is too large"), { code: "payload_too_large" });
    };
    const unsaved = ask("c2");
    const second = notes.record("c2");
    bridge.answer(webHostRecording());
    await second;
    await expect(unsaved).rejects.toMatchObject({ code: "handler_failed", message: "the recording could not be saved: the artifact is too large" });
  });

  it("a host that already stored the recording hands back its artifact: the note uses it and nothing is created", async () => {
    const { notes, ask, bridge } = setup();
    await notes.load();
    const call = ask("c1");
    const recording = notes.record("c1");
    bridge.answer(capabilityCompleted({ recording: ref("host-art-7") as unknown as JsonValue, duration_ms: 2_000 }));
    await recording;
    expect(await call).toEqual({ outcome: "recorded", artifact_id: "host-art-7", duration_ms: 2_000, mime_type: "audio/webm", size: 20 });
    expect(bridge.created).toEqual([]);
  });

  it("a call that ends (the agent cancels, the deadline) leaves the screen; a recording under way still becomes a note", async () => {
    const { notes, ask, bridge } = setup();
    await notes.load();
    const waiting = new AbortController();
    const call = ask("c1", {}, waiting.signal);
    waiting.abort();
    await expect(call).rejects.toMatchObject({ code: "cancelled_by_user" });
    expect(notes.requests).toEqual([]);
    await notes.record("c1");
    expect(bridge.requests).toHaveLength(0);

    const recordingCall = new AbortController();
    const second = ask("c2", {}, recordingCall.signal);
    const recording = notes.record("c2");
    recordingCall.abort();
    await expect(second).rejects.toMatchObject({ code: "cancelled_by_user" });
    bridge.answer(webHostRecording());
    await recording;
    expect(notes.notes.map((n) => n.id)).toEqual(["art-1"]);
    await expect(ask("c3", {}, AbortSignal.abort())).rejects.toMatchObject({ code: "cancelled_by_user" });
  });

  it("the person records a note of their own: no call, the default length, and Not now cannot touch it", async () => {
    const { notes, bridge } = setup();
    await notes.load();
    const recording = notes.record();
    expect(notes.activity).toEqual({ kind: "recording" });
    expect(bridge.requests[0]!.request).toEqual({ capability: "microphone.record", purpose: "Record a voice note you keep in this conversation.", input: { max_ms: 60_000 } });
    bridge.answer(webHostRecording(1_500));
    await recording;
    expect(notes.notes).toMatchObject([{ id: "art-1", duration_ms: 1_500 }]);
    const failing = notes.record();
    bridge.answer(capabilityRefused("unsupported_on_host", "this host cannot provide microphone.record"));
    await failing;
    expect(notes.problem).toBe("Not recorded: this device cannot record from a microphone (this host cannot provide microphone.record)");
  });

  it("notes recorded on two screens of the same conversation are both kept (a stale write merges), and a reload shows them", async () => {
    const data = new LocalSessionData();
    const one = setup(data, "one");
    const two = setup(data, "two");
    await one.notes.load();
    await two.notes.load();
    const a = one.notes.record();
    const b = two.notes.record();
    one.bridge.answer(webHostRecording());
    two.advance(60_000);
    two.bridge.answer(webHostRecording());
    await Promise.all([a, b]);
    await settle();
    expect(parseStored(data.current.data).map((n) => [n.id, n.created_at])).toEqual([
      ["two-1", "2026-11-30T09:01:05.000Z"],
      ["one-1", "2026-11-30T09:00:05.000Z"],
    ]);
    expect(one.notes.notes).toHaveLength(2);
    const reloaded = setup(data);
    await reloaded.notes.load();
    expect(reloaded.notes.notes).toEqual(parseStored(data.current.data));
  });
});

describe("the manifest the build emits", () => {
  it("declares voice.request_recording as an interactive, foreground tool that uses the declared microphone", () => {
    const base = JSON.parse(readFileSync(join(import.meta.dirname, "..", "lineup.app.base.json"), "utf8")) as Record<string, unknown>;
    const checked = validateManifest({ ...base, tools: toolDescriptors(tools) });
    expect(checked.ok, JSON.stringify(checked)).toBe(true);
    if (!checked.ok) return;
    expect(checked.value).toMatchObject({ app_scope: "voice", name: "Voice Notes", capabilities: [{ name: "microphone.record" }] });
    const [tool] = checked.value.tools!;
    expect(tool!.method).toBe("voice.request_recording");
    expect(resolveToolDescriptor(tool!)).toMatchObject({ contract_version: "1", call_model: "interactive", activation_requirement: "foreground_required", handling: "direct", risk_level: "high", capabilities: ["microphone.record"], timeout_ms: 600_000 });
  });
});
