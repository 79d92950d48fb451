/**
 * Surface Bridge ingress on an app's page: what `decodeBridgeMessage` checks, minus the bodies the
 * host writes. The page checks the JSON limits, protocol, version, nonce, frame and catalogue
 * direction of everything it receives (so nothing but its own host's port gets through), and the
 * params of the host's requests (`tool.invoke`, `surface.ping`), which it acts on. It does not check
 * the host's results and event data against their schemas: the host is the party that checks (it
 * decodes everything an app sends it in full), and those validators are most of the catalogue's
 * weight, which every app would otherwise parse before its first frame. Nor does it list the app's
 * own methods: a response names one, and the page's pending requests are the list it is matched
 * against (by id and method), which no catalogue name would make stricter.
 *
 * Imports no schema builder and no schema: the validators (schema data for `subsetValidator`) and
 * the catalogue's directions are generated (`npm run gen`, src/generated/surface-bridge-app.ts).
 */
import type { Result } from "../errors.js";
import { eventsByDirection, frameValidators, toAppParams } from "../generated/surface-bridge-app.js";
import { checkBridgeMessage, eventsOf, type BridgeChecks, type BridgeMethodCheck } from "./check.js";
import type { BridgeExpectation, BridgeMessage } from "./decode.js";

const IN_APP: BridgeChecks = {
  frames: frameValidators,
  methods: new Map<string, BridgeMethodCheck>(Object.entries(toAppParams).map(([name, params]) => [name, { direction: "to_app", params }])),
  unlisted: { direction: "to_host" },
  events: eventsOf(eventsByDirection),
};

/** Checks one message an app's page received from its host (direction `to_app`). Never throws. */
export function decodeBridgeMessageInApp(value: unknown, expect: BridgeExpectation & { readonly direction: "to_app" }): Result<BridgeMessage> {
  return checkBridgeMessage(value, expect, IN_APP);
}
