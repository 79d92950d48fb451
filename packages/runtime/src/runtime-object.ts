/**
 * The public `LineUpRuntime` object over the Runtime's parts (`runtime-parts.ts`): `start()` restores the
 * state and sets the loop and the connection; `stop()` ends them in order; every other member reads a part.
 */
import { LineUpError, type CatalogRelease, type TenantSettings } from "@lineup/protocol";
import type { AppDirectory } from "./app-lifecycle/core-app-registry.js";
import type { HostIntentOutcome } from "./app-lifecycle/host-intents.js";
import { releaseArtifacts } from "./coordination/artifact-access.js";
import { verifyAuditChain } from "./coordination/audit.js";
import type { LifecycleCell } from "./coordination/lifecycle.js";
import { restoreState } from "./coordination/restore.js";
import type { RuntimeCatalog } from "./communication/catalog.js";
import { openConnection, openLoop, type AppParts, type CommitFollowers, type DeliveryParts, type RuntimeBasics, type RuntimeTimers, type StartedParts } from "./runtime-parts.js";
import type { AppPort, LineUpRuntime, OpenedRuntimeOptions } from "./runtime.js";
import { declaresNoAppSchema, loadToolSchemaEngine } from "./tools/schema-engine.js";

/** Everything the public object is made of: the parts, each built by its named function. */
export interface RuntimeWiring {
  readonly options: OpenedRuntimeOptions;
  /** Settles once the store has opened, or failed to (RuntimeOptions `store` may be one still opening). */
  readonly storeOpened: Promise<void>;
  readonly basics: RuntimeBasics;
  readonly started: StartedParts;
  readonly apps: AppDirectory;
  readonly app: AppParts;
  readonly delivery: DeliveryParts;
  readonly timers: RuntimeTimers;
  readonly followers: CommitFollowers;
  readonly catalog: RuntimeCatalog;
  readonly onCatalogRelease: (release: CatalogRelease) => void;
  readonly hostIntents: (intent: unknown) => Promise<HostIntentOutcome>;
  readonly appPort: (appScope: string) => AppPort;
}

export function runtimeObject(wiring: RuntimeWiring): LineUpRuntime {
  const { basics, started, app, appPort } = wiring;
  const { host } = basics;
  return {
    start: () => startRuntime(wiring),
    stop: () => stopRuntime(wiring),
    lifecycle: basics.lifecycle,
    whenOnline: () => whenOnline(basics.lifecycle),
    conversations: {
      list: () => basics.viewOf(started.state()).conversations,
      start: (request) => appPort("chat").startConversation(request),
    },
    apps: wiring.apps,
    appManager: app.runtimeApps.manager,
    catalog: wiring.catalog,
    instances: app.runtimeApps.instances,
    settings: app.runtimeApps.settings,
    appPort,
    features: basics.features,
    verifyAudit: () => verifyAuditChain(wiring.options.store),
    reconnectNow() {
      started.driver?.reconnectNow();
    },
    async hostCapabilitiesChanged() {
      const changed = host.refreshCapabilities();
      if (changed === undefined) return;
      const { gained, lost, denied } = changed;
      await started.post({
        kind: "host.changed",
        what: "capabilities",
        detail: `gained: ${gained.join(", ") || "none"}; lost: ${lost.join(", ") || "none"}; denied by the system: ${denied.join(", ") || "none"}`,
      });
    },
    hostIntent: (intent) => wiring.hostIntents(intent),
    async setInventoryPolicy(policy) {
      host.setInventoryPolicy(policy);
      await started.post({ kind: "host.changed", what: "policy", detail: JSON.stringify(policy) });
    },
    dropConnection() {
      started.driver?.dropConnection();
    },
  };
}

async function startRuntime(wiring: RuntimeWiring): Promise<void> {
  const { options, basics, started, app } = wiring;
  const { lifecycle, diagnostics } = basics;
  if (started.loop !== undefined) throw new LineUpError("invalid_state", "the Runtime was already started");
  lifecycle.publish({ status: "restoring" });
  // The socket opens and `initialize` goes out while the store is read; nothing of it reaches the loop before it runs.
  const driver = openConnection(options, basics, started, { onTenant: (tenant) => applyTenant(wiring, tenant), onCatalogRelease: wiring.onCatalogRelease });
  driver.preconnect();
  let restored: Awaited<ReturnType<typeof restoreState>>;
  try {
    await wiring.storeOpened;
    // App schemas are checked from the first restored app on: their engine loads while the store is read. A new
    // store holds no app but the core ones, so when they declare no schema the engine waits for the first install.
    const schemas = options.store.isNew?.() === true && basics.coreManifests.every(declaresNoAppSchema) ? undefined : loadToolSchemaEngine();
    [restored] = await Promise.all([restoreState(options.store, basics.ids, { coreManifests: basics.coreManifests, now: basics.clock.now() }), schemas]);
  } catch (error) {
    driver.stop();
    throw error;
  }
  const loop = openLoop(options, restored, basics, wiring.followers);
  started.setLoop(loop);
  wiring.followers.restored(restored.state);
  started.setDriver(driver);
  // Keys the host ships with are trusted once, when this store first sees them; a key the user removed in settings stays removed.
  await app.runtimeApps.trustShippedKeys(options.trustedPublishers ?? [], restored.shippedPublishers);
  // Calls, activations and instances of the previous run: resumed or ended before anything new arrives.
  await loop.post({ kind: "apps.resume" });
  // Artifacts of an app removed before a crash (its marker, read by the restore) let its removal finish: released now, in the background.
  void releaseArtifacts(app.artifacts, restored.releasing).catch((error: unknown) => diagnostics(error, "artifacts of removed apps"));
  driver.start();
}

async function stopRuntime(wiring: RuntimeWiring): Promise<void> {
  const { basics, started, app, timers } = wiring;
  const loop = started.loop;
  if (loop === undefined || basics.lifecycle.snapshot().status === "stopped") {
    basics.lifecycle.publish({ status: "stopped" });
    return;
  }
  started.driver?.stop();
  timers.deadlines.stop();
  timers.idle.stop();
  app.capabilityShell.stop();
  wiring.delivery.workflowShell.stop();
  await app.services.stop();
  await loop.post({ kind: "lifecycle", to: { status: "stopping" } }).catch(() => undefined);
  await loop.close();
  basics.lifecycle.publish({ status: "stopped" });
}

/** A tenant's settings arrived with `initialize`: its policy applies, and installed apps outside its allowlist are disabled (the operation says why in the audit). */
async function applyTenant(wiring: RuntimeWiring, settings: TenantSettings | undefined): Promise<void> {
  wiring.basics.host.setTenant(settings);
  const allowed = settings?.app_allowlist;
  if (allowed === undefined) return;
  const manager = wiring.app.runtimeApps.manager;
  for (const app of manager.listApps({ kind: "installed", enabled: true })) {
    if (!allowed.includes(app.app_scope)) await manager.disable(app.app_scope);
  }
}

/** Resolves once the lifecycle is `online`. */
function whenOnline(lifecycle: LifecycleCell): Promise<void> {
  if (lifecycle.snapshot().status === "online") return Promise.resolve();
  return new Promise((resolve) => {
    const off = lifecycle.subscribe((next) => {
      if (next.status === "online") {
        off();
        resolve();
      }
    });
  });
}
