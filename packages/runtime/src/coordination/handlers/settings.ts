/**
 * Settings in the loop: trusted publisher keys, remembered capability decisions and the person's UI
 * language. The first two are read by decisions (bundle verification, the capability gateway), so they
 * change only through a commit, audited, like everything else the Runtime decides on; the language goes
 * the same way so that every host of this profile reads one choice.
 */
import { LineUpError, type JsonValue } from "@lineup/protocol";
import type { CapabilityGrant, TrustedPublisher } from "../../apps/app-manager-api.js";
import { toTimestamp } from "../../core/ports.js";
import { RUNTIME_COLLECTIONS as C } from "../../persistence/runtime-schema.js";
import { Step } from "../step.js";
import type { RuntimeInput, TransitionResult } from "../inputs.js";
import type { RuntimeState } from "../state.js";
import type { TransitionEnv } from "./env.js";

export function onSettings(state: RuntimeState, input: Extract<RuntimeInput, { kind: "settings" }>, env: TransitionEnv): TransitionResult {
  const step = new Step(state);
  const { change } = input;
  const at = toTimestamp(env.now());
  switch (change.type) {
    case "trust": {
      const entry: TrustedPublisher = { key_id: change.key_id, public_key: change.public_key, added_at: at, ...(change.label === undefined ? {} : { label: change.label.slice(0, 80) }) };
      const trusted = [...state.trusted_publishers.filter((k) => k.key_id !== change.key_id), entry];
      step.state = { ...state, trusted_publishers: trusted };
      step.writes.push({ op: "put", collection: C.settings, key: "trusted-publishers", value: trusted as unknown as JsonValue });
      step.audit.push({ type: "settings.publisher.trusted", subject: change.key_id, ...(change.label === undefined ? {} : { detail: change.label.slice(0, 80) }) });
      return step.result();
    }
    case "distrust": {
      if (!state.trusted_publishers.some((k) => k.key_id === change.key_id)) return step.result({ error: new LineUpError("not_found", `no trusted publisher ${change.key_id}`) });
      const trusted = state.trusted_publishers.filter((k) => k.key_id !== change.key_id);
      step.state = { ...state, trusted_publishers: trusted };
      step.writes.push({ op: "put", collection: C.settings, key: "trusted-publishers", value: trusted as unknown as JsonValue });
      step.audit.push({ type: "settings.publisher.removed", subject: change.key_id });
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
    case "language": {
      step.state = { ...state, language: change.language };
      step.writes.push(change.language === null ? { op: "delete", collection: C.settings, key: "language" } : { op: "put", collection: C.settings, key: "language", value: change.language });
      step.audit.push({ type: "settings.language.changed", subject: change.language ?? "device" });
      return step.result();
    }
  }
}
