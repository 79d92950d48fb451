/**
 * The Node host: the Runtime headless on SQLite (`<dataDir>/runtime.db`, synchronous=FULL) and the `ws`
 * transport. The returned Runtime owns its store and closes it on `stop()`. SQLite runs on a worker
 * thread, so a commit's fsync does not block the loop: the loop computes the next turn meanwhile.
 * Apps' own storage is one SQLite file per app (`<dataDir>/app-storage/<app_scope>/data.db`).
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { createRuntime, type LineUpRuntime, type RuntimeOptions } from "../runtime.js";
import { RUNTIME_SCHEMA } from "../persistence/runtime-schema.js";
import { openSqliteStore, type SqliteRuntimeStore } from "./sqlite-store.js";
import { createWsTransport } from "./ws-transport.js";
import { createSqliteAppStorageHost } from "./app-storage-sqlite.js";
import { remoteHttpRunners } from "../backends/service.js";
import { createNodeWasmRunner } from "./wasm-backend.js";
import { createStdioRunner } from "./stdio-backend.js";
import { createMcpStdioRunner } from "./mcp-backend.js";
import { createMcpHttpRunner } from "../backends/mcp-http.js";

export interface NodeRuntimeOptions extends Partial<Omit<RuntimeOptions, "store" | "serverUrl" | "token">> {
  readonly serverUrl: string;
  readonly token: string;
  /** Created if missing. */
  readonly dataDir: string;
}

export interface NodeRuntime extends LineUpRuntime {
  readonly store: SqliteRuntimeStore;
}

export async function createNodeRuntime(options: NodeRuntimeOptions): Promise<NodeRuntime> {
  mkdirSync(options.dataDir, { recursive: true });
  const store = await openSqliteStore({ path: join(options.dataDir, "runtime.db"), schema: RUNTIME_SCHEMA, thread: "worker" });
  const runtime = createRuntime({
    // Each app's own storage: one SQLite file per app under <dataDir>/app-storage/<app_scope>/.
    appStorage: createSqliteAppStorageHost(join(options.dataDir, "app-storage")),
    // Back-ends: wasm in worker threads, stdio, local-http and mcp-stdio programs as supervised child processes (data under <dataDir>), remote-http, mcp-http.
    backends: { wasm: createNodeWasmRunner, "stdio-jsonrpc": (spec) => createStdioRunner({ ...spec, dataDir: options.dataDir }), "local-http": (spec) => createStdioRunner({ ...spec, dataDir: options.dataDir }), "mcp-stdio": (spec) => createMcpStdioRunner(spec, { dataDir: options.dataDir }), "mcp-http": createMcpHttpRunner, ...remoteHttpRunners },
    ...options,
    store,
    transport: options.transport ?? createWsTransport(), clientInfo: options.clientInfo ?? { name: "lineup-node-host", version: "0.1.0" } });
  return {
    ...runtime,
    store,
    async stop() {
      await runtime.stop();
      await store.close();
    },
  };
}
