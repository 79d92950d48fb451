import { CAPABILITIES, CAPABILITY_RESULT_STATUSES, type CapabilityName, type CapabilityResult } from "@lineup/protocol";
import { describe, expect, it } from "vitest";
import type { AuditFact } from "../src/app-lifecycle/manager/index.js";
import {
  answerSystemPermission,
  answerUserPrompt,
  changeCapabilitySetting,
  completeHostCall,
  decideCapabilityRequest,
  EMPTY_CAPABILITY_GATEWAY,
  expireCapabilityRequests,
  refuseAppCapabilityRequests,
  type CapabilityContext,
  type CapabilityDecision,
  type CapabilityGatewayState,
} from "../src/capabilities/index.js";

const APP = "voice";
const INSTANCE = "voice-1";
const ALL = Object.keys(CAPABILITIES) as CapabilityName[];

function context(overrides: Partial<CapabilityContext> = {}): CapabilityContext {
  return {
    declared: (scope) => (scope === APP ? ALL : undefined),
    appEnabled: () => true,
    hostSupports: () => true,
    foregroundInstanceId: INSTANCE,
    systemPermission: () => "not_applicable",
    policy: {},
    ...overrides,
  };
}

/**
 * A miniature of the Runtime loop: commits each decision's audit facts, then performs its steps.
 * The user and the system answer from a script; the host completes unless told to hang.
 */
class Loop {
  state: CapabilityGatewayState = EMPTY_CAPABILITY_GATEWAY;
  readonly audit: Array<AuditFact & { seq: number }> = [];
  readonly hostCalls: Array<{ request_id: string; seq: number }> = [];
  readonly results = new Map<string, CapabilityResult[]>();
  prompts = 0;
  systemPrompts = 0;
  decisions = 0;
  private seq = 0;
  constructor(
    public ctx: CapabilityContext,
    readonly script: { user?: "allow" | "deny" | "dismiss"; system?: boolean; hangHost?: boolean; beforeSystemAnswer?: () => void } = {},
  ) {}

  apply(d: CapabilityDecision, now = 0): void {
    this.decisions++;
    if (d.steps.length > 0) expect(d.audit.length, "every decision with a step is audited").toBeGreaterThan(0);
    for (const fact of d.audit) this.audit.push({ ...fact, seq: ++this.seq });
    this.state = d.state;
    for (const step of d.steps) {
      switch (step.kind) {
        case "respond":
          this.results.set(step.request_id, [...(this.results.get(step.request_id) ?? []), step.result]);
          break;
        case "ask_user":
          this.prompts++;
          this.apply(answerUserPrompt(this.state, { request_id: step.request_id, answer: this.script.user ?? "dismiss", now }, this.ctx), now);
          break;
        case "request_system_permission":
          this.systemPrompts++;
          this.script.beforeSystemAnswer?.();
          this.apply(answerSystemPermission(this.state, { request_id: step.request_id, granted: this.script.system ?? true, now }, this.ctx), now);
          break;
        case "invoke_host": {
          // The effect: it must already be in the audit log.
          const invoked = this.audit.find((a) => a.type === "capability.invoke" && a.detail?.includes(step.request_id));
          expect(invoked, `audit before host call ${step.request_id}`).toBeDefined();
          this.hostCalls.push({ request_id: step.request_id, seq: ++this.seq });
          expect(invoked!.seq).toBeLessThan(this.seq);
          if (!this.script.hangHost) this.apply(completeHostCall(this.state, { request_id: step.request_id, result: { status: "completed", value: { ok: true } } }), now);
          break;
        }
        case "abort_host_call":
          break;
      }
    }
  }

  request(id: string, capability: string, now = 0): void {
    this.apply(decideCapabilityRequest(this.state, { request_id: id, app_scope: APP, instance_id: INSTANCE, capability, purpose: "the agent asked", input: {}, now }, this.ctx), now);
  }

