/** The generated validators of the legacy shapes, looked up once by schema `$id`. */
import { validators } from "../generated/legacy.js";
import type { CompiledValidator } from "../validation.js";
import { LEGACY_FRAME_SCHEMA_ID, LEGACY_TYPES, legacyPayloadSchemaId, type LegacyType } from "./terms.js";

function validatorFor(id: string): CompiledValidator {
  const v = validators[id];
  // A missing validator is a build mistake, found at module load, never at decode time.
  if (v === undefined) throw new Error(`no generated validator for ${id}: run npm run gen`);
  return v;
}

export const validateLegacyFrame: CompiledValidator = validatorFor(LEGACY_FRAME_SCHEMA_ID);

export const legacyPayloadValidators: Readonly<Record<LegacyType, CompiledValidator>> = Object.fromEntries(
  LEGACY_TYPES.map((type) => [type, validatorFor(legacyPayloadSchemaId(type))]),
) as Record<LegacyType, CompiledValidator>;
