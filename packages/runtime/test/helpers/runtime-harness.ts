import { createMemoryStore, createMemoryStoreData, type MemoryStoreData } from "../../src/index.js";
import { createRuntime, RUNTIME_COLLECTIONS, RUNTIME_SCHEMA, type AgentAppMessage, type AppPort, type LineUpRuntime, type RuntimeOptions, type RuntimeStore } from "../../src/index.js";
import { createFakeClock, createSequentialIds, FakeAppServer, type FakeClock } from "../../src/testing/index.js";
import { slack } from "../../../../test/support/soak.js";

/** Waits (real macrotasks) until `predicate` holds; fails after `ms` (longer under the soak: `slack`). */
export async function until(predicate: () => boolean, ms = 3_000, what = "condition"): Promise<void> {
  const deadline = Date.now() + slack(ms);
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** Lets every queued microtask and a few macrotasks run. */
export async function settle(rounds = 20): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** One audit record as the store keeps it. */
export type Audit = { type: string; code?: string; conversation_id?: string; subject?: string; detail?: string };

/** The values of one collection on a memory "disk", in key order, read through a store of their own. */
export async function storedValues(data: MemoryStoreData, collection: string): Promise<unknown[]> {
  const store = await createMemoryStore(RUNTIME_SCHEMA, { data });
  try {
    return (await store.range(collection, {})).map((row) => row.value);
  } finally {
    await store.close();
  }
}

/** The audit records on a memory "disk". */
export async function auditOf(data: MemoryStoreData): Promise<Audit[]> {
  return (await storedValues(data, RUNTIME_COLLECTIONS.audit)) as Audit[];
}

export interface Device {
  readonly runtime: LineUpRuntime;
  readonly chat: AppPort;
  readonly received: AgentAppMessage[];
  readonly errors: unknown[];
  stop(): Promise<void>;
}

/** Starts a Runtime on `data` (a memory "disk") against `server`, with a chat subscriber recording deliveries. */
export async function startDevice(
  server: FakeAppServer,
  data: MemoryStoreData,
  options: { clock?: FakeClock; run?: string; subscribe?: boolean; include_pending?: boolean; extra?: Partial<RuntimeOptions>; beforeStart?: (runtime: LineUpRuntime) => void; wrapStore?: (store: RuntimeStore) => RuntimeStore | Promise<RuntimeStore> } = {},
): Promise<Device> {
  const opened = await createMemoryStore(RUNTIME_SCHEMA, { data });
  const store = options.wrapStore?.(opened) ?? opened;
  const errors: unknown[] = [];
  const runtime = createRuntime({
    store,
    transport: server.transport,
    serverUrl: "mem://server",
    token: server.deviceToken,
    clock: options.clock ?? createFakeClock(),
    ids: createSequentialIds({ run: options.run ?? "r0" }),
    diagnostics: (error, context) => errors.push({ error, context }),
    relistIntervalMs: 0,
    ...options.extra,
  });
  options.beforeStart?.(runtime);
  await runtime.start();
  const chat = runtime.appPort("chat");
  const received: AgentAppMessage[] = [];
  if (options.subscribe !== false) chat.subscribeMessages({ include_pending: options.include_pending ?? true }, (message) => void received.push(message));
  return {
    runtime,
    chat,
    received,
    errors,
    async stop() {
      await runtime.stop();
      await (await store).close();
    },
  };
}

export { createMemoryStoreData, FakeAppServer, createFakeClock };
