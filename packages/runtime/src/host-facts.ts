/**
 * The host facts the Runtime's transitions read (`HostFacts`): the features, back-end protocols and
 * capabilities this host offers, and the app and inventory policy in force. The host's own policy is narrowed
 * by the tenant's settings from the last `initialize`. The facts object is replaced, never mutated, when
 * the host's capabilities, the policy or the tenant change at run time, so caches keyed on it see the change.
 */
import { CAPABILITIES, type BackendProtocol, type CapabilityName, type ExecutionMode, type TenantSettings } from "@lineup/protocol";
import type { AppPolicy } from "./app-lifecycle/manager/pipeline.js";
import type { CapabilityPolicy } from "./capabilities/gateway.js";
import type { HostProvider } from "./capabilities/host-provider.js";
import type { HostFacts } from "./coordination/handlers/env.js";
import type { InventoryPolicy } from "./tools/inventory.js";

export interface HostFactsOptions {
  readonly host: HostProvider;
  readonly features: readonly string[];
  readonly backendProtocols: readonly BackendProtocol[];
  readonly appPolicy: AppPolicy | undefined;
  readonly capabilityPolicy: CapabilityPolicy | undefined;
  readonly inventoryPolicy: InventoryPolicy | undefined;
}

export interface HostFactsCell {
  /** The current facts (a new object after each change). */
  readonly facts: HostFacts;
  /** The host's app policy, narrowed by the tenant's. */
  appPolicy(): AppPolicy;
  /** The host's capability policy, narrowed by the tenant's. */
  capabilityPolicy(): CapabilityPolicy;
  /** The tenant's settings from the last `initialize` (undefined: none). */
  setTenant(tenant: TenantSettings | undefined): void;
  /**
   * Reads again what the host supports and what the system denies it: the capabilities gained and lost and those
   * denied now, or undefined when neither changed.
   */
  refreshCapabilities(): { readonly gained: readonly string[]; readonly lost: readonly string[]; readonly denied: readonly string[] } | undefined;
  setInventoryPolicy(policy: InventoryPolicy): void;
}

export function createHostFacts(options: HostFactsOptions): HostFactsCell {
  let tenant: TenantSettings | undefined;
  const appPolicy = (): AppPolicy => withTenantAppPolicy(options.appPolicy ?? {}, tenant);
  const capabilityPolicy = (): CapabilityPolicy => withTenantCapabilityPolicy(options.capabilityPolicy ?? {}, tenant);
  const supported = (): CapabilityName[] => (Object.keys(CAPABILITIES) as CapabilityName[]).filter((c) => options.host.supports(c));
  /** Of those, what the system (the browser, the OS) denies this host now: not offered in the inventory. */
  const systemDenied = (capabilities: readonly CapabilityName[]): CapabilityName[] => capabilities.filter((c) => options.host.systemPermission(c) === "denied");
  let facts: HostFacts = {
    features: options.features,
    backend_protocols: options.backendProtocols,
    capabilities: supported(),
    systemDenied: systemDenied(supported()),
    displayModes: options.host.displayModes ?? [],
    appPolicy: appPolicy(),
    inventoryPolicy: options.inventoryPolicy ?? {},
  };
  return {
    get facts() {
      return facts;
    },
    appPolicy,
    capabilityPolicy,
    setTenant(settings) {
      tenant = settings;
      facts = { ...facts, appPolicy: appPolicy() };
    },
    refreshCapabilities() {
      const capabilities = supported();
      const denied = systemDenied(capabilities);
      if (capabilities.join() === facts.capabilities.join() && denied.join() === (facts.systemDenied ?? []).join()) return undefined;
      const before = new Set(facts.capabilities);
      const now = new Set<string>(capabilities);
      facts = { ...facts, capabilities, systemDenied: denied };
      return { gained: capabilities.filter((c) => !before.has(c)), lost: [...before].filter((c) => !now.has(c)), denied };
    },
    setInventoryPolicy(policy) {
      facts = { ...facts, inventoryPolicy: policy };
    },
  };
}

const union = (own: readonly string[] | undefined, more: readonly string[] | undefined): readonly string[] | undefined =>
  more === undefined ? own : own === undefined ? more : [...new Set([...own, ...more])];

/** The host's app policy narrowed by a tenant: only its allowlisted apps, and its blocks added. */
export function withTenantAppPolicy(own: AppPolicy, tenant: TenantSettings | undefined): AppPolicy {
  if (tenant === undefined) return own;
  const allowlist = tenant.app_allowlist;
  const allowed = allowlist === undefined ? own.allowed_apps : own.allowed_apps === undefined ? allowlist : own.allowed_apps.filter((a) => allowlist.includes(a));
  const capabilities = union(own.blocked_capabilities, tenant.policy.blocked_capabilities);
  const modes = union(own.blocked_execution_modes, tenant.policy.blocked_execution_modes);
  return {
    ...own,
    ...(allowed === undefined ? {} : { allowed_apps: allowed }),
    ...(capabilities === undefined ? {} : { blocked_capabilities: capabilities }),
    ...(modes === undefined ? {} : { blocked_execution_modes: modes as readonly ExecutionMode[] }),
  };
}

/** The host's capability policy with a tenant's denials and confirmations added. */
export function withTenantCapabilityPolicy(own: CapabilityPolicy, tenant: TenantSettings | undefined): CapabilityPolicy {
  if (tenant === undefined) return own;
  const denied = union(own.denied_capabilities, tenant.policy.denied_capabilities);
  const confirm = union(own.require_confirmation, tenant.policy.require_confirmation);
  return { ...own, ...(denied === undefined ? {} : { denied_capabilities: denied }), ...(confirm === undefined ? {} : { require_confirmation: confirm }) };
}
