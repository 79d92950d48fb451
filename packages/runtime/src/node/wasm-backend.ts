/**
 * The `wasm` back-end runner on the Node host (`backends/wasm-runner.ts`), each module in a worker thread of its own
 * with its JS heap capped as well.
 */
import { Worker } from "node:worker_threads";
import { wasmWorkerMain, type WasmWorkerReply } from "../backends/wasm-abi.js";
import type { BackendRunner, BackendStartSpec } from "../backends/runner.js";
import { createWasmRunner, type WasmWorkerHost } from "../backends/wasm-runner.js";
import { systemClock } from "../core/system.js";

// The worker side is the function's own source text; a transpiler that names functions (`__name`) gets a stand-in.
const workerSource = (): string => `
const __name = (fn) => fn;
const { parentPort } = require("node:worker_threads");
const handle = (${wasmWorkerMain.toString()})((reply) => parentPort.postMessage(reply), (text) => parentPort.postMessage({ log: text }));
parentPort.on("message", handle);
`;

const spawnThread: WasmWorkerHost = (handlers, limits) => {
  const worker = new Worker(workerSource(), { eval: true, resourceLimits: { maxOldGenerationSizeMb: Math.max(16, limits.memory_mb), maxYoungGenerationSizeMb: 8 }, stdout: false, stderr: false });
  worker.on("message", (message: WasmWorkerReply | { log: string }) => ("log" in message ? handlers.onLog(message.log) : handlers.onReply(message)));
  worker.on("error", (error) => handlers.onDeath(error));
  worker.on("exit", () => handlers.onDeath());
  return { post: (request) => worker.postMessage(request), terminate: () => void worker.terminate() };
};

export function createNodeWasmRunner(spec: BackendStartSpec): BackendRunner {
  return createWasmRunner(spec, { spawn: spawnThread, clock: systemClock });
}
