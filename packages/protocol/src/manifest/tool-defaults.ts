/**
 * The defaults of a Tool descriptor's optional fields, in one place.
 *
 * A manifest is stored and compared exactly as its author (or `defineAgentTools`) wrote it; the
 * Runtime, the inventory and the projection work on the resolved descriptor. Each default depends
 * only on fields of the same descriptor (and on whether the app is core or installed), so any
 * reader of a manifest resolves it the same way. docs/manifest.md carries the same table.
 */
import type { JsonObject } from "../json.js";
import { CAPABILITIES, isCapabilityName, maxRisk, type CapabilityName, type RiskLevel } from "./capabilities.js";
import type {
  ActivationRequirement,
  AppManifest,
  CallModel,
  Entrypoint,
  LaunchPolicy,
  ManifestKind,
  ToolDelivery,
  ToolDescriptor,
  ToolHandling,
} from "./schemas.js";

/** A Tool descriptor with every default applied. `entrypoint` stays optional: absent means the app's launch entrypoint. */
export interface ResolvedToolDescriptor {
  readonly method: string;
  readonly contract_version: string;
  readonly title: string;
  readonly description: string;
  readonly input_schema: JsonObject;
  readonly output_schema: JsonObject;
  readonly call_model: CallModel;
  readonly handling: ToolHandling;
  readonly delivery: ToolDelivery;
  readonly activation_requirement: ActivationRequirement;
  readonly launch_policy: LaunchPolicy;
  readonly entrypoint?: string;
  readonly requires_foreground: boolean;
  readonly restore_focus: boolean;
  readonly timeout_ms: number;
  readonly idempotent: boolean;
  readonly risk_level: RiskLevel;
  readonly capabilities: readonly CapabilityName[];
}

/** Default deadline of a call by call model: quick reads, state changes, waiting on a person, long work. */
export const DEFAULT_TIMEOUT_MS: Readonly<Record<CallModel, number>> = {
  query: 10_000,
  command: 30_000,
  interactive: 300_000,
  operation: 3_600_000,
};

/** The highest risk among capabilities, or `low` for none. Unknown names count as nothing (validation refuses them). */
export function capabilitiesRisk(names: readonly string[]): RiskLevel {
  let risk: RiskLevel = "low";
  for (const name of names) if (isCapabilityName(name)) risk = maxRisk(risk, CAPABILITIES[name].risk);
  return risk;
}

/** Who runs a call of the tool: the Runtime as an operation, or the app directly (the documented default). */
export function toolHandling(tool: Pick<ToolDescriptor, "handling" | "call_model">): ResolvedToolDescriptor["handling"] {
  return tool.handling ?? ((tool.call_model ?? "command") === "operation" ? "operation" : "direct");
}

/** Applies the documented defaults. Pure; assumes a schema-valid descriptor. */
export function resolveToolDescriptor(tool: ToolDescriptor, kind: ManifestKind = "installed"): ResolvedToolDescriptor {
  const callModel = tool.call_model ?? "command";
  const requiresForeground = tool.requires_foreground ?? false;
  const activation: ActivationRequirement =
    tool.activation_requirement ?? (tool.backend !== undefined ? "activation_not_required" : requiresForeground || callModel === "interactive" ? "foreground_required" : "app_ready");
  const capabilities = (tool.capabilities ?? []) as readonly CapabilityName[];
  const resolved: ResolvedToolDescriptor = {
    method: tool.method,
    contract_version: tool.contract_version,
    title: tool.title ?? tool.method,
    description: tool.description ?? "",
    input_schema: tool.input_schema,
    output_schema: tool.output_schema,
    call_model: callModel,
    handling: toolHandling(tool),
    delivery: tool.delivery ?? (kind === "core" ? "app_sdk" : "miniapp_sdk"),
    activation_requirement: activation,
    launch_policy: tool.launch_policy ?? (activation === "activation_not_required" ? "never" : "if_needed"),
    requires_foreground: requiresForeground,
    restore_focus: tool.restore_focus ?? callModel === "interactive",
    timeout_ms: tool.timeout_ms ?? DEFAULT_TIMEOUT_MS[callModel],
    idempotent: tool.idempotent ?? callModel === "query",
    risk_level: tool.risk_level ?? capabilitiesRisk(capabilities),
    capabilities,
  };
  return tool.entrypoint === undefined ? resolved : { ...resolved, entrypoint: tool.entrypoint };
}

/**
 * The entrypoint a call opens when it starts an instance: the tool's own `entrypoint`, else the
 * first `primary` entrypoint, else the first that is not `background`, else the first.
 */
export function launchEntrypoint(manifest: AppManifest, tool: ToolDescriptor): Entrypoint {
  const { entrypoints } = manifest;
  const named = tool.entrypoint === undefined ? undefined : entrypoints.find((e) => e.id === tool.entrypoint);
  return named ?? entrypoints.find((e) => e.kind === "primary") ?? entrypoints.find((e) => e.kind !== "background") ?? entrypoints[0]!;
}
