import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  backgroundInstance,
  closeAppInstances,
  closeInstance,
  crashInstance,
  EMPTY_INSTANCES,
  findLiveInstance,
  focusInstance,
  foregroundInstance,
  holdsSurface,
  liveSurfaceCount,
  instancePolicyFor,
  isLegalInstanceTransition,
  isLive,
  launchInstance,
  liveInstanceCount,
  markInstanceClosed,
  markInstanceReady,
  markInstanceRestored,
  resolveStartupTarget,
  restoreInstanceInBackground,
  restoreInstances,
  returnFocus,
  snapshotInstances,
  suspendInstance,
  suspendIdle,
  suspendPastBound,
  type InstanceChange,
  type InstanceResult,
  type InstancesState,
  type InstanceStatus,
} from "../src/app-lifecycle/instances/index.js";
import { soakSized, timeLimitFor } from "../../../test/support/soak.js";

const T = 1_000;

function must(result: InstanceResult): { state: InstancesState; changes: readonly InstanceChange[] } {
  if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`);
  return result.value;
}

function launch(state: InstancesState, id: string, app: string, conversation = "c1", foreground = true): InstancesState {
  return must(launchInstance(state, { instance_id: id, app_scope: app, policy: instancePolicyFor(app), conversation_id: conversation, foreground, now: T })).state;
}

const statusOf = (s: InstancesState, id: string) => s.instances[id]?.status;

describe("focus stack (spec 4.5)", () => {
  it("launching an extension backgrounds the interaction app, and closing it brings the interaction app back", () => {
    let s = launch(EMPTY_INSTANCES, "chat-1", "chat");
    s = must(markInstanceReady(s, "chat-1", T)).state;
    expect(foregroundInstance(s)?.instance_id).toBe("chat-1");
    s = launch(s, "game-1", "draw-and-guess");
    expect(statusOf(s, "chat-1")).toBe("backgrounded");
    expect(foregroundInstance(s)).toBeUndefined();
    s = must(markInstanceReady(s, "game-1", T)).state;
    expect(foregroundInstance(s)?.instance_id).toBe("game-1");
    s = must(suspendInstance(s, "chat-1", T)).state;
    const closed = must(closeInstance(s, "game-1", T));
    expect(closed.changes).toEqual([
      { instance_id: "game-1", app_scope: "draw-and-guess", from: "active", to: "closing" },
      { instance_id: "chat-1", app_scope: "chat", from: "suspended", to: "restoring" },
    ]);
    s = must(markInstanceRestored(closed.state, "chat-1", T)).state;
    expect(foregroundInstance(s)?.instance_id).toBe("chat-1");
    expect(s.focus_stack).toEqual(["chat-1"]);
  });

  it("a failed extension also gives the focus back, and never stays in the stack", () => {
    let s = must(markInstanceReady(launch(EMPTY_INSTANCES, "chat-1", "chat"), "chat-1", T)).state;
    s = launch(s, "wb-1", "whiteboard");
    s = must(crashInstance(s, "wb-1", T, "surface crashed")).state;
    expect(s.instances["wb-1"]).toMatchObject({ status: "failed", reason: "surface crashed" });
    expect(s.focus_stack).toEqual(["chat-1"]);
    expect(foregroundInstance(s)?.instance_id).toBe("chat-1");
  });

  it("tool apps get one instance per conversation; chat is one global instance", () => {
    let s = launch(EMPTY_INSTANCES, "wb-a", "whiteboard", "c1", false);
    s = launch(s, "wb-b", "whiteboard", "c2", false);
    expect(findLiveInstance(s, "whiteboard", "c1")?.instance_id).toBe("wb-a");
    expect(findLiveInstance(s, "whiteboard", "c2")?.instance_id).toBe("wb-b");
    const again = launchInstance(s, { instance_id: "wb-c", app_scope: "whiteboard", policy: "per_conversation", conversation_id: "c1", foreground: false, now: T });
    expect(again.ok ? "launched" : again.error.code).toBe("illegal_transition");
    s = must(launchInstance(s, { instance_id: "wb-c", app_scope: "whiteboard", policy: "per_conversation", conversation_id: "c1", foreground: false, new_instance: true, now: T + 1 })).state;
    expect(findLiveInstance(s, "whiteboard", "c1")?.instance_id).toBe("wb-c");
    s = launch(s, "chat-1", "chat", "c1");
    expect(findLiveInstance(s, "chat", "c2")?.instance_id).toBe("chat-1");
    const second = launchInstance(s, { instance_id: "chat-2", app_scope: "chat", policy: "singleton", foreground: true, new_instance: true, now: T });
    expect(second.ok).toBe(false);
    expect(liveInstanceCount(s, "whiteboard")).toBe(3);
    const closedAll = closeAppInstances(s, "whiteboard", T);
    expect(liveInstanceCount(closedAll.state, "whiteboard")).toBe(0);
    expect(closedAll.changes.map((c) => c.to)).toEqual(["closing", "closing", "closing"]);
  });

  it("refuses illegal transitions and changes nothing", () => {
    const s = launch(EMPTY_INSTANCES, "wb", "whiteboard");
    for (const r of [backgroundInstance(s, "wb", T), suspendInstance(s, "wb", T), markInstanceRestored(s, "wb", T), markInstanceClosed(s, "wb", T)]) {
      expect(r.ok ? "ok" : r.error.code).toBe("illegal_transition");
    }
    expect(focusInstance(s, "nope", T).ok ? "ok" : "app_not_found").toBe("app_not_found");
    const closed = must(markInstanceClosed(must(closeInstance(s, "wb", T)).state, "wb", T)).state;
    expect(focusInstance(closed, "wb", T).ok).toBe(false);
    expect(crashInstance(closed, "wb", T).ok).toBe(false);
  });
});

describe("start-up target (spec 4.3)", () => {
  const all = () => undefined;
  it("explicit target → restorable foreground → default app → chat", () => {
    let s = must(markInstanceReady(launch(EMPTY_INSTANCES, "wb", "whiteboard"), "wb", T)).state;
    expect(resolveStartupTarget({ explicit: { app_scope: "voice", conversation_id: "c9" }, instances: s, default_app: "voice", cannotRun: all })).toEqual({ kind: "explicit", app_scope: "voice", conversation_id: "c9" });
    expect(resolveStartupTarget({ instances: s, default_app: "voice", cannotRun: all })).toEqual({ kind: "restore", app_scope: "whiteboard", instance_id: "wb", skipped: [] });
    s = must(closeInstance(s, "wb", T)).state;
    expect(resolveStartupTarget({ instances: s, default_app: "voice", cannotRun: all })).toEqual({ kind: "default", app_scope: "voice", skipped: [] });
    expect(resolveStartupTarget({ instances: s, default_app: "chat", cannotRun: all })).toMatchObject({ kind: "recovery", app_scope: "chat" });
  });

  it("a broken, disabled or removed default (or explicit target, or foreground app) falls back to chat", () => {
    const s = must(markInstanceReady(launch(EMPTY_INSTANCES, "wb", "whiteboard"), "wb", T)).state;
    const gone = (scope: string) => ({ kind: "not_installed" as const, message: `${scope} is gone` });
    const onlyChat = (scope: string) => (scope === "chat" ? undefined : gone(scope));
    const target = resolveStartupTarget({ instances: s, default_app: "voice", cannotRun: onlyChat });
    expect(target).toEqual({
      kind: "recovery",
      app_scope: "chat",
      skipped: [
        { target: "restore", app_scope: "whiteboard", reason: "whiteboard is gone", cause: gone("whiteboard") },
        { target: "default", app_scope: "voice", reason: "voice is gone", cause: gone("voice") },
      ],
    });
    // An explicit target that cannot run lands in chat, not in the instance or default that would come next.
    expect(resolveStartupTarget({ explicit: { app_scope: "game" }, instances: s, default_app: "voice", cannotRun: (a) => (a === "game" ? gone("game") : undefined) })).toEqual({
      kind: "recovery",
      app_scope: "chat",
      skipped: [{ target: "explicit", app_scope: "game", reason: "game is gone", cause: gone("game") }],
    });
  });
});

describe("restart snapshot", () => {
  it("brings live instances back suspended in stack order, never in the foreground; unrestorable ones close", () => {
    let s = must(markInstanceReady(launch(EMPTY_INSTANCES, "chat-1", "chat"), "chat-1", T)).state;
    s = must(markInstanceReady(launch(s, "wb", "whiteboard"), "wb", T)).state;
    s = launch(s, "game", "draw-and-guess", "c1", false);
    const snapshot = JSON.parse(JSON.stringify(snapshotInstances(s))) as ReturnType<typeof snapshotInstances>;
    const restored = restoreInstances(snapshot, T + 5, (i) => i.app_scope !== "whiteboard");
    expect(foregroundInstance(restored.state)).toBeUndefined();
    expect(restored.state.focus_stack).toEqual(["chat-1"]);
    expect(statusOf(restored.state, "chat-1")).toBe("suspended");
    expect(statusOf(restored.state, "wb")).toBe("closed");
    expect(statusOf(restored.state, "game")).toBe("failed");
    expect(resolveStartupTarget({ instances: restored.state, default_app: "whiteboard", cannotRun: (a) => (a === "whiteboard" ? { kind: "not_installed", message: "gone" } : undefined) })).toEqual({ kind: "restore", app_scope: "chat", instance_id: "chat-1", skipped: [] });
    const back = must(focusInstance(restored.state, "chat-1", T + 6));
    expect(statusOf(back.state, "chat-1")).toBe("restoring");
  });
});

// --- RELIABILITY S1: model-based test of the lifecycle and the focus stack ---

const APPS = ["chat", "whiteboard", "draw-and-guess", "voice"] as const;

interface Model {
  status: Map<string, InstanceStatus>;
  stack: string[];
  next: number;
  app: Map<string, string>;
}
interface Real {
  state: InstancesState;
}

const LIVE = (s: InstanceStatus | undefined) => s !== undefined && isLive(s);

/** Checks what must hold after every command, whatever happened. */
function checkInvariants(m: Model, r: Real): void {
  const s = r.state;
  const active = Object.values(s.instances).filter((i) => i.status === "active");
  expect(active.length).toBeLessThanOrEqual(1);
  if (active.length === 1) expect(s.focus_stack[s.focus_stack.length - 1]).toBe(active[0]!.instance_id);
  expect(new Set(s.focus_stack).size).toBe(s.focus_stack.length);
  for (const id of s.focus_stack) expect(LIVE(s.instances[id]?.status)).toBe(true);
  expect(s.focus_stack).toEqual(m.stack);
  for (const [id, status] of m.status) expect(s.instances[id]?.status).toBe(status);
}

/** The model's own view of what an operation should do to the stack. */
function modelRemove(m: Model, id: string): void {
  const wasTop = m.stack[m.stack.length - 1] === id;
  m.stack = m.stack.filter((x) => x !== id);
  if (wasTop) {
    const top = m.stack[m.stack.length - 1];
    if (top !== undefined && m.status.get(top) === "backgrounded") m.status.set(top, "active");
    else if (top !== undefined && m.status.get(top) === "suspended") m.status.set(top, "restoring");
  }
}

function pick(m: Model, index: number): string | undefined {
  const ids = [...m.status.keys()];
  return ids.length === 0 ? undefined : ids[index % ids.length];
}

type Op = "ready" | "focus" | "background" | "suspend" | "restore" | "restored" | "crash" | "close" | "closed";

/** What the model expects of `op` on an instance in `status`: the target status, or undefined for a refusal. */
function modelExpect(m: Model, op: Op, id: string): boolean {
  const status = m.status.get(id)!;
  const top = m.stack[m.stack.length - 1];
  const demoteTop = () => {
    if (top !== undefined && m.status.get(top) === "active") m.status.set(top, "backgrounded");
  };
  switch (op) {
    case "ready":
    case "restored":
      if (status !== (op === "ready" ? "launching" : "restoring")) return false;
      m.status.set(id, top === id ? "active" : "backgrounded");
      return true;
    case "focus":
      if (!LIVE(status)) return false;
      if (top !== id) demoteTop();
      m.stack = [...m.stack.filter((x) => x !== id), id];
      if (status === "backgrounded") m.status.set(id, "active");
      else if (status === "suspended") m.status.set(id, "restoring");
      return true;
    case "background":
      if (status !== "active") return false;
      m.status.set(id, "backgrounded");
      return true;
    case "suspend":
      if (status !== "backgrounded") return false;
      m.status.set(id, "suspended");
      return true;
    case "restore":
      // A call delivered to a suspended instance: its surface comes back behind, the stack unchanged.
      if (status !== "suspended") return false;
      m.status.set(id, "restoring");
      return true;
    case "crash":
      if (status === "closed" || status === "failed") return false;
      m.status.set(id, "failed");
      modelRemove(m, id);
      return true;
    case "close":
      if (!LIVE(status)) return false;
      m.status.set(id, "closing");
      modelRemove(m, id);
      return true;
    case "closed":
      if (status !== "closing") return false;
      m.status.set(id, "closed");
      return true;
  }
}

const OPS: Record<Op, (s: InstancesState, id: string, now: number) => InstanceResult> = {
  ready: markInstanceReady,
  focus: focusInstance,
  background: backgroundInstance,
  suspend: suspendInstance,
  restore: restoreInstanceInBackground,
  restored: markInstanceRestored,
  crash: (s, id, now) => crashInstance(s, id, now),
  close: closeInstance,
  closed: markInstanceClosed,
};

class OpCommand implements fc.Command<Model, Real> {
  constructor(readonly op: Op, readonly index: number) {}
  check = () => true;
  run(m: Model, r: Real): void {
    const id = pick(m, this.index);
    if (id === undefined) return;
    const before = r.state;
    const result = OPS[this.op](r.state, id, m.next);
    const expected = modelExpect(m, this.op, id);
    expect(result.ok, `${this.op} ${id}`).toBe(expected);
    if (result.ok) {
      r.state = result.value.state;
      for (const c of result.value.changes) if (c.cause !== "restart" && c.from !== "not_running") expect(isLegalInstanceTransition(c.from, c.to)).toBe(true);
    } else {
      expect(result.error.code).toBe("illegal_transition");
      expect(r.state).toBe(before);
    }
    checkInvariants(m, r);
  }
  toString = () => `${this.op}(${this.index})`;
}

class LaunchCommand implements fc.Command<Model, Real> {
  constructor(readonly app: (typeof APPS)[number], readonly conversation: string, readonly foreground: boolean) {}
  check = () => true;
  run(m: Model, r: Real): void {
    const id = `i${m.next++}`;
    const policy = instancePolicyFor(this.app);
    const result = launchInstance(r.state, { instance_id: id, app_scope: this.app, policy, conversation_id: this.conversation, foreground: this.foreground, now: m.next });
    const clash = [...m.status].some(([other, st]) => LIVE(st) && m.app.get(other) === this.app && (policy === "singleton" || r.state.instances[other]?.conversation_id === this.conversation));
    expect(result.ok).toBe(!clash);
    if (!result.ok) return checkInvariants(m, r);
    if (this.foreground) {
      const top = m.stack[m.stack.length - 1];
      if (top !== undefined && m.status.get(top) === "active") m.status.set(top, "backgrounded");
      m.stack.push(id);
    }
    m.status.set(id, "launching");
    m.app.set(id, this.app);
    r.state = result.value.state;
    checkInvariants(m, r);
  }
  toString = () => `launch(${this.app},${this.conversation},${this.foreground})`;
}

/** The loop's bound of live surfaces (spec 4.4): least recently used idle background instances are suspended. */
class BoundCommand implements fc.Command<Model, Real> {
  constructor(readonly bound: number, readonly busyMask: number) {}
  check = () => true;
  run(m: Model, r: Real): void {
    const ids = [...m.status.keys()];
    const busy = new Set(ids.filter((_, i) => (this.busyMask >> i) & 1));
    const before = r.state;
    const outcome = suspendPastBound(before, { max_live_surfaces: this.bound, busy, now: m.next });
    const suspended = outcome.changes.map((c) => c.instance_id);
    // Only idle background instances are suspended, each once, and the stack keeps its order.
    for (const c of outcome.changes) expect({ id: c.instance_id, from: c.from, to: c.to, busy: busy.has(c.instance_id) }).toEqual({ id: c.instance_id, from: "backgrounded", to: "suspended", busy: false });
    expect(new Set(suspended).size).toBe(suspended.length);
    expect(outcome.state.focus_stack).toEqual(before.focus_stack);
    // No more than needed: never below the bound; and if still above it, nothing idle is left in the background.
    const after = liveSurfaceCount(outcome.state);
    if (suspended.length > 0) expect(after).toBe(Math.max(this.bound, liveSurfaceCount(before) - suspended.length));
    if (after > this.bound) for (const i of Object.values(outcome.state.instances)) expect(i.status === "backgrounded" && !busy.has(i.instance_id)).toBe(false);
    if (liveSurfaceCount(before) <= this.bound) expect(suspended).toEqual([]);
    // Least recently used first: each one suspended left the foreground no later than any idle one kept.
    const kept = Object.values(outcome.state.instances).filter((i) => i.status === "backgrounded" && !busy.has(i.instance_id));
    for (const id of suspended) for (const k of kept) expect(before.instances[id]!.since).toBeLessThanOrEqual(k.since);
    for (const id of suspended) m.status.set(id, "suspended");
    r.state = outcome.state;
    checkInvariants(m, r);
    expect(Object.values(r.state.instances).filter((i) => holdsSurface(i.status)).length).toBe(after);
  }
  toString = () => `bound(${this.bound},${this.busyMask})`;
}

/** The idle timer (spec 4.4): every idle background instance that left the front `idle` or more ago is suspended. */
class IdleCommand implements fc.Command<Model, Real> {
  constructor(readonly idle: number, readonly busyMask: number) {}
  check = () => true;
  run(m: Model, r: Real): void {
    const ids = [...m.status.keys()];
    const busy = new Set(ids.filter((_, i) => (this.busyMask >> i) & 1));
    const outcome = suspendIdle(r.state, { idle_ms: this.idle, busy, now: m.next });
    for (const [id, instance] of Object.entries(r.state.instances)) {
      const due = instance.status === "backgrounded" && !busy.has(id) && instance.since + this.idle <= m.next;
      expect(outcome.changes.some((c) => c.instance_id === id), `${id} due`).toBe(due);
      if (due) m.status.set(id, "suspended");
    }
    for (const c of outcome.changes) expect([c.from, c.to]).toEqual(["backgrounded", "suspended"]);
    r.state = outcome.state;
    checkInvariants(m, r);
  }
  toString = () => `idle(${this.idle},${this.busyMask})`;
}

/** A call with `restore_focus` ended on instance `index`, having displaced `displaced` (or nothing in front). */
class ReturnFocusCommand implements fc.Command<Model, Real> {
  constructor(readonly index: number, readonly displaced: number | null) {}
  check = () => true;
  run(m: Model, r: Real): void {
    const id = pick(m, this.index);
    if (id === undefined) return;
    const displaced = this.displaced === null ? undefined : pick(m, this.displaced);
    const result = returnFocus(r.state, id, displaced, m.next);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const top = m.stack[m.stack.length - 1];
    if (top === id) {
      if (displaced !== undefined && displaced !== id && LIVE(m.status.get(displaced))) modelExpect(m, "focus", displaced);
      else if (m.status.get(id) === "active") m.status.set(id, "backgrounded");
    } else {
      // The person moved elsewhere meanwhile: nothing changes.
      expect(result.value.changes).toEqual([]);
    }
    r.state = result.value.state;
    checkInvariants(m, r);
    if (top === id && result.value.changes.length > 0) expect(foregroundInstance(r.state)?.instance_id).not.toBe(id);
  }
  toString = () => `returnFocus(${this.index},${this.displaced})`;
}

class RestartCommand implements fc.Command<Model, Real> {
  constructor(readonly brokenApp: string | null) {}
  check = () => true;
  run(m: Model, r: Real): void {
    const snapshot = JSON.parse(JSON.stringify(snapshotInstances(r.state))) as ReturnType<typeof snapshotInstances>;
    const restored = restoreInstances(snapshot, m.next, (i) => i.app_scope !== this.brokenApp);
    const expectedStack = m.stack.filter((id) => LIVE(m.status.get(id)) && m.status.get(id) !== "launching" && m.app.get(id) !== this.brokenApp);
    for (const [id, status] of [...m.status]) {
      if (status === "closing" || (LIVE(status) && m.app.get(id) === this.brokenApp)) m.status.set(id, "closed");
      else if (status === "launching") m.status.set(id, "failed");
      else if (LIVE(status)) m.status.set(id, "suspended");
      else m.status.delete(id); // finished instances are not in the snapshot
    }
    m.stack = expectedStack;
    r.state = restored.state;
    expect(foregroundInstance(r.state)).toBeUndefined();
    checkInvariants(m, r);
  }
  toString = () => `restart(${this.brokenApp})`;
}

// 1,000 runs took 11 s on a busy 2-core machine and 50 s on one shared by eight test runs (the soak's 10,000: 171 s
// and 800 s): 120 ms a run leaves room.
const RUNS = soakSized(1_000, 10_000);

describe("RELIABILITY S1: lifecycle and focus stack, model-based", () => {
  it(`only legal transitions, ≤ 1 foreground, no closed/failed in the stack, the stack survives restart, suspend past the bound or when idle, restore, restore_focus (${RUNS} runs × ≥ 50 commands)`, () => {
    const opNames: Op[] = ["ready", "focus", "background", "suspend", "restore", "restored", "crash", "close", "closed"];
    const commands = [
      fc.tuple(fc.constantFrom(...APPS), fc.constantFrom("c1", "c2"), fc.boolean()).map(([a, c, f]) => new LaunchCommand(a, c, f)),
      fc.tuple(fc.constantFrom(...opNames), fc.nat(20)).map(([op, i]) => new OpCommand(op, i)),
      fc.tuple(fc.constantFrom(...opNames), fc.nat(20)).map(([op, i]) => new OpCommand(op, i)),
      fc.option(fc.constantFrom(...APPS), { nil: null }).map((b) => new RestartCommand(b)),
      fc.tuple(fc.integer({ min: 1, max: 4 }), fc.nat(255)).map(([b, busy]) => new BoundCommand(b, busy)),
      fc.tuple(fc.integer({ min: 0, max: 30 }), fc.nat(255)).map(([idle, busy]) => new IdleCommand(idle, busy)),
      fc.tuple(fc.nat(20), fc.option(fc.nat(20), { nil: null })).map(([i, d]) => new ReturnFocusCommand(i, d)),
    ];
    fc.assert(
      // fc.commands draws 0–100 commands; runs shorter than 50 are skipped, so every counted run has 50 or more.
      fc.property(fc.commands(commands, { size: "max", maxCommands: 100 }), (cmds) => {
        fc.pre([...cmds].length >= 50);
        fc.modelRun(() => ({ model: { status: new Map(), stack: [], next: 0, app: new Map() }, real: { state: EMPTY_INSTANCES } }), cmds);
      }),
      { numRuns: RUNS, seed: 0x5eed51, maxSkipsPerRun: 10 },
    );
  }, timeLimitFor(RUNS, 1_000, 120_000));
});
