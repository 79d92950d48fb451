// The browser wasm runner in a real page: the test hands in a module (base64) and calls it; each outcome comes back
// as plain data. Bundled by esbuild for `backend-wasm.browser.test.ts`.
import { createBrowserWasmRunner } from "@lineup/runtime/browser";
import type { BackendDeclaration, JsonValue } from "@lineup/protocol";

type Outcome = { ok: true; value: JsonValue } | { ok: false; code: string; reason?: string };
let runner: ReturnType<typeof createBrowserWasmRunner> | undefined;

(window as unknown as Record<string, unknown>)["wasmRunner"] = {
  load(moduleBase64: string, limits: { memory_mb: number; call_timeout_ms: number }) {
    const bytes = Uint8Array.from(atob(moduleBase64), (c) => c.charCodeAt(0));
    const declaration = { id: "b", plane: "client-local", protocol: "wasm", entry: "b.wasm", methods: [{ name: "echo" }], limits } as BackendDeclaration;
    runner = createBrowserWasmRunner({ app_scope: "journal", declaration, entry: bytes, hostCalls: async () => null });
  },
  async call(method: string, params: JsonValue): Promise<Outcome> {
    try {
      return { ok: true, value: await runner!.call(method, params) };
    } catch (error) {
      const e = error as { code?: string; data?: { reason?: string } };
      return { ok: false, code: e.code ?? "?", ...(e.data?.reason === undefined ? {} : { reason: e.data.reason }) };
    }
  },
};
