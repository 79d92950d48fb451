/**
 * Every live instance of an installed app, each in its own sandboxed surface, positioned by the
 * Runtime's focus stack (spec 4.5, 6.3 display modes): the instance in the foreground fills the app
 * area while the shell shows it; the most recent one in the background floats as picture-in-picture
 * while the user is elsewhere; the rest stay mounted but hidden (they still answer tool calls) — except
 * suspended ones, whose frame is unmounted until the Runtime restores them.
 * A surface is never moved in the DOM — an iframe that moves reloads — only restyled.
 *
 * A frame shows the app version that was active when it loaded. When another version becomes active (an
 * update, a dev release followed by itself, a rollback) the frame is replaced by one of the new version for
 * the same instance, which loads from the Runtime's snapshot as a restored instance does: its session data is
 * the Runtime's, and no event of the person's is repeated. An instance a tool call is on keeps its page until
 * the call ends (`frame-generations.ts`): replacing it would cut the call.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { createFrameGenerations } from "./frame-generations.js";
import type { DisplayMode } from "@lineup/protocol";
import type { AppInstance, LineUpRuntime } from "@lineup/runtime";
import type * as InstanceBridgeModule from "./instance-bridge.js";
import type { InstanceBridge, InstanceFailure } from "./instance-bridge.js";
import { localizedAppName } from "../i18n/app-text.js";
import { t } from "../i18n/index.js";
import { lazyModule } from "../shell/lazy-module.js";

// The bridge and the surface host are a chunk of their own, fetched when the first app's frame mounts.
const instanceBridge = lazyModule("app bridge", () => import("./instance-bridge.js"));

export type Placement = "foreground" | "pip" | "hidden";

export interface InstanceLayerProps {
  readonly runtime: LineUpRuntime;
  readonly instances: readonly AppInstance[];
  /** Instances a tool call or an activation is on (`InstancesSnapshotView.busy`): their frame is not replaced. */
  readonly busy: readonly string[];
  readonly placement: (instance: AppInstance) => Placement;
  /** An instance's surface failed to start or died; the Runtime has been told (`instances.failed`). */
  readonly onFailed?: (instance: AppInstance, failure: InstanceFailure) => void;
  readonly onFocusRequest?: (instanceId: string) => void;
  /** The person closes the instance (the picture-in-picture window's ×). */
  readonly onCloseRequest?: (instanceId: string) => void;
  /** The person pressed the launcher's shortcut (Ctrl/⌘+K) with the focus inside an app's frame. */
  readonly onLauncher?: () => void;
  readonly frameUrl?: string;
}

export function InstanceLayer({ runtime, instances, busy, placement, onFailed, onFocusRequest, onCloseRequest, onLauncher, frameUrl }: InstanceLayerProps) {
  const versions = useActiveVersions(runtime);
  const activeVersion = (appScope: string): string => versions.get(appScope) ?? "";
  const frames = useRef(createFrameGenerations()).current;
  frames.keepOnly(new Set(instances.map((i) => i.instance_id)));
  const busySet = new Set(busy);
  return (
    <div class="instance-layer">
      {instances.filter(holdsFrame).map((instance) => {
        const frame = frames.frameOf(instance.instance_id, activeVersion(instance.app_scope), busySet.has(instance.instance_id));
        return (
          <InstanceSurface
            // A new active version is a new frame for the same instance (a changed key remounts it).
            key={`${instance.instance_id}:${frame.generation}`}
            runtime={runtime}
            instance={instance}
            version={frame.version}
            placement={placement(instance)}
            {...(onFailed === undefined ? {} : { onFailed: (failure: InstanceFailure) => onFailed(instance, failure) })}
            {...(onFocusRequest === undefined ? {} : { onFocusRequest })}
            {...(onCloseRequest === undefined ? {} : { onCloseRequest })}
            {...(onLauncher === undefined ? {} : { onLauncher })}
            {...(frameUrl === undefined ? {} : { frameUrl })}
          />
        );
      })}
    </div>
  );
}

/** A suspended instance has no frame (spec 4.4): the Runtime decided to reclaim it; it mounts again, restoring, when brought back. */
const holdsFrame = (instance: AppInstance): boolean => instance.status !== "suspended";

/**
 * The active version of each app, read again after every change to the apps (a render follows only when one
 * changed). A removed app keeps its last version: its closing frame stays as it is.
 */
