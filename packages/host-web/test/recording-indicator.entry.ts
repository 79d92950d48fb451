// A page with the browser HostProvider, the shell's capability dialog and its recording indicator, under
// the host's CSP. The test drives it through window.__rec and watches the microphone streams handed out,
// to see them stopped.
import { h, render } from "preact";
import type { CapabilityResult, JsonValue } from "@lineup/protocol";
import { CapabilityPromptDialog, createBrowserHostProvider, createPromptQueue, createRecordingStore, RecordingIndicator } from "../src/host-provider/index.js";
import "../src/styles.css";

const queue = createPromptQueue();
const recordings = createRecordingStore();
const provider = createBrowserHostProvider({ prompts: queue, recordings, onNotificationClick: () => undefined, appName: (scope) => (scope === "voice" ? "Voice Notes" : scope) });
const root = document.createElement("div");
document.body.append(root);
render(h("div", null, h(CapabilityPromptDialog, { queue }), h(RecordingIndicator, { recordings })), root);

const streams: MediaStream[] = [];
const getUserMedia = navigator.mediaDevices.getUserMedia.bind(navigator.mediaDevices);
navigator.mediaDevices.getUserMedia = async (constraints) => {
  const stream = await getUserMedia(constraints);
  streams.push(stream);
  return stream;
};

const running = new Map<string, { result: Promise<CapabilityResult>; controller: AbortController; settled: boolean }>();

const api = {
  start(id: string, input: JsonValue): void {
    const controller = new AbortController();
    const entry = { controller, settled: false, result: provider.invoke({ request_id: id, app_scope: "voice", capability: "microphone.record", input, signal: controller.signal }) };
    void entry.result.then(() => (entry.settled = true));
    running.set(id, entry);
  },
  result: (id: string) => running.get(id)!.result,
  settled: (id: string) => running.get(id)!.settled,
  abort: (id: string) => running.get(id)!.controller.abort(),
  live: () => recordings.list().map((r) => r.request_id),
  liveTracks: () => streams.flatMap((stream) => stream.getTracks()).filter((track) => track.readyState === "live").length,
};

(window as unknown as { __rec: typeof api }).__rec = api;
