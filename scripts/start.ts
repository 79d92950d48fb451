/**
 * `npm start`: runs the product on its embedded defaults. Today only the protocol contracts
 * exist; this says so and checks them, and grows as the AppServer, the Runtime and the web host land.
 */
import { ALL_SCHEMAS, decodeEnvelope } from "@lineup/protocol";

const probe = decodeEnvelope(
  JSON.stringify({
    v: 1,
    id: "start-probe",
    type: "lineup.runtime.notice",
    timestamp: new Date().toISOString(),
    sender: { kind: "runtime", id: "start" },
    target: { kind: "runtime", app_scope: "runtime" },
    scope: { app_scope: "runtime", conversation_id: "runtime:global" },
    payload: { level: "info", message: "LineUp protocol self-check" },
  }),
);
console.log("LineUp — what exists so far: the protocol contracts (@lineup/protocol).");
console.log(`  ${ALL_SCHEMAS.length} wire schemas; envelope self-check: ${probe.ok ? "ok" : probe.error.code}`);
console.log("The AppServer, the Runtime and the web host are not built yet, so there is nothing to serve.");
console.log("Run `npm test` for the test suite and `npm run bench` for the benchmarks.");
