/**
 * The `wasm` back-end runner in the browser (`backends/wasm-runner.ts`), each module in a dedicated Worker made from
 * a `blob:` URL of the ABI's worker code. The page's policy must allow it: `worker-src blob:` and
 * `script-src 'wasm-unsafe-eval'` (the Web Reference Host's does; docs/security.md).
 */
import { wasmWorkerScript, type WasmWorkerReply } from "../backends/wasm-abi.js";
import type { BackendRunner, BackendStartSpec } from "../backends/runner.js";
import { createWasmRunner, type WasmWorkerHost } from "../backends/wasm-runner.js";
import { systemClock } from "../core/system.js";

// The worker's script: the ABI's worker side after the lines that say how a Worker posts and listens.
const WEB_PRELUDE = `const post = (message) => self.postMessage(message);
const listen = (handle) => { self.onmessage = (event) => handle(event.data); };`;
let script: string | undefined;

/** The classic script a Worker of a `wasm` back-end runs (a host that serves it as a file of its own could use it). */
export function browserWasmWorkerScript(): string {
  return (script ??= wasmWorkerScript(WEB_PRELUDE));
}

let url: string | undefined;

const spawnWorker: WasmWorkerHost = (handlers) => {
  url ??= URL.createObjectURL(new Blob([browserWasmWorkerScript()], { type: "text/javascript" }));
  const worker = new Worker(url);
  worker.onmessage = (event: MessageEvent<WasmWorkerReply | { log: string }>) => ("log" in event.data ? handlers.onLog(event.data.log) : handlers.onReply(event.data));
  worker.onerror = (event) => {
    event.preventDefault();
    handlers.onDeath(new Error(event.message || "the wasm worker could not run (does the page's Content-Security-Policy allow worker-src blob: and 'wasm-unsafe-eval'?)"));
  };
  return { post: (request) => worker.postMessage(request), terminate: () => worker.terminate() };
};

export function createBrowserWasmRunner(spec: BackendStartSpec): BackendRunner {
  return createWasmRunner(spec, { spawn: spawnWorker, clock: systemClock });
}
