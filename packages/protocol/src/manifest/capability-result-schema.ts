/**
 * The wire schema of a capability result, apart from the vocabulary in capabilities.ts (which an
 * app's page uses without the schema builder).
 */
import { Type } from "@sinclair/typebox";
import { ERROR_CODES, type ErrorCode } from "../errors.js";
import { Closed, JsonValueSchema, StringEnum, schemaId } from "../schema-kit.js";
import { CAPABILITY_REFUSAL_STATUSES } from "./capabilities.js";

const ErrorCodeSchema = () => StringEnum(Object.keys(ERROR_CODES) as ErrorCode[]);

/**
 * The wire shape of a capability result. `status` is the coarse outcome an app branches on;
 * `code` is the precise error code from the error table (often equal to the status, but e.g.
 * `permission_denied` with `capability_not_declared`, or `policy_denied` with `rate_limited`).
 * The message is for people; it never carries paths, tokens or native error text.
 */
export const CapabilityResultSchema = /* @__PURE__ */ Type.Union(
  [
    /* @__PURE__ */ Closed({ status: /* @__PURE__ */ Type.Literal("completed"), value: /* @__PURE__ */ JsonValueSchema() }),
    /* @__PURE__ */ Closed({
      status: /* @__PURE__ */ StringEnum(CAPABILITY_REFUSAL_STATUSES),
      code: /* @__PURE__ */ ErrorCodeSchema(),
      message: /* @__PURE__ */ Type.String({ maxLength: 2_000 }),
    }),
  ],
  { $id: /* @__PURE__ */ schemaId("capability-result.v1"), title: "Capability result v1" },
);

