/** The generated validators of the legacy shapes, looked up once by schema `$id`. */
import type { TSchema } from "@sinclair/typebox";
import { validators } from "../generated/legacy.js";
import type { CompiledValidator } from "../validation.js";
import { LEGACY_PAYLOAD_SCHEMAS, LegacyFrameSchema, type LegacyType } from "./schemas.js";

function validatorFor(schema: TSchema): CompiledValidator {
  const id = schema.$id;
  const v = id === undefined ? undefined : validators[id];
  // A missing validator is a build mistake, found at module load, never at decode time.
  if (v === undefined) throw new Error(`no generated validator for ${String(id)}: run npm run gen`);
  return v;
}

export const validateLegacyFrame: CompiledValidator = validatorFor(LegacyFrameSchema);

export const legacyPayloadValidators: Readonly<Record<LegacyType, CompiledValidator>> = Object.fromEntries(
  Object.entries(LEGACY_PAYLOAD_SCHEMAS).map(([type, schema]) => [type, validatorFor(schema)]),
) as Record<LegacyType, CompiledValidator>;
