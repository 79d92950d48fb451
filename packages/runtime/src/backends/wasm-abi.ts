/**
 * The ABI between the host and a `wasm` back-end (docs/manifest.md §8b), the check a module must pass before it runs
 * (`planWasmModule`, `checkWasmModule`), and the one piece of code that speaks it: `wasmWorkerMain`, which runs inside
 * the worker (a Node worker thread, or a browser Worker) and so imports nothing — its source, and the check's, are
 * handed to the worker as text. The host side (queue, limits, restarts) is `wasm-runner.ts`.
 *
 * - The module **imports** its memory as `env.memory` (AssemblyScript: `--importMemory`). The host makes it with
 *   `initial` = the module's declared minimum and `maximum` = the back-end's `memory_mb` in 64 KiB pages (or the
 *   module's own declared maximum, when smaller), so a `memory.grow` past the limit fails inside the module. A module
 *   whose declared minimum is over the limit, whose memory is shared or 64-bit, or that defines a memory of its own
 *   is refused.
 * - Its other imports may only be `env.abort(msg, file, line, col)` (the call fails `handler_failed`, reason `trap`,
 *   with the message when it is a readable AssemblyScript string), `env.trace` (to the host's diagnostics) and
 *   `env.seed` (a constant: wasm back-ends are deterministic) and `lineup.log(ptr, len)` (UTF-8 text to the host's
 *   diagnostics, at most 4 KiB a line and 64 lines a call). Any other import — files, clocks, sockets, WASI —
 *   refuses the module: `handler_failed` with `data.reason: "start_failed"`, naming it.
 * - It **exports** `lineup_alloc(len) -> ptr` (room for the host's input), optionally `lineup_free(ptr, len)`, and
 *   `lineup_call(method_ptr, method_len, params_ptr, params_len) -> ptr`. The method is its name in UTF-8; the params
 *   are the call's params alone as UTF-8 JSON (`null` when there are none). `ptr` points to a little-endian u32
 *   length followed by that many bytes of UTF-8 JSON: `{"result": …}` or `{"error": {"code", "message"}}`.
 *
 * State inside the module lives as long as its instance: a failed call (a trap, a memory limit, a wall-time kill, a
 * cancelled call) throws the instance away, and the next call starts a fresh one.
 */
import { LineUpError } from "@lineup/protocol";
import type { ResolvedBackendLimits } from "./runner.js";

/** The size of one WebAssembly memory page. */
export const WASM_PAGE_BYTES = 65_536;

/** The pages of memory a back-end with these limits may have. */
export function wasmMemoryPages(limits: Pick<ResolvedBackendLimits, "memory_mb">): number {
  return Math.floor((limits.memory_mb * 1024 * 1024) / WASM_PAGE_BYTES);
}

/** What the host makes for a module that passed the check: its memory's initial and maximum pages. */
export interface WasmModulePlan {
  readonly initial_pages: number;
  readonly maximum_pages: number;
}

/** One import or export of a compiled module, as `WebAssembly.Module.imports` / `.exports` list it. */
export interface WasmModuleEntry {
  readonly module?: string;
  readonly name: string;
  readonly kind: string;
}

/**
 * The check itself, self-contained (it refers to nothing outside its body, so its source text runs inside a worker
 * too): the module's imports and exports against the ABI, and its memory import's limits, read from its bytes (the
 * JS API does not show them). Returns the plan, or why the module is refused. `bytes` must be a module that compiled.
 */
