/**
 * Surface Bridge ingress on the host: `decodeBridgeMessage`'s checks of what an app sends (direction
 * `to_host`), with only the validators that takes: the frames, the params of every app → host
 * request and the app's answers to the host's requests. Every body an app sends is checked; the
 * validators of the bodies the host writes (its results and events) stay out of the host's bundle.
 */
import { fail, type Result } from "../errors.js";
import { eventsByDirection, frameValidators, methodsByDirection } from "../generated/surface-bridge-app.js";
import { validators } from "../generated/surface-bridge-host.js";
import { schemaId } from "../schema-id.js";
import type { CompiledValidator } from "../validation.js";
import { checkBridgeMessage, eventsOf, type BridgeChecks, type BridgeMethodCheck } from "./check.js";
import type { BridgeExpectation, BridgeMessage } from "./decode.js";

function validator(table: Readonly<Record<string, CompiledValidator>>, name: string): CompiledValidator {
  const id = schemaId(`surface-bridge.${name}`);
  const v = table[id];
  // A missing validator is a build mistake, found at module load, never at decode time.
  if (v === undefined) throw new Error(`no generated validator for ${id}: run npm run gen`);
  return v;
}

const IN_HOST: BridgeChecks = {
  frames: frameValidators,
  methods: new Map<string, BridgeMethodCheck>([
    ...methodsByDirection.to_host.map((name) => [name, { direction: "to_host", params: validator(validators, `method.${name}.params`) }] as const),
    ...methodsByDirection.to_app.map((name) => [name, { direction: "to_app", result: validator(validators, `method.${name}.result`) }] as const),
  ]),
  events: eventsOf(eventsByDirection),
};

/**
 * Checks one message the host received on an app instance's port. Never throws. It reads direction
 * `to_host` only: an expectation of another direction accepts nothing.
 */
export function decodeBridgeMessageInHost(value: unknown, expect: BridgeExpectation): Result<BridgeMessage> {
  if (expect.direction !== "to_host") return fail("internal_error", "the host's decoder reads messages to the host only", "");
  return checkBridgeMessage(value, expect, IN_HOST);
}
