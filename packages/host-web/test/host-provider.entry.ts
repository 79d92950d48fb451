// A page with the browser HostProvider and the shell's capability dialog, under the host's CSP. The
// test drives it through window.__hp; it watches the microphone streams handed out, to see them stopped.
// With #pick-on-load it starts a file.pick at load, without a user gesture.
import { h, render } from "preact";
import type { CapabilityResult, JsonValue } from "@lineup/protocol";
import type { CapabilityPrompt, ElicitationAnswer, ElicitationPrompt } from "@lineup/runtime";
import { CapabilityPromptDialog, createBrowserHostProvider, createPromptQueue } from "../src/host-provider/index.js";
import "../src/styles.css";

type Capability = Parameters<ReturnType<typeof createBrowserHostProvider>["invoke"]>[0]["capability"];

const queue = createPromptQueue();
const notificationClicks: string[] = [];
const provider = createBrowserHostProvider({ prompts: queue, onNotificationClick: (scope) => notificationClicks.push(scope), appName: (scope) => (scope === "notes" ? "Notes" : scope) });
const root = document.createElement("div");
document.body.append(root);
render(h(CapabilityPromptDialog, { queue }), root);

const streams: MediaStream[] = [];
const getUserMedia = navigator.mediaDevices?.getUserMedia.bind(navigator.mediaDevices);
if (getUserMedia !== undefined) {
  navigator.mediaDevices.getUserMedia = async (constraints) => {
    const stream = await getUserMedia(constraints);
    streams.push(stream);
    return stream;
  };
}

const running = new Map<string, { result: Promise<CapabilityResult>; controller: AbortController }>();
const confirms = new Map<string, Promise<string>>();
const questions = new Map<string, { answer: Promise<ElicitationAnswer>; controller: AbortController }>();

function start(id: string, capability: Capability, input: JsonValue): void {
  const controller = new AbortController();
  running.set(id, { controller, result: provider.invoke({ request_id: id, app_scope: "notes", capability, input, signal: controller.signal }) });
}

const api = {
  start,
  result: (id: string) => running.get(id)!.result,
  abort: (id: string) => running.get(id)!.controller.abort(),
  invoke(id: string, capability: Capability, input: JsonValue) {
    start(id, capability, input);
    return running.get(id)!.result;
  },
  confirm(prompt: CapabilityPrompt) {
    confirms.set(prompt.request_id, provider.confirm(prompt));
  },
  confirmed: (requestId: string) => confirms.get(requestId)!,
  elicit(prompt: ElicitationPrompt) {
    const controller = new AbortController();
    questions.set(prompt.request_id, { controller, answer: provider.elicit!(prompt, controller.signal) });
  },
  elicited: (requestId: string) => questions.get(requestId)!.answer,
  withdrawQuestion: (requestId: string) => questions.get(requestId)!.controller.abort(),
  supports: (capability: Capability) => provider.supports(capability),
  systemPermission: (capability: Capability) => provider.systemPermission(capability),
  requestSystemPermission: (capability: Capability) => provider.requestSystemPermission(capability),
  readClipboard: () => navigator.clipboard.readText(),
  liveTracks: () => streams.flatMap((stream) => stream.getTracks()).filter((track) => track.readyState === "live").length,
  notificationClicks: () => [...notificationClicks],
  userActivation: () => navigator.userActivation.isActive,
};

(window as unknown as { __hp: typeof api }).__hp = api;
if (location.hash === "#pick-on-load") start("on-load", "file.pick", { accept: [".txt"] });