export function planWasmModule(bytes: Uint8Array, imports: readonly WasmModuleEntry[], exports: readonly WasmModuleEntry[], limitPages: number): WasmModulePlan | string {
  const allowed: Record<string, string> = { "env.memory": "memory", "env.abort": "function", "env.seed": "function", "env.trace": "function", "lineup.log": "function" };
  for (const entry of imports) {
    const key = `${entry.module ?? ""}.${entry.name}`;
    const kind = Object.prototype.hasOwnProperty.call(allowed, key) ? allowed[key] : undefined;
    if (kind === undefined) return `the module imports ${key}, which wasm back-ends are not given (they may import only env.memory, env.abort, env.seed, env.trace and lineup.log)`;
    if (kind !== entry.kind) return `the module imports ${key} as a ${entry.kind}; the host gives it as a ${kind}`;
  }
  if (!imports.some((entry) => entry.module === "env" && entry.name === "memory")) return "the module must import its memory as env.memory, so the host can cap it (AssemblyScript: --importMemory)";
  for (const name of ["lineup_alloc", "lineup_call"]) {
    if (!exports.some((entry) => entry.name === name && entry.kind === "function")) return `the module does not export the function ${name}`;
  }
  if (exports.some((entry) => entry.name === "lineup_free" && entry.kind !== "function")) return "the module exports lineup_free, but not as a function";
  let at = 8;
  const leb = (): number => {
    let value = 0;
    let scale = 1;
    for (;;) {
      if (at >= bytes.length) throw new RangeError("truncated");
      const byte = bytes[at++]!;
      value += (byte & 0x7f) * scale;
      if ((byte & 0x80) === 0) return value;
      scale *= 128;
    }
  };
  const name = (): string => {
    const length = leb();
    const text = new TextDecoder().decode(bytes.subarray(at, at + length));
    at += length;
    return text;
  };
  const limits = (): { flags: number; min: number; max: number | undefined } => {
    const flags = bytes[at++]!;
    const min = leb();
    return { flags, min, max: (flags & 1) === 1 ? leb() : undefined };
  };
  let memory: { flags: number; min: number; max: number | undefined } | undefined;
  try {
    while (at < bytes.length) {
      const id = bytes[at++]!;
      const size = leb();
      const end = at + size;
      if (id === 2) {
        const count = leb();
        for (let i = 0; i < count; i++) {
          const moduleName = name();
          const fieldName = name();
          const kind = bytes[at++]!;
          if (kind === 0) leb();
          else if (kind === 1) {
            at++;
            limits();
          } else if (kind === 2) {
            const found = limits();
            if (moduleName === "env" && fieldName === "memory") memory = found;
          } else if (kind === 3) at += 2;
          else if (kind === 4) {
            at++;
            leb();
          }
        }
      } else if (id === 5 && leb() > 0) return "the module defines a memory of its own besides env.memory, which the host could not cap";
      at = end;
    }
  } catch {
    return "the module's binary could not be read";
  }
  if (memory === undefined) return "the module's memory import could not be read";
  if ((memory.flags & 2) !== 0) return "the module's memory is shared; a wasm back-end runs single-threaded, in memory of its own";
  if ((memory.flags & 4) !== 0) return "the module's memory is 64-bit; wasm back-ends have 32-bit memory";
  const mib = (pages: number): string => `${Math.round((pages * 65_536) / 104_857.6) / 10} MiB`;
  if (memory.min > limitPages) return `the module asks for ${memory.min} pages (${mib(memory.min)}) of memory at the start; this back-end may have ${limitPages} (${mib(limitPages)})`;
  return { initial_pages: Math.max(memory.min, 0), maximum_pages: Math.min(limitPages, memory.max ?? limitPages) };
}

/**
 * Checks a compiled module against the ABI and this back-end's limits — the same check the worker makes before it
 * instantiates: the plan for its memory, or `LineUpError("handler_failed", …, { data: { reason: "start_failed" } })`
 * saying what it asks for that a wasm back-end is not given. `bytes` are the module's own bytes (the limits of its
 * memory import are read from them).
 */
export function checkWasmModule(module: WebAssembly.Module, limits: Pick<ResolvedBackendLimits, "memory_mb">, bytes: Uint8Array): WasmModulePlan {
  const plan = planWasmModule(bytes, WebAssembly.Module.imports(module), WebAssembly.Module.exports(module), wasmMemoryPages(limits));
  if (typeof plan === "string") throw new LineUpError("handler_failed", plan, { data: { reason: "start_failed" } });
  return plan;
}

