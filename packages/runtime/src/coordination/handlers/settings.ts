/**
 * Settings in the loop: trusted publisher keys, remembered capability decisions and the person's UI
 * language. The first two are read by decisions (bundle verification, the capability gateway), so they
 * change only through a commit, audited, like everything else the Runtime decides on; the language goes
 * the same way so that every host of this profile reads one choice.
 */
import { LineUpError, type JsonValue } from "@lineup/protocol";
import type { CapabilityGrant, TrustedPublisher } from "../../app-lifecycle/app-manager-api.js";
import { toTimestamp } from "../../core/ports.js";
import { RUNTIME_COLLECTIONS as C } from "../../persistence/runtime-schema.js";
import { republishInventories } from "../inventories.js";
import { Step } from "../step.js";
import { readId, type ReadKey, type Reads, type RuntimeInput, type TransitionResult } from "../inputs.js";
import type { RuntimeState } from "../state.js";
import type { TransitionEnv } from "./env.js";

/** The settings row of the origins a person granted one MCP Apps view. */
export const viewGrantKey = (appScope: string, resourceUri: string): string => `view-grant/${appScope}/${resourceUri}`;

type SettingsInput = Extract<RuntimeInput, { kind: "settings" }>;

/** The meta row naming the shipped publisher keys this store has seen. */
const SHIPPED_PUBLISHERS: ReadKey = { collection: C.meta, key: "shipped-publishers" };

export function settingsReads(input: SettingsInput): ReadKey[] {
  return input.change.type === "shipped_publishers" ? [SHIPPED_PUBLISHERS] : [];
}

/** Trusts one publisher key (replacing an entry of the same id), audited. */
function trust(step: Step, key: { readonly key_id: string; readonly public_key: string; readonly label?: string }, at: string): void {
  const entry: TrustedPublisher = { key_id: key.key_id, public_key: key.public_key, added_at: at, ...(key.label === undefined ? {} : { label: key.label.slice(0, 80) }) };
  const trusted = [...step.state.trusted_publishers.filter((k) => k.key_id !== key.key_id), entry];
  step.state = { ...step.state, trusted_publishers: trusted };
  step.writes.push({ op: "put", collection: C.settings, key: "trusted-publishers", value: trusted as unknown as JsonValue });
  step.audit.push({ type: "settings.publisher.trusted", subject: key.key_id, ...(key.label === undefined ? {} : { detail: key.label.slice(0, 80) }) });
}

export function onSettings(state: RuntimeState, input: SettingsInput, reads: Reads, env: TransitionEnv): TransitionResult {
  const step = new Step(state);
  const { change } = input;
  const at = toTimestamp(env.now());
  switch (change.type) {
    case "trust": {
      trust(step, change, at);
      return step.result();
    }
    case "shipped_publishers": {
      const seeded = (reads.get(readId(SHIPPED_PUBLISHERS)) as string[] | undefined) ?? [];
      const fresh = change.keys.filter((key) => !seeded.includes(key.key_id));
      if (fresh.length === 0) return step.result();
      for (const key of fresh) if (!step.state.trusted_publishers.some((k) => k.key_id === key.key_id)) trust(step, key, at);
      step.writes.push({ op: "put", collection: C.meta, key: SHIPPED_PUBLISHERS.key, value: [...seeded, ...fresh.map((k) => k.key_id)] });
      return step.result();
    }
    case "distrust": {
      if (!state.trusted_publishers.some((k) => k.key_id === change.key_id)) return step.result({ error: new LineUpError("not_found", `no trusted publisher ${change.key_id}`) });
      const trusted = state.trusted_publishers.filter((k) => k.key_id !== change.key_id);
      step.state = { ...state, trusted_publishers: trusted };
      step.writes.push({ op: "put", collection: C.settings, key: "trusted-publishers", value: trusted as unknown as JsonValue });
      step.audit.push({ type: "settings.publisher.removed", subject: change.key_id });
      // The apps that key signed leave the inventory (spec 7.2: a publisher revoked).
      republishInventories(step, env);
      return step.result();
    }
    case "grant": {
      const rest = state.grants.filter((g) => !(g.app_scope === change.app_scope && g.capability === change.capability));
      const grants: CapabilityGrant[] = change.decision === "ask" ? rest : [...rest, { app_scope: change.app_scope, capability: change.capability, decision: change.decision, decided_at: at }];
      step.state = { ...state, grants };
      step.writes.push({ op: "put", collection: C.settings, key: "grants", value: grants as unknown as JsonValue });
      step.audit.push({ type: "settings.grant.changed", subject: change.app_scope, detail: `${change.capability}: ${change.decision}` });
      return step.result();
    }
    case "view_grant": {
      // Read by no decision of the loop: the host reads it with the view (`AppPort.readMcpView`).
      const key = viewGrantKey(change.app_scope, change.resource_uri);
      const none = change.connect_domains.length === 0 && change.resource_domains.length === 0;
      step.writes.push(none ? { op: "delete", collection: C.settings, key } : { op: "put", collection: C.settings, key, value: { connect_domains: [...change.connect_domains], resource_domains: [...change.resource_domains], decided_at: at } });
      step.audit.push({ type: "settings.view_grant.changed", subject: change.app_scope, detail: `${change.resource_uri}: ${none ? "none" : [...change.connect_domains, ...change.resource_domains].join(" ")}`.slice(0, 500) });
      return step.result();
    }
    case "language": {
      step.state = { ...state, language: change.language };
      step.writes.push(change.language === null ? { op: "delete", collection: C.settings, key: "language" } : { op: "put", collection: C.settings, key: "language", value: change.language });
      step.audit.push({ type: "settings.language.changed", subject: change.language ?? "device" });
      return step.result();
    }
  }
}
