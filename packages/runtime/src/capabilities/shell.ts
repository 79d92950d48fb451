/**
 * The Capability Gateway's shell: the imperative half the loop hands its decided, audited and
 * committed steps to (spec 6.3). It
 *
 * - takes an app's request (`AppPort.requestCapability`), names it, snapshots what the host says
 *   (the OS permission) and the policy, posts it, and keeps the app's promise until the `respond`
 *   step arrives — the promise resolves with a `CapabilityResult` only, never rejects;
 * - runs the other steps against the `HostProvider` (the shell's confirmation dialog, the system's
 *   permission dialog, the host call with its `AbortSignal`, the abort) and posts each answer back
 *   as an input, so the gateway decides again;
 * - keeps one timer at the earliest `expires_at` of the waiting requests, which posts
 *   `capabilities.tick`.
 *
 * It decides nothing: a host that throws is a dismissal (confirm), a denial (system dialog) or a
 * malformed result (invoke, which the gateway turns into `failed`).
 */
import { capabilityRefused, isCapabilityName, type CapabilityResult, type ErrorCode, type JsonValue } from "@lineup/protocol";
import type { DiagnosticsSink } from "../core/emitter.js";
import type { Clock, IdSource } from "../core/ports.js";
import type { Effect, RuntimeInput } from "../coordination/inputs.js";
import { toLineUpError } from "../coordination/loop.js";
import type { CapabilityPolicy } from "./gateway.js";
import type { HostProvider, SystemPermission } from "./host-provider.js";
import { nextCapabilityExpiry, type CapabilitiesState, type CapabilityHostSnapshot } from "./loop-state.js";

/** What an app passes to `requestCapability`. */
export interface AppCapabilityRequest {
  readonly capability: string;
  /** Why, in the app's words, for this use (shown in the confirmation dialog next to the declared purpose). */
  readonly purpose: string;
  readonly input: JsonValue;
  /** The asking instance; without it, the app's instance in the foreground (if any). */
  readonly instance_id?: string;
  /**
   * Set by the host, never by an app: the `ui://` MCP Apps view of one of the app's tools that asks, which the host
   * shows on screen (the view is no instance: `ui/open-link` is its `link.open`).
   */
  readonly view?: string;
}

export interface CapabilityShellOptions {
  readonly host: HostProvider;
  readonly policy: CapabilityPolicy;
  readonly clock: Clock;
  readonly ids: IdSource;
  readonly diagnostics: DiagnosticsSink;
  post(input: RuntimeInput): Promise<unknown>;
}

export interface CapabilityShell {
  request(appScope: string, request: AppCapabilityRequest): Promise<CapabilityResult>;
  /** Runs one committed step (called after the commit that decided it). */
  run(effect: Extract<Effect, { kind: "capability" }>): void;
  /** The state after a commit: re-arms the request timer. */
  changed(capabilities: CapabilitiesState): void;
  /** Aborts running host calls and ends the apps' waiting promises (`failed` / `request_cancelled`). */
  stop(): void;
}

