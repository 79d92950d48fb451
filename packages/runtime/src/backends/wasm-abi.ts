/**
 * The ABI between the host and a `wasm` back-end (docs/manifest.md §8b), and the one piece of code that speaks it:
 * `wasmWorkerMain`, which runs inside the worker (a Node worker thread, or a browser Worker) and so imports nothing
 * — its source is handed to the worker as text.
 *
 * - The module **imports** its memory as `env.memory`; the host makes it with `maximum` = the back-end's
 *   `memory_mb` (in 64 KiB pages), so a module cannot grow past its limit. A module that asks for more than that at
 *   the start is refused.
 * - Its other imports may only be `env.abort(msg, file, line, col)` (the call fails `handler_failed`, reason `trap`),
 *   `env.trace` and `env.seed` (a constant: wasm back-ends are deterministic) and `lineup.log(ptr, len)` (UTF-8 text
 *   to the host's diagnostics). Any other import — files, clocks, sockets, WASI — refuses the module.
 * - It **exports** `lineup_alloc(len) -> ptr` (room for the host's input), optionally `lineup_free(ptr, len)`, and
 *   `lineup_call(method_ptr, method_len, params_ptr, params_len) -> ptr`, where `ptr` points to a little-endian u32
 *   length followed by that many bytes of UTF-8 JSON: `{"result": …}` or `{"error": {"code", "message"}}`.
 *
 * State inside the module lives as long as its instance: a failed call (a trap, a memory limit, a wall-time kill)
 * throws the instance away, and the next call starts a fresh one.
 */

/** What a worker answers for one call. */
export type WasmWorkerReply =
  | { readonly id: number; readonly ok: true; readonly json: string }
  | { readonly id: number; readonly ok: false; readonly code: string; readonly reason: string; readonly message: string };

/** What the host sends a worker: the module first, then calls. */
export type WasmWorkerRequest =
  | { readonly kind: "load"; readonly id: number; readonly module: Uint8Array; readonly memory_pages: number }
  | { readonly kind: "call"; readonly id: number; readonly method: string; readonly params: string };

/**
 * The worker's side, self-contained (no imports, no closures over this module): `post` answers, the returned
 * function takes each request. Written as a function so its source text can start a worker on either host.
 */
