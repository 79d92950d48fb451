/**
 * The `wasm` back-end runner on the Node host (`backends/wasm-runner.ts`), each module in a worker thread of its own
 * with its JS heap capped as well.
 */
import { Worker } from "node:worker_threads";
import { wasmWorkerScript, type WasmWorkerReply } from "../backends/wasm-abi.js";
import type { BackendRunner, BackendStartSpec } from "../backends/runner.js";
import { createWasmRunner, type WasmWorkerHost } from "../backends/wasm-runner.js";
import { systemClock } from "../core/system.js";

// The worker's script: the ABI's worker side after the lines that say how a worker thread posts and listens.
const NODE_PRELUDE = `const { parentPort } = require("node:worker_threads");
const post = (message) => parentPort.postMessage(message);
const listen = (handle) => parentPort.on("message", handle);`;
let script: string | undefined;

/** The script a worker thread of a `wasm` back-end runs (`eval: true`): a bench can time a raw round trip with it. */
export function nodeWasmWorkerScript(): string {
  return (script ??= wasmWorkerScript(NODE_PRELUDE));
}

const spawnThread: WasmWorkerHost = (handlers, limits) => {
  const worker = new Worker(nodeWasmWorkerScript(), { eval: true, resourceLimits: { maxOldGenerationSizeMb: Math.max(32, limits.memory_mb), maxYoungGenerationSizeMb: 8 }, stdout: false, stderr: false });
  worker.on("message", (message: WasmWorkerReply | { log: string }) => ("log" in message ? handlers.onLog(message.log) : handlers.onReply(message)));
  worker.on("error", (error: Error & { code?: string }) => handlers.onDeath(error.code === "ERR_WORKER_OUT_OF_MEMORY" ? new Error("the back-end's worker ran out of its JS heap", { cause: error }) : error));
  worker.on("exit", () => handlers.onDeath());
  return { post: (request) => worker.postMessage(request), terminate: () => void worker.terminate() };
};

export function createNodeWasmRunner(spec: BackendStartSpec): BackendRunner {
  return createWasmRunner(spec, { spawn: spawnThread, clock: systemClock });
}