  only(id: string): CapabilityResult {
    const results = this.results.get(id) ?? [];
    expect(results, `exactly one result for ${id}`).toHaveLength(1);
    expect(CAPABILITY_RESULT_STATUSES).toContain(results[0]!.status);
    return results[0]!;
  }
}

type Grant = "undeclared" | "not_granted" | "granted" | "denied" | "revoked_mid_call";

describe("RELIABILITY P5: capability gateway matrix", () => {
  const cells: Array<[CapabilityName, Grant, boolean]> = [];
  for (const capability of ALL) for (const grant of ["undeclared", "not_granted", "granted", "denied", "revoked_mid_call"] as const) for (const fg of [true, false]) cells.push([capability, grant, fg]);

  it.each(cells)("%s × %s × foreground=%s: 0 host calls without a valid grant, no re-prompt after a denial, audit before effect", (capability, grant, foreground) => {
    const info = CAPABILITIES[capability];
    const revoke = grant === "revoked_mid_call";
    const loop = new Loop(
      context({
        declared: (scope) => (scope !== APP ? undefined : grant === "undeclared" ? [] : [capability]),
        foregroundInstanceId: foreground ? INSTANCE : "chat-1",
        // A system dialog gives the revocation a moment to happen in.
        systemPermission: () => (revoke ? "prompt" : "not_applicable"),
      }),
      {
        user: "allow",
        beforeSystemAnswer: () => {
          if (revoke) loop.apply(changeCapabilitySetting(loop.state, { app_scope: APP, capability, decision: "denied", now: 1 }));
        },
      },
    );
    if (grant === "granted" || revoke) loop.apply(changeCapabilitySetting(loop.state, { app_scope: APP, capability, decision: "granted", now: 0 }));
    if (grant === "denied") loop.apply(changeCapabilitySetting(loop.state, { app_scope: APP, capability, decision: "denied", now: 0 }));
    if (grant === "not_granted") loop.script.user = "dismiss";

    loop.request("r1", capability);
    const result = loop.only("r1");

    const foregroundOk = foreground || !info.requires_foreground;
    const valid =
      grant !== "undeclared" && grant !== "denied" && !revoke && foregroundOk && (grant === "granted" || !info.requires_confirmation);
    expect(loop.hostCalls).toHaveLength(valid ? 1 : 0);
    expect(result.status).toBe(valid ? "completed" : grant === "not_granted" && foregroundOk && info.requires_confirmation ? "cancelled_by_user" : "permission_denied");
    if (grant === "undeclared") expect(result).toMatchObject({ code: "capability_not_declared" });
    if (!foregroundOk && grant !== "undeclared" && grant !== "denied") expect(result).toMatchObject({ code: "foreground_required" });
    if (grant === "granted" || grant === "denied" || grant === "undeclared" || revoke) expect(loop.prompts).toBe(0);

    if (grant === "denied") {
      // A denial is not asked again, however often the app asks…
      loop.request("r2", capability);
      loop.request("r3", capability);
      expect(loop.prompts).toBe(0);
      expect(loop.hostCalls).toHaveLength(0);
      // …until the user changes it in settings.
      loop.apply(changeCapabilitySetting(loop.state, { app_scope: APP, capability, decision: "ask", now: 2 }));
      loop.request("r4", capability);
      expect(loop.prompts).toBe(foregroundOk && info.requires_confirmation ? 1 : 0);
    }
  });
});