export function createCapabilityShell(options: CapabilityShellOptions): CapabilityShell {
  const { host, clock, diagnostics } = options;
  const waiters = new Map<string, (result: CapabilityResult) => void>();
  const running = new Map<string, AbortController>();
  let stopped = false;
  let cancelTimer: (() => void) | undefined;
  let armedAt: number | undefined;

  const settle = (requestId: string, result: CapabilityResult): void => {
    const resolve = waiters.get(requestId);
    waiters.delete(requestId);
    resolve?.(result);
  };

  const systemPermission = (capability: string): SystemPermission => {
    if (!isCapabilityName(capability)) return "not_applicable";
    try {
      return host.systemPermission(capability);
    } catch (error) {
      diagnostics(error, "capability system permission");
      return "denied";
    }
  };
  const snapshot = (capability: string): CapabilityHostSnapshot => ({ system_permission: systemPermission(capability), policy: options.policy });

  /** Posts an answer; after stop() the loop refuses it, which is expected and ignored. */
  const answer = (input: RuntimeInput): void => {
    if (stopped) return;
    options.post(input).catch((error: unknown) => {
      if (!stopped) diagnostics(error, `capability ${input.kind}`);
    });
  };

  /** Runs `call`, turning a synchronous throw into a rejection. */
  const attempt = <T>(call: () => Promise<T>): Promise<T> => {
    try {
      return Promise.resolve(call());
    } catch (error) {
      return Promise.reject(error);
    }
  };

  return {
    request(appScope, request) {
      if (stopped) return Promise.resolve(capabilityRefused("failed", "the Runtime is stopped", "invalid_state"));
      if (typeof request.capability !== "string" || typeof request.purpose !== "string") {
        return Promise.resolve(capabilityRefused("failed", "a capability request needs a capability name and a purpose", "invalid_params"));
      }
      const requestId = options.ids.next("cap");
      return new Promise<CapabilityResult>((resolve) => {
        waiters.set(requestId, resolve);
        options
          .post({
            kind: "capability.request",
            request: {
              request_id: requestId,
              app_scope: appScope,
              capability: request.capability,
              purpose: request.purpose,
              input: request.input,
              ...(request.instance_id === undefined ? {} : { instance_id: request.instance_id }),
              ...(request.view === undefined ? {} : { view: request.view }),
            },
            host: snapshot(request.capability),
          })
          .catch((error: unknown) => {
            // Not decided (a failed commit, a stopped Runtime): nothing was recorded, nothing happens.
            const code: ErrorCode = toLineUpError(error).code;
            settle(requestId, capabilityRefused("failed", "the request could not be recorded", code));
          });
      });
    },

    run({ step, app_name, declared_purpose }) {
      switch (step.kind) {
        case "respond":
          running.delete(step.request_id);
          settle(step.request_id, step.result);
          return;
        case "ask_user": {
          // The purpose the user reviewed at install comes first; the app's words for this use follow.
          const purpose = declared_purpose === undefined || declared_purpose === step.purpose ? step.purpose : `${declared_purpose} — ${step.purpose}`;
          const prompt = { request_id: step.request_id, app_scope: step.app_scope, app_name: app_name ?? step.app_scope, capability: step.capability, purpose, description: step.description, risk: step.risk };
          attempt(() => host.confirm(prompt)).then(
            (choice) => answer({ kind: "capability.user_answer", request_id: step.request_id, answer: choice === "allow" || choice === "dismiss" ? choice : "deny", host: snapshot(step.capability) }),
            (error: unknown) => {
              diagnostics(error, "capability confirmation");
              answer({ kind: "capability.user_answer", request_id: step.request_id, answer: "dismiss", host: snapshot(step.capability) });
            },
          );
          return;
        }
        case "request_system_permission":
          attempt(() => host.requestSystemPermission(step.capability)).then(
            (granted) => answer({ kind: "capability.system_answer", request_id: step.request_id, granted: granted === "granted", host: snapshot(step.capability) }),
            (error: unknown) => {
              diagnostics(error, "capability system permission");
              answer({ kind: "capability.system_answer", request_id: step.request_id, granted: false, host: snapshot(step.capability) });
            },
          );
          return;
        case "invoke_host": {
          const controller = new AbortController();
          running.set(step.request_id, controller);
          attempt(() => host.invoke({ request_id: step.request_id, app_scope: step.app_scope, capability: step.capability, input: step.input, signal: controller.signal })).then(
            (result) => answer({ kind: "capability.host_completed", request_id: step.request_id, result }),
            (error: unknown) => {
              diagnostics(error, "capability host call");
              // No result: the gateway answers `failed`, without the native error's text.
              answer({ kind: "capability.host_completed", request_id: step.request_id, result: undefined });
            },
          );
          return;
        }
        case "abort_host_call":
          running.get(step.request_id)?.abort();
          running.delete(step.request_id);
          return;
      }
    },

    changed(capabilities) {
      const due = nextCapabilityExpiry(capabilities);
      if (due === armedAt || stopped) return;
      cancelTimer?.();
      cancelTimer = undefined;
      armedAt = due;
      if (due === undefined) return;
      cancelTimer = clock.setTimer(Math.max(0, due - clock.now()), () => {
        cancelTimer = undefined;
        armedAt = undefined;
        answer({ kind: "capabilities.tick" });
      });
    },

    stop() {
      stopped = true;
      cancelTimer?.();
      cancelTimer = undefined;
      for (const controller of running.values()) controller.abort();
      running.clear();
      for (const requestId of [...waiters.keys()]) settle(requestId, capabilityRefused("failed", "the Runtime stopped before the request was answered", "request_cancelled"));
    },
  };
}
