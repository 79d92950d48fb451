/**
 * A minimal host page for browser tests: the app's page in `<iframe sandbox="allow-scripts">`
 * (opaque origin, no `allow-same-origin`), a private `MessageChannel` handed over once with the
 * snapshot frame, and a bridge that keeps session data with the Runtime's revision rules, keeps the
 * artifacts the app creates (and reads them back), and holds each `capability.request` until the
 * test answers it (`answerCapability`). Test hooks live on `window.__host`.
 */
export const TEST_NONCE = "nonce-browser-test-0001";

export function hostPage(appHtml: string, snapshot: object): string {
  const script = `
const NONCE = ${JSON.stringify(TEST_NONCE)};
const SNAPSHOT = ${JSON.stringify(snapshot)};
const log = [];
let session = { data: null, revision: 0 };
let subscribed = false;
const artifacts = [];
const capabilityRequests = [];
let channel = new MessageChannel();
let port = channel.port1;
let nextId = 1;
const invokes = new Map();
const onReady = [];
const eventsOnReady = [];
const readyAnswers = [];
const frame = (o) => Object.assign({ bridge: "lineup.surface", v: 1, nonce: NONCE }, o);
const reply = (m, result) => port.postMessage(frame({ kind: "response", id: m.id, method: m.method, result }));
const refuse = (m, code, message) => port.postMessage(frame({ kind: "response", id: m.id, method: m.method, error: { code, message } }));
const push = (name, data) => port.postMessage(frame({ kind: "event", name, data }));
const onMessage = (e) => {
  const m = e.data;
  log.push(m);
  if (m.nonce !== NONCE) return;
  if (m.kind === "response") { const r = invokes.get(m.id); invokes.delete(m.id); if (r) r(m.error ? { error: m.error } : m.result); return; }
  if (m.kind !== "request") return;
  switch (m.method) {
    case "session_data.get": return reply(m, session);
    case "session_data.subscribe": subscribed = true; return reply(m, session);
    case "session_data.unsubscribe": subscribed = false; return reply(m, {});
    case "session_data.replace":
      if (m.params.expected_revision !== session.revision) return refuse(m, "revision_conflict", "stale");
      session = { data: m.params.data, revision: session.revision + 1 };
      reply(m, { revision: session.revision });
      if (subscribed) push("session_data.changed", session);
      return;
    case "artifact.create": {
      const bytes = atob(m.params.content.data).length;
      const artifact = { artifact_id: "art-" + (artifacts.length + 1), name: m.params.name, mime_type: m.params.mime_type, size: bytes, sha256: "0".repeat(64) };
      artifacts.push({ artifact, data: m.params.content.data, encoding: m.params.content.encoding });
      return reply(m, { artifact });
    }
    case "artifact.read": {
      const found = artifacts.find((a) => a.artifact.artifact_id === m.params.artifact_id);
      if (!found) return refuse(m, "not_found", "no such artifact");
      return reply(m, { artifact: found.artifact, content: { encoding: found.encoding, data: found.data }, truncated: false });
    }
    case "lifecycle.ready":
      reply(m, {});
      // A call that waited for the app to start goes out the moment it is ready, as the Runtime sends it.
      for (const params of onReady.splice(0)) window.__host.invoke(params).then((answer) => readyAnswers.push(answer));
      for (const [name, data] of eventsOnReady.splice(0)) push(name, data);
      return;
    // Waits for the test: the gateway's decision and the host's work are what a test scripts.
    case "capability.request": capabilityRequests.push(m); return;
    default: return reply(m, {});
  }
};
port.onmessage = onMessage;
const APP_HTML = ${JSON.stringify(appHtml)};
let iframe = document.getElementById("app-frame");
const load = () => {
  iframe.addEventListener("load", () => iframe.contentWindow.postMessage(frame({ kind: "event", name: "host.snapshot", data: SNAPSHOT }), "*", [channel.port2]), { once: true });
  iframe.srcdoc = APP_HTML;
};
window.__host = {
  /** Tears the surface down and loads it again on a fresh port: what a page reload or relaunch does. Session data stays. */
  reload: () => {
    port.close();
    subscribed = false;
    log.length = 0;
    capabilityRequests.length = 0;
    channel = new MessageChannel();
    port = channel.port1;
    port.onmessage = onMessage;
    // A new frame, as a host does for a relaunch: nothing of the old document survives but session data.
    const fresh = iframe.cloneNode(false);
    fresh.removeAttribute("srcdoc");
    iframe.replaceWith(fresh);
    iframe = fresh;
    load();
  },
  log, artifacts,
  /** Answers the oldest unanswered capability.request with \`result\` (a CapabilityResult); false when none waits. */
  answerCapability: (result) => { const m = capabilityRequests.shift(); if (!m) return false; reply(m, result); return true; },
  session: () => session,
  invoke: (params) => new Promise((resolve) => { const id = nextId++; invokes.set(id, resolve); port.postMessage(frame({ kind: "request", id, method: "tool.invoke", params })); }),
  event: push,
  /** Sends \`tool.invoke\` with \`params\` as soon as the app next says \`lifecycle.ready\` (same task); its answers collect in \`readyAnswers\`. */
  invokeOnReady: (params) => { onReady.push(params); },
  readyAnswers,
  /** Pushes the event \`name\` as soon as the app next says \`lifecycle.ready\` (same task), as a host flushes what it queued. */
  eventOnReady: (name, data) => { eventsOnReady.push([name, data]); },
  requests: (method) => log.filter((m) => m.kind === "request" && m.method === method),
};
load();
`;
  return `<!doctype html><html><head><meta charset="utf-8"><title>host</title></head><body style="margin:0;background:#888">
<iframe id="app-frame" sandbox="allow-scripts" style="display:block;width:800px;height:600px;border:0"></iframe>
<script>${script.replace(/<\/script/gi, "<\\/script")}</script></body></html>`;
}