describe("capability gateway decisions", () => {
  it("asks once: a remembered grant is not asked again; a deny answer is remembered", () => {
    const loop = new Loop(context(), { user: "allow" });
    loop.request("a", "microphone.record");
    loop.request("b", "microphone.record");
    expect(loop.prompts).toBe(1);
    expect(loop.hostCalls).toHaveLength(2);
    const denying = new Loop(context(), { user: "deny" });
    denying.request("a", "link.open");
    denying.request("b", "link.open");
    expect(denying.prompts).toBe(1);
    expect(denying.only("b")).toMatchObject({ status: "permission_denied" });
  });

  it("refuses for host support, disabled apps, policy and rate limits before asking anyone", () => {
    const refusedWith = (ctx: Partial<CapabilityContext>, capability = "microphone.record") => {
      const loop = new Loop(context(ctx), { user: "allow" });
      loop.request("x", capability);
      expect(loop.prompts).toBe(0);
      expect(loop.hostCalls).toHaveLength(0);
      const r = loop.only("x");
      return r.status === "completed" ? "completed" : `${r.status}/${r.code}`;
    };
    expect(refusedWith({ hostSupports: () => false })).toBe("unsupported_on_host/unsupported_on_host");
    expect(refusedWith({ appEnabled: () => false })).toBe("permission_denied/app_disabled");
    expect(refusedWith({ declared: () => undefined })).toBe("permission_denied/app_not_installed");
    expect(refusedWith({ policy: { denied_capabilities: ["microphone.record"] } })).toBe("policy_denied/policy_denied");
    expect(refusedWith({ policy: { denied_apps: [APP] } })).toBe("policy_denied/policy_denied");
    expect(refusedWith({ systemPermission: () => "denied" }, "notification.show")).toBe("permission_denied/permission_denied");
    expect(refusedWith({}, "camera.capture")).toBe("permission_denied/capability_not_declared");

    const limited = new Loop(context({ policy: { rate_limit: { max: 2, window_ms: 1_000 } } }));
    for (const [i, t] of [0, 10, 20, 1_500].entries()) limited.request(`n${i}`, "notification.show", t);
    expect(["n0", "n1", "n2", "n3"].map((id) => limited.only(id)).map((r) => (r.status === "completed" ? "ok" : r.code))).toEqual(["ok", "ok", "rate_limited", "ok"]);
  });

  it("a grant revoked while the host runs aborts the call and discards its late result", () => {
    const loop = new Loop(context(), { hangHost: true });
    loop.apply(changeCapabilitySetting(loop.state, { app_scope: APP, capability: "notification.show", decision: "granted", now: 0 }));
    loop.request("h", "notification.show");
    expect(loop.hostCalls).toHaveLength(1);
    const revoked = changeCapabilitySetting(loop.state, { app_scope: APP, capability: "notification.show", decision: "denied", now: 1 });
    expect(revoked.steps.map((s) => s.kind)).toEqual(["abort_host_call", "respond"]);
    loop.apply(revoked);
    loop.apply(completeHostCall(loop.state, { request_id: "h", result: { status: "completed", value: 1 } }));
    expect(loop.only("h")).toMatchObject({ status: "permission_denied" });
  });

  it("a malformed host answer is `failed` with no native detail; unanswered requests expire; disabling ends waiting requests", () => {
    const loop = new Loop(context(), { hangHost: true });
    loop.request("m", "notification.show");
    loop.apply(completeHostCall(loop.state, { request_id: "m", result: { status: "completed", value: 1, stack: "/home/user/secret.js:1" } }));
    expect(loop.only("m")).toEqual({ status: "failed", code: "failed", message: "notification.show failed on the host" });

    const waiting = new Loop(context(), { hangHost: true });
    waiting.request("w", "notification.show", 0);
    waiting.apply(expireCapabilityRequests(waiting.state, 119_999));
    expect(waiting.results.get("w")).toBeUndefined();
    waiting.apply(expireCapabilityRequests(waiting.state, 120_000));
    expect(waiting.only("w")).toMatchObject({ status: "expired" });

    const disabled = new Loop(context(), { hangHost: true });
    disabled.request("d", "window.attention");
    disabled.apply(refuseAppCapabilityRequests(disabled.state, APP));
    expect(disabled.only("d")).toMatchObject({ status: "permission_denied", code: "app_disabled" });
  });

  it("the state is plain JSON", () => {
    const loop = new Loop(context(), { user: "allow" });
    loop.request("a", "microphone.record");
    expect(JSON.parse(JSON.stringify(loop.state))).toEqual(loop.state);
  });
});
