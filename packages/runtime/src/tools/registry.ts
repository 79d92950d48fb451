/**
 * The tool registry (spec 7.1): every tool of every installed app's active manifest, with its
 * defaults resolved and its input and output schemas turned into validators once. The registry is
 * derived state: the loop rebuilds it from the App Manager's records when they change.
 */
import {
  resolveToolDescriptor,
  type AppManifest,
  type ProtocolError,
  type ResolvedToolDescriptor,
  type ToolValueValidator,
} from "@lineup/protocol";
import { createToolSchemaValidator } from "./schema-engine.js";
import { activeManifest, type AppRegistryState } from "../app-lifecycle/manager/records.js";

/** What the registry and the inventory need to know about one app. */
export interface ToolSourceApp {
  readonly app_scope: string;
  readonly kind: "core" | "installed";
  readonly version: string;
  readonly enabled: boolean;
  readonly install_state: "installed" | "updating" | "failed";
  readonly manifest: AppManifest;
}

export interface RegisteredTool {
  readonly app_scope: string;
  readonly app_version: string;
  readonly descriptor: ResolvedToolDescriptor;
  readonly validateInput: ToolValueValidator;
  readonly validateOutput: ToolValueValidator;
}

export interface ToolRegistry {
  get(appScope: string, method: string): RegisteredTool | undefined;
  all(): readonly RegisteredTool[];
}

export interface ToolRegistryBuild {
  readonly registry: ToolRegistry;
  /** Tools left out because a schema could not be interpreted (validation should have caught it). */
  readonly problems: readonly { readonly app_scope: string; readonly method: string; readonly error: ProtocolError }[];
}

const key = (appScope: string, method: string) => `${appScope}\u0000${method}`;

/** Validators are pure functions of the schema; reuse them across rebuilds for the same manifest object. */
const validatorCache = new WeakMap<AppManifest, Map<string, { validateInput: ToolValueValidator; validateOutput: ToolValueValidator } | ProtocolError>>();

export function buildToolRegistry(apps: readonly ToolSourceApp[]): ToolRegistryBuild {
  const tools = new Map<string, RegisteredTool>();
  const problems: { app_scope: string; method: string; error: ProtocolError }[] = [];
  for (const app of apps) {
    let cache = validatorCache.get(app.manifest);
    if (cache === undefined) validatorCache.set(app.manifest, (cache = new Map()));
    for (const tool of app.manifest.tools ?? []) {
      const descriptor = resolveToolDescriptor(tool, app.kind);
      let validators = cache.get(tool.method);
      if (validators === undefined) {
        const input = createToolSchemaValidator(descriptor.input_schema, { code: "invalid_arguments" });
        const output = createToolSchemaValidator(descriptor.output_schema, { code: "invalid_result" });
        validators = !input.ok ? input.error : !output.ok ? output.error : { validateInput: input.value, validateOutput: output.value };
        cache.set(tool.method, validators);
      }
      if ("code" in validators) {
        problems.push({ app_scope: app.app_scope, method: tool.method, error: validators });
        continue;
      }
      tools.set(key(app.app_scope, tool.method), { app_scope: app.app_scope, app_version: app.version, descriptor, ...validators });
    }
  }
  const all = [...tools.values()];
  return { registry: { get: (appScope, method) => tools.get(key(appScope, method)), all: () => all }, problems };
}

/** The App Manager's records as tool sources: each app's active manifest. */
export function toolSourcesFromRegistry(state: AppRegistryState): ToolSourceApp[] {
  const sources: ToolSourceApp[] = [];
  for (const app of Object.values(state.apps)) {
    const manifest = activeManifest(app);
    if (manifest === undefined) continue;
    const r = app.record;
    sources.push({ app_scope: r.app_scope, kind: r.kind, version: r.installed_version, enabled: r.enabled, install_state: r.install_state, manifest });
  }
  return sources;
}