/** What a worker answers for one call. */
export type WasmWorkerReply =
  | { readonly id: number; readonly ok: true; readonly json: string }
  | { readonly id: number; readonly ok: false; readonly code: string; readonly reason: string; readonly message: string };

/** What the host sends a worker: the module first, then calls. */
export type WasmWorkerRequest =
  | { readonly kind: "load"; readonly id: number; readonly module: Uint8Array; readonly memory_pages: number }
  | { readonly kind: "call"; readonly id: number; readonly method: string; readonly params: string };

/**
 * The worker's side, self-contained (no imports, no closures over this module; `plan` is `planWasmModule`, passed in
 * so it travels as text too): `post` answers, the returned function takes each request. Written as a function so its
 * source text can start a worker on either host (`wasmWorkerScript`).
 */
export function wasmWorkerMain(post: (reply: WasmWorkerReply) => void, log: (text: string) => void, plan: typeof planWasmModule): (request: WasmWorkerRequest) => void {
  const MAX_ANSWER = 1024 * 1024;
  const MAX_LINES = 64;
  /** A module that broke the ABI (an answer or room outside its memory), not a trap. */
  class Violation extends Error {}
  let module: WebAssembly.Module | undefined;
  let shape: WasmModulePlan = { initial_pages: 1, maximum_pages: 1 };
  let instance: { exports: Record<string, unknown>; memory: WebAssembly.Memory } | undefined;
  let lastAbort = "";
  let lines = 0;
  const fail = (id: number, code: string, reason: string, message: string): void => post({ id, ok: false, code, reason, message });
  const line = (text: string): void => {
    lines += 1;
    if (lines <= MAX_LINES) log(text.slice(0, 4096));
    else if (lines === MAX_LINES + 1) log(`more than ${MAX_LINES} lines in one call: the rest of this call's are dropped`);
  };
  const text = (memory: WebAssembly.Memory, ptr: number, len: number): string => {
    if (ptr < 0 || len < 0 || ptr + len > memory.buffer.byteLength) return "";
    return new TextDecoder().decode(new Uint8Array(memory.buffer, ptr, len));
  };
  /** AssemblyScript's strings: a u32 byte length just before, UTF-16 code units. */
  const ascString = (memory: WebAssembly.Memory, ptr: number): string => {
    if (ptr < 4 || ptr > memory.buffer.byteLength) return "";
    const len = new DataView(memory.buffer).getUint32(ptr - 4, true);
    if (ptr + len > memory.buffer.byteLength || len > 4096) return "";
    return String.fromCharCode(...new Uint16Array(memory.buffer.slice(ptr, ptr + (len & ~1))));
  };
  const instantiate = (): { exports: Record<string, unknown>; memory: WebAssembly.Memory } => {
    const memory = new WebAssembly.Memory({ initial: shape.initial_pages, maximum: shape.maximum_pages });
    const imports = {
      env: {
        memory,
        abort: (msg: number, file: number, row: number, col: number) => {
          lastAbort = `${ascString(memory, msg) || "abort"} at ${ascString(memory, file) || "?"}:${row}:${col}`;
          throw new Error(lastAbort);
        },
        trace: (msg: number, n: number, ...args: number[]) => line(`trace: ${ascString(memory, msg)} ${args.slice(0, n).join(", ")}`.trim()),
        seed: () => 42,
      },
      lineup: { log: (ptr: number, len: number) => line(text(memory, ptr, Math.min(len, 4096))) },
    };
    const made = new WebAssembly.Instance(module!, imports);
    return { exports: made.exports as Record<string, unknown>, memory };
  };
  return (request) => {
    lastAbort = "";
    lines = 0;
    if (request.kind === "load") {
      try {
        const candidate = new WebAssembly.Module(request.module as Uint8Array<ArrayBuffer>);
        const planned = plan(request.module, WebAssembly.Module.imports(candidate), WebAssembly.Module.exports(candidate), request.memory_pages);
        if (typeof planned === "string") {
          fail(request.id, "handler_failed", "start_failed", planned);
          return;
        }
        module = candidate;
        shape = planned;
        instance = instantiate();
        post({ id: request.id, ok: true, json: "null" });
      } catch (error) {
        module = undefined;
        instance = undefined;
        fail(request.id, "handler_failed", "start_failed", `the module cannot be started: ${lastAbort || (error instanceof Error ? error.message : String(error))}`);
      }
      return;
    }
    try {
      instance ??= instantiate();
      const { exports, memory } = instance;
      const alloc = exports["lineup_alloc"] as (len: number) => number;
      const call = exports["lineup_call"] as (mp: number, ml: number, pp: number, pl: number) => number;
      const put = (value: string): [number, number] => {
        const bytes = new TextEncoder().encode(value);
        const ptr = alloc(bytes.length);
        if (ptr <= 0 || ptr + bytes.length > memory.buffer.byteLength) throw new Violation(`lineup_alloc(${bytes.length}) answered ${ptr}, which is no room in its memory`);
        new Uint8Array(memory.buffer, ptr, bytes.length).set(bytes);
        return [ptr, bytes.length];
      };
      const [mp, ml] = put(request.method);
      const [pp, pl] = put(request.params);
      const at = call(mp, ml, pp, pl);
      if (at <= 0 || at + 4 > memory.buffer.byteLength) throw new Violation(`lineup_call answered pointer ${at}, outside its memory`);
      const len = new DataView(memory.buffer).getUint32(at, true);
      if (at + 4 + len > memory.buffer.byteLength) throw new Violation(`the module answered ${len} bytes at ${at}: past the end of its memory`);
      const free = exports["lineup_free"] as ((ptr: number, len: number) => void) | undefined;
      if (len > MAX_ANSWER) {
        free?.(at, len + 4);
        fail(request.id, "invalid_result", "too_large", `the module answered ${len} bytes; an answer is at most ${MAX_ANSWER}`);
        return;
      }
      const answer = text(memory, at + 4, len);
      free?.(at, len + 4);
      free?.(mp, ml);
      free?.(pp, pl);
      post({ id: request.id, ok: true, json: answer });
    } catch (error) {
      // A trap, an abort or a failed grow leaves the instance in no known state: the next call starts afresh. A failed
      // memory.grow is not seen from outside (the module gets -1, then traps or aborts), so a module that failed with
      // its memory grown past three quarters of its maximum is taken to have run out of it.
      const memory = instance?.memory;
      instance = undefined;
      const message = error instanceof Error ? error.message : String(error);
      if (error instanceof Violation) {
        fail(request.id, "invalid_result", "protocol_violation", message);
        return;
      }
      const full = memory !== undefined && memory.buffer.byteLength > shape.maximum_pages * 65_536 * 0.75;
      if (full) fail(request.id, "handler_failed", "memory_limit", `the module ran out of its ${Math.round((shape.maximum_pages * 65_536) / 1024)} KiB of memory (${lastAbort || message})`);
      else if (lastAbort !== "") fail(request.id, "handler_failed", "trap", `the module aborted: ${lastAbort}`);
      else fail(request.id, "handler_failed", "trap", `the module trapped: ${message}`);
    }
  };
}

/**
 * The text a worker of either host is started from: the host's `prelude`, which must define `post(message)` (to the
 * host) and `listen(handle)` (each message's data from the host, to `handle`), then the worker side and its check.
 */
export function wasmWorkerScript(prelude: string): string {
  // A transpiler that names functions (`__name(fn, "…")`, esbuild's keepNames) gets a stand-in.
  return `"use strict";
const __name = (fn) => fn;
${prelude}
listen((${wasmWorkerMain.toString()})(post, (text) => post({ log: text }), (${planWasmModule.toString()})));
`;
}
