// Deterministic fakes of the Runtime's ports, for tests of the Runtime and of everything built on it.
export { createFakeClock, type FakeClock } from "./fake-clock.js";
export { createSequentialIds } from "./sequential-ids.js";
export { createMemoryTransport, createPair, type MemoryTransport, type MemoryListener } from "./memory-transport.js";
export { FakeAppServer, type FakeServerOptions, type AppliedWrite } from "./fake-app-server.js";
