/**
 * The wire schema of a capability result, apart from the vocabulary in capabilities.ts (which an
 * app's page uses without the schema builder).
 */
import { Type } from "@sinclair/typebox";
import { ERROR_CODES, type ErrorCode } from "../errors.js";
import { Closed, JsonValueSchema, StringEnum, schemaId, declared } from "../schema-kit.js";
import { CAPABILITY_REFUSAL_STATUSES } from "./capabilities.js";

const ErrorCodeSchema = () => StringEnum(Object.keys(ERROR_CODES) as ErrorCode[]);

/**
 * The wire shape of a capability result. `status` is the coarse outcome an app branches on;
 * `code` is the precise error code from the error table (often equal to the status, but e.g.
 * `permission_denied` with `capability_not_declared`, or `policy_denied` with `rate_limited`).
 * The message is for people; it never carries paths, tokens or native error text.
 */
export const CapabilityResultSchema = /* @__PURE__ */ declared(() => Type.Union(
  [
    Closed({ status: Type.Literal("completed"), value: JsonValueSchema() }),
    Closed({
      status: StringEnum(CAPABILITY_REFUSAL_STATUSES),
      code: ErrorCodeSchema(),
      message: Type.String({ maxLength: 2_000 }),
    }),
  ],
  { $id: schemaId("capability-result.v1"), title: "Capability result v1" },
));

