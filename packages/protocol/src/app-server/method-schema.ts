/** How a method's params and result schemas are named and built, for `schemas.ts` and `catalog.ts`. */
import { Type } from "@sinclair/typebox";
import { Closed, schemaId, declared } from "../schema-kit.js";
import { BASE64_PATTERN, DEFAULT_SERVER_LIMITS } from "./records.js";

/** `app-server.<method with "/" as ".">.params`: a closed object. */
export const params = <T extends Parameters<typeof Closed>[0]>(method: string, properties: T, description: string) =>
  Closed(properties, { $id: schemaId(`app-server.${method.replace(/\//g, ".")}.params`), title: `${method} params`, description });
/** `app-server.<method with "/" as ".">.result`: a closed object. */
export const result = <T extends Parameters<typeof Closed>[0]>(method: string, properties: T) =>
  Closed(properties, { $id: schemaId(`app-server.${method.replace(/\//g, ".")}.result`), title: `${method} result` });

/** The largest base64 text of one chunk: ceil(max_chunk_bytes / 3) * 4 at the default limit. */
const MAX_BASE64_CHUNK = /* @__PURE__ */ declared(() => Math.ceil(DEFAULT_SERVER_LIMITS.max_chunk_bytes / 3) * 4);
/** One chunk of bytes (`artifact/put`, `catalog/read` …), standard padded base64. */
export const Base64 = () => Type.String({ maxLength: MAX_BASE64_CHUNK, pattern: BASE64_PATTERN, contentEncoding: "base64" });
