// The browser wasm runner in a real page: the test hands in a module (base64) and calls it; each outcome comes back
// as plain data. Runners are kept by name (the default one is ""). Bundled by esbuild for `backend-wasm.browser.test.ts`.
import { createBrowserWasmRunner } from "@lineup/runtime/browser";
import type { BackendDeclaration, JsonValue } from "@lineup/protocol";

type Outcome = { ok: true; value: JsonValue } | { ok: false; code: string; reason?: string; message: string };
const runners = new Map<string, ReturnType<typeof createBrowserWasmRunner>>();

const outcome = async (run: () => Promise<JsonValue>): Promise<Outcome> => {
  try {
    return { ok: true, value: await run() };
  } catch (error) {
    const e = error as { code?: string; message?: string; data?: { reason?: string } };
    return { ok: false, code: e.code ?? "?", message: e.message ?? String(error), ...(e.data?.reason === undefined ? {} : { reason: e.data.reason }) };
  }
};

(window as unknown as Record<string, unknown>)["wasmRunner"] = {
  load(moduleBase64: string, limits: BackendDeclaration["limits"], name = "", restart: BackendDeclaration["restart"] = { policy: "on-failure", backoff_ms: 20 }) {
    const bytes = Uint8Array.from(atob(moduleBase64), (c) => c.charCodeAt(0));
    const declaration = { id: "b", plane: "client-local", protocol: "wasm", entry: "b.wasm", methods: [{ name: "echo" }], limits, restart } as BackendDeclaration;
    runners.set(name, createBrowserWasmRunner({ app_scope: "journal", declaration, entry: bytes, hostCalls: async () => null }));
  },
  call(method: string, params: JsonValue, name = "", abortAfterMs?: number): Promise<Outcome> {
    const controller = new AbortController();
    if (abortAfterMs !== undefined) setTimeout(() => controller.abort(), abortAfterMs);
    return outcome(() => runners.get(name)!.call(method, params, { signal: controller.signal }));
  },
  /** Two calls at once past a limit of one: the second's outcome, then the first's. */
  async overload(name: string): Promise<Outcome[]> {
    const runner = runners.get(name)!;
    const first = outcome(() => runner.call("echo", 1));
    const second = await outcome(() => runner.call("echo", 2));
    return [second, await first];
  },
  async stop(name = ""): Promise<string> {
    await runners.get(name)!.stop();
    return runners.get(name)!.status();
  },
};