export function wasmWorkerMain(post: (reply: WasmWorkerReply) => void, log: (text: string) => void): (request: WasmWorkerRequest) => void {
  const ALLOWED: Record<string, readonly string[]> = { env: ["memory", "abort", "trace", "seed"], lineup: ["log"] };
  const MAX_ANSWER = 1024 * 1024;
  let module: WebAssembly.Module | undefined;
  let pages = 0;
  let instance: { exports: Record<string, unknown>; memory: WebAssembly.Memory } | undefined;
  let lastAbort = "";
  const fail = (id: number, code: string, reason: string, message: string): void => post({ id, ok: false, code, reason, message });
  const text = (memory: WebAssembly.Memory, ptr: number, len: number): string => {
    if (ptr < 0 || len < 0 || ptr + len > memory.buffer.byteLength) return "";
    return new TextDecoder().decode(new Uint8Array(memory.buffer, ptr, len));
  };
  /** AssemblyScript's strings: a u32 byte length just before, UTF-16 code units. */
  const ascString = (memory: WebAssembly.Memory, ptr: number): string => {
    if (ptr <= 4 || ptr > memory.buffer.byteLength) return "";
    const len = new DataView(memory.buffer).getUint32(ptr - 4, true);
    if (ptr + len > memory.buffer.byteLength || len > 4096) return "";
    return String.fromCharCode(...new Uint16Array(memory.buffer.slice(ptr, ptr + len)));
  };
  const instantiate = (): { exports: Record<string, unknown>; memory: WebAssembly.Memory } => {
    try {
      return instantiateWith(Math.min(pages, 16));
    } catch (error) {
      // A module that asks for more memory at the start than 1 MiB: give it all it may have (a LinkError otherwise).
      if (error instanceof WebAssembly.LinkError && pages > 16) return instantiateWith(pages);
      throw error;
    }
  };
  const instantiateWith = (initial: number): { exports: Record<string, unknown>; memory: WebAssembly.Memory } => {
    const memory = new WebAssembly.Memory({ initial: Math.max(1, initial), maximum: pages });
    const imports = {
      env: {
        memory,
        abort: (msg: number, file: number, line: number, col: number) => {
          lastAbort = `${ascString(memory, msg) || "abort"} at ${ascString(memory, file) || "?"}:${line}:${col}`;
          throw new Error(lastAbort);
        },
        trace: () => undefined,
        seed: () => 42,
      },
      lineup: { log: (ptr: number, len: number) => log(text(memory, ptr, Math.min(len, 4096))) },
    };
    const made = new WebAssembly.Instance(module!, imports);
    return { exports: made.exports as Record<string, unknown>, memory };
  };
  return (request) => {
    if (request.kind === "load") {
      try {
        const candidate = new WebAssembly.Module(request.module as Uint8Array<ArrayBuffer>);
        for (const imp of WebAssembly.Module.imports(candidate)) {
          if (!(ALLOWED[imp.module] ?? []).includes(imp.name)) {
            fail(request.id, "handler_failed", "start_failed", `the module imports ${imp.module}.${imp.name}, which wasm back-ends are not given`);
            return;
          }
        }
        const imported = WebAssembly.Module.imports(candidate).some((i) => i.module === "env" && i.name === "memory" && i.kind === "memory");
        const exported = new Set(WebAssembly.Module.exports(candidate).map((e) => e.name));
        if (!imported) {
          fail(request.id, "handler_failed", "start_failed", "the module must import its memory as env.memory (so the host can cap it)");
          return;
        }
        for (const name of ["lineup_alloc", "lineup_call"]) {
          if (!exported.has(name)) {
            fail(request.id, "handler_failed", "start_failed", `the module does not export ${name}`);
            return;
          }
        }
        module = candidate;
        pages = request.memory_pages;
        instance = instantiate();
        post({ id: request.id, ok: true, json: "null" });
      } catch (error) {
        fail(request.id, "handler_failed", "start_failed", `the module cannot be started: ${error instanceof Error ? error.message : String(error)}`);
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
        if (ptr <= 0 || ptr + bytes.length > memory.buffer.byteLength) throw new RangeError("the module gave no room for the input");
        new Uint8Array(memory.buffer, ptr, bytes.length).set(bytes);
        return [ptr, bytes.length];
      };
      lastAbort = "";
      const [mp, ml] = put(request.method);
      const [pp, pl] = put(request.params);
      const at = call(mp, ml, pp, pl);
      if (at <= 0 || at + 4 > memory.buffer.byteLength) throw new TypeError(`lineup_call answered pointer ${at}, outside its memory`);
      const len = new DataView(memory.buffer).getUint32(at, true);
      if (len > MAX_ANSWER || at + 4 + len > memory.buffer.byteLength) {
        instance = undefined;
        fail(request.id, "invalid_result", "protocol_violation", `the module answered ${len} bytes at ${at}: past its memory or the 1 MiB limit`);
        return;
      }
      const free = exports["lineup_free"] as ((ptr: number, len: number) => void) | undefined;
      const answer = text(memory, at + 4, len);
      free?.(at, len + 4);
      free?.(mp, ml);
      free?.(pp, pl);
      post({ id: request.id, ok: true, json: answer });
    } catch (error) {
      // A trap, an abort or a failed grow leaves the instance in no known state: the next call starts afresh.
      // A module that trapped with its memory grown near the limit ran out of it: a runtime traps when a grow fails,
      // and a grow is not observable from outside, so "near" is more than three quarters of it.
      const full = instance !== undefined && instance.memory.buffer.byteLength > pages * 65_536 * 0.75;
      instance = undefined;
      const message = error instanceof Error ? error.message : String(error);
      const memoryLimit = full || error instanceof RangeError || /memory/i.test(message);
      if (error instanceof TypeError && /outside its memory/.test(message)) fail(request.id, "invalid_result", "protocol_violation", message);
      else if (lastAbort !== "" && !memoryLimit) fail(request.id, "handler_failed", "trap", `the module aborted: ${lastAbort}`);
      else fail(request.id, "handler_failed", memoryLimit ? "memory_limit" : "trap", `the module failed: ${lastAbort || message}`);
    }
  };
}
