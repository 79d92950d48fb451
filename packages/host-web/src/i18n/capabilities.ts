/** What a device capability does, in the UI language; the registry's own words for one the catalogue does not know. */
import { isCapabilityName } from "@lineup/protocol";
import { t } from "./index.js";

export function capabilityDescription(capability: string, fallback: string): string {
  return isCapabilityName(capability) ? t(`capability.${capability}`) : fallback;
}
