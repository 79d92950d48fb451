/**
 * Capability grants as the Settings app lists them: by app, then by capability, with the words
 * shown for each decision. "Ask next time" is not a stored decision; choosing it forgets one. Pure.
 */
import type { MessageKey } from "../../i18n/index.js";
import type { CapabilityGrant } from "../registry/manager-api.js";

export type GrantChoice = "granted" | "denied" | "ask";

export const GRANT_CHOICES: readonly { readonly value: GrantChoice; readonly label: MessageKey }[] = [
  { value: "granted", label: "grants.granted" },
  { value: "denied", label: "grants.denied" },
  { value: "ask", label: "grants.ask" },
];

export function isGrantChoice(value: string): value is GrantChoice {
  return GRANT_CHOICES.some((c) => c.value === value);
}

export function sortGrants(grants: readonly CapabilityGrant[]): CapabilityGrant[] {
  const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return [...grants].sort((a, b) => cmp(a.app_scope, b.app_scope) || cmp(a.capability, b.capability));
}

/** Storage rows, largest first, then by scope. */
export function sortUsage<T extends { readonly app_scope: string; readonly bytes: number }>(rows: readonly T[]): T[] {
  return [...rows].sort((a, b) => b.bytes - a.bytes || (a.app_scope < b.app_scope ? -1 : a.app_scope > b.app_scope ? 1 : 0));
}
