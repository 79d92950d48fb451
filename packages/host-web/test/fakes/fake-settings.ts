/**
 * An in-memory `RuntimeSettings` for the App Registry / Settings UI test only. It keeps real state:
 * trusted publishers are checked as the Runtime checks them (shape: `invalid_params`; a `key_id` that
 * is not the SHA-256 of the key: `bundle_untrusted_key`) and refused with a `LineUpError`; grants are remembered, and "ask" forgets one; storage usage
 * comes from whoever owns the apps (the fake app manager).
 */
import { base64ToBytes, LineUpError } from "@lineup/protocol";
import { keyIdOf } from "@lineup/runtime";
import type { CapabilityGrant, RuntimeSettings, TrustedPublisher, ViewGrant } from "../../src/core-apps/registry/manager-api.js";

export interface FakeSettings extends RuntimeSettings {
  /** Every mutating call, in order, as `method:argument` (what the test checks was or was not asked). */
  readonly calls: string[];
}

export interface FakeSettingsOptions {
  readonly now: () => number;
  readonly publishers?: readonly TrustedPublisher[];
  readonly grants?: readonly CapabilityGrant[];
  readonly usage: () => readonly { readonly app_scope: string; readonly bytes: number }[];
}

export function createFakeSettings(options: FakeSettingsOptions): FakeSettings {
  let publishers: readonly TrustedPublisher[] = [...(options.publishers ?? [])];
  let grants: readonly CapabilityGrant[] = [...(options.grants ?? [])];
  let language: string | undefined;
  let viewGrants: readonly ViewGrant[] = [];
  const listeners = new Set<() => void>();
  const calls: string[] = [];
  const changed = () => {
    for (const listener of [...listeners]) listener();
  };
  const at = () => new Date(options.now()).toISOString();

  return {
    calls,
    trustedPublishers: () => publishers,
    async addTrustedPublisher(entry) {
      calls.push(`addTrustedPublisher:${entry.key_id}`);
      const raw = typeof entry.public_key === "string" ? base64ToBytes(entry.public_key) : undefined;
      if (raw?.length !== 32) throw new LineUpError("invalid_params", "public_key must be base64 of a 32-byte Ed25519 key", { path: "/public_key" });
      if (!/^[0-9a-f]{64}$/.test(entry.key_id)) throw new LineUpError("invalid_params", "key_id must be 64 lowercase hex digits", { path: "/key_id" });
      if ((await keyIdOf(raw)) !== entry.key_id) throw new LineUpError("bundle_untrusted_key", "the key id is not the SHA-256 of the public key");
      const added: TrustedPublisher = { key_id: entry.key_id, public_key: entry.public_key, added_at: at(), ...(entry.label === undefined ? {} : { label: entry.label }) };
      publishers = [...publishers.filter((p) => p.key_id !== entry.key_id), added];
      changed();
    },
    async removeTrustedPublisher(keyId) {
      calls.push(`removeTrustedPublisher:${keyId}`);
      publishers = publishers.filter((p) => p.key_id !== keyId);
      changed();
    },
    grants: () => grants,
    async setGrant(appScope, capability, decision) {
      calls.push(`setGrant:${appScope}/${capability}=${decision}`);
      const others = grants.filter((g) => !(g.app_scope === appScope && g.capability === capability));
      grants = decision === "ask" ? others : [...others, { app_scope: appScope, capability, decision, decided_at: at() }];
      changed();
    },
    async setViewGrant(appScope, resourceUri, grant) {
      calls.push(`setViewGrant:${appScope}/${resourceUri}=${[...grant.connect_domains, ...grant.resource_domains].join(" ")}`);
      const others = viewGrants.filter((g) => !(g.app_scope === appScope && g.resource_uri === resourceUri));
      const none = grant.connect_domains.length === 0 && grant.resource_domains.length === 0;
      viewGrants = none ? others : [...others, { app_scope: appScope, resource_uri: resourceUri, connect_domains: [...grant.connect_domains], resource_domains: [...grant.resource_domains], decided_at: at() }];
    },
    async viewGrants() {
      return viewGrants;
    },
    async storageUsage() {
      return options.usage();
    },
    language: () => language,
    async setLanguage(next) {
      calls.push(`setLanguage:${next ?? "device"}`);
      language = next === undefined ? undefined : Intl.getCanonicalLocales(next)[0];
      changed();
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
