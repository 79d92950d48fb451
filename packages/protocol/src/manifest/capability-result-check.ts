/**
 * The check of a capability result that crossed a boundary (a host provider's answer), apart from the
 * manifest validator: a running Runtime checks every answer with it, while a whole manifest is checked only
 * where an app is installed, updated or packed. Imports no schema builder: the validator is generated
 * (`npm run gen`, src/generated/app-records.ts).
 */
import type { Result } from "../errors.js";
// The one validator by name, not the contract's table: a bundle then carries only the validators it uses.
import { validate_capability_result_v1 as validateCapabilityResultShape } from "../generated/app-records.js";
import { checkWith } from "../validation.js";
import type { CapabilityResult } from "./capabilities.js";

/**
 * Checks a capability result that crossed a boundary (a host provider's answer). A malformed
 * answer is refused with `failed`: to the app it is the host failing, and no detail leaks.
 */
export function checkCapabilityResult(value: unknown): Result<CapabilityResult> {
  return checkWith<CapabilityResult>(validateCapabilityResultShape, value, "failed");
}
