/**
 * The `wasm` back-end runner in the browser (`backends/wasm-runner.ts`), each module in a dedicated Worker made from
 * a `blob:` URL of the ABI's worker code. The page's policy must allow it: `worker-src blob:` and
 * `script-src 'wasm-unsafe-eval'` (the Web Reference Host's does; docs/security.md).
 */
import { wasmWorkerMain, type WasmWorkerReply } from "../backends/wasm-abi.js";
import type { BackendRunner, BackendStartSpec } from "../backends/runner.js";
import { createWasmRunner, type WasmWorkerHost } from "../backends/wasm-runner.js";
import { systemClock } from "../core/system.js";

const workerSource = (): string => `
const __name = (fn) => fn;
const handle = (${wasmWorkerMain.toString()})((reply) => self.postMessage(reply), (text) => self.postMessage({ log: text }));
self.onmessage = (event) => handle(event.data);
`;

let url: string | undefined;

const spawnWorker: WasmWorkerHost = (handlers) => {
  url ??= URL.createObjectURL(new Blob([workerSource()], { type: "text/javascript" }));
  const worker = new Worker(url);
  worker.onmessage = (event: MessageEvent<WasmWorkerReply | { log: string }>) => ("log" in event.data ? handlers.onLog(event.data.log) : handlers.onReply(event.data));
  worker.onerror = (event) => {
    event.preventDefault();
    handlers.onDeath(new Error(event.message || "the wasm worker failed"));
  };
  return { post: (request) => worker.postMessage(request), terminate: () => worker.terminate() };
};

export function createBrowserWasmRunner(spec: BackendStartSpec): BackendRunner {
  return createWasmRunner(spec, { spawn: spawnWorker, clock: systemClock });
}