function useActiveVersions(runtime: LineUpRuntime): ReadonlyMap<string, string> {
  const read = (): Map<string, string> => {
    const versions = new Map<string, string>();
    for (const record of runtime.appManager.listApps()) {
      const version = runtime.appManager.getApp(record.app_scope)?.manifest.version;
      if (version !== undefined) versions.set(record.app_scope, version);
    }
    return versions;
  };
  const [versions, setVersions] = useState(read);
  useEffect(
    () =>
      runtime.appManager.subscribe(() =>
        setVersions((before) => {
          const now = read();
          for (const [appScope, version] of before) if (!now.has(appScope)) now.set(appScope, version);
          return now.size === before.size && [...now].every(([appScope, version]) => before.get(appScope) === version) ? before : now;
        })
      ),
    [runtime]
  );
  return versions;
}

const modeOf = (placement: Placement): DisplayMode => (placement === "pip" ? "pip" : "foreground");

function InstanceSurface({
  runtime,
  instance,
  version,
  placement,
  onFailed,
  onFocusRequest,
  onCloseRequest,
  onLauncher,
  frameUrl,
}: {
  runtime: LineUpRuntime;
  instance: AppInstance;
  /** The app's active version when this frame loads: the one it shows. */
  version: string;
  placement: Placement;
  onFailed?: (failure: InstanceFailure) => void;
  onFocusRequest?: (instanceId: string) => void;
  onCloseRequest?: (instanceId: string) => void;
  onLauncher?: () => void;
  frameUrl?: string;
}) {
  const container = useRef<HTMLDivElement>(null);
  const bridge = useRef<InstanceBridge | undefined>(undefined);
  const closing = useRef(false);
  // The placement when the bridge connects, which may come after a move while its chunk was on its way.
  const placementNow = useRef(placement);
  placementNow.current = placement;

  useEffect(() => {
    const element = container.current;
    if (element === null) return;
    let gone = false;
    const connect = ({ connectInstance }: typeof InstanceBridgeModule): void => {
      if (gone) return;
      bridge.current = connectInstance(element, runtime, instance, {
        displayMode: modeOf(placementNow.current),
        ...(frameUrl === undefined ? {} : { frameUrl }),
        ...(onFailed === undefined ? {} : { onFailed }),
        ...(onLauncher === undefined ? {} : { onLauncher }),
      });
      if (closing.current) void bridge.current.close();
    };
    const loaded = instanceBridge.current();
    if (loaded !== undefined) connect(loaded);
    else {
      instanceBridge.load().then(connect, (error: unknown) => {
        if (gone) return;
        // As a surface that fails to start: the Runtime is told, and the shell shows why.
        const message = error instanceof Error ? error.message : String(error);
        void runtime.instances.failed(instance.instance_id, message).catch(() => undefined);
        onFailed?.({ kind: "start", message });
      });
    }
    return () => {
      gone = true;
      if (!closing.current) bridge.current?.dispose();
      bridge.current = undefined;
    };
    // One bridge per instance for its whole life.
  }, [instance.instance_id]);

  const wasForeground = useRef(placement === "foreground");
  useEffect(() => {
    bridge.current?.setDisplayMode(modeOf(placement));
    const foreground = placement === "foreground";
    if (foreground !== wasForeground.current) bridge.current?.setForeground(foreground);
    wasForeground.current = foreground;
  }, [placement]);

  const name = localizedAppName(runtime.appManager.getApp(instance.app_scope)?.projection) ?? instance.app_scope;

  useEffect(() => {
    if (instance.status !== "closing" || closing.current) return;
    closing.current = true;
    void bridge.current?.close();
  }, [instance.status]);

  return (
    <div
      class={`instance-surface placement-${placement}`}
      data-instance={instance.instance_id}
      data-app={instance.app_scope}
      data-version={version}
      data-status={instance.status}
      aria-hidden={placement === "hidden" ? "true" : undefined}
    >
      {placement === "pip" ? (
        <div class="pip-actions">
          <button type="button" class="pip-open" onClick={() => onFocusRequest?.(instance.instance_id)} aria-label={t("pip.open", { name })}>
            {t("pip.openButton")}
          </button>
          {onCloseRequest === undefined ? null : (
            <button
              type="button"
              class="pip-close"
              onClick={() => onCloseRequest(instance.instance_id)}
              aria-label={t("shell.closeTab", { name })}
              title={t("shell.closeTab", { name })}
            >
              ×
            </button>
          )}
        </div>
      ) : null}
      <div class="instance-frame" ref={container} />
    </div>
  );
}
