/**
 * Every schema of the App Server protocol, for the validator generator. Importing this module
 * loads no validator, so `npm run gen` can run before the validators exist.
 */
import type { TSchema } from "@sinclair/typebox";
import { RECORD_SCHEMAS } from "./records.js";
import { SESSION_EVENT_SCHEMAS } from "./events.js";
import { METHOD_SCHEMAS } from "./schemas.js";
import { JSONRPC_SCHEMAS } from "./jsonrpc.js";
import { EvidencePackSchema } from "./evidence.js";
import { CATALOG_SCHEMAS } from "./catalog.js";

export const APP_SERVER_SCHEMAS: readonly TSchema[] = [...JSONRPC_SCHEMAS, ...RECORD_SCHEMAS, ...SESSION_EVENT_SCHEMAS, ...METHOD_SCHEMAS, ...CATALOG_SCHEMAS, EvidencePackSchema];
