/**
 * Every wire schema LineUp declares. The generator (scripts/generate.ts) compiles these into
 * standalone validators (src/generated/validators.ts) and writes them as JSON Schema files
 * (schemas/*.json) for peers in other languages. Add a contract's schemas here.
 */
import type { TSchema } from "@sinclair/typebox";
import { RuntimeEnvelopeSchema } from "./envelope/schemas.js";
import { ENVELOPE_PAYLOAD_SCHEMAS } from "./envelope/types.js";
import { MANIFEST_SCHEMAS } from "./manifest/schemas.js";
import { LEGACY_SCHEMAS } from "./legacy/schemas.js";
import { SURFACE_BRIDGE_SCHEMAS } from "./surface-bridge/catalogue.js";
import { APP_SERVER_SCHEMAS } from "./app-server/all-schemas.js";
import { AGENT_TASK_SCHEMAS } from "./agent-task.js";
import { HOST_CHANNEL_SCHEMAS } from "./host-channel.js";

export const ALL_SCHEMAS: readonly TSchema[] = [RuntimeEnvelopeSchema, ...ENVELOPE_PAYLOAD_SCHEMAS, ...MANIFEST_SCHEMAS, ...LEGACY_SCHEMAS, ...SURFACE_BRIDGE_SCHEMAS, ...APP_SERVER_SCHEMAS, ...AGENT_TASK_SCHEMAS, ...HOST_CHANNEL_SCHEMAS];
