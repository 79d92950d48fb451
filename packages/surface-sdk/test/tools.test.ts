import { createToolSchemaValidator, type ToolCallID } from "@lineup/protocol";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { checkAgentTools, connectSurface, defineAgentTools, lateBound, timedOperation, toolDescriptors, ToolFailure, type Surface } from "../src/index.js";
import { eventually, FakeHost } from "./fake-host.js";

const tools = defineAgentTools({
  "board.create": {
    title: "Create a board",
    description: "Creates a new board.",
    call_model: "command",
    activation_requirement: "app_ready",
    input_schema: { type: "object", properties: { title: { type: "string", minLength: 1 } }, required: ["title"], additionalProperties: false },
    output_schema: { type: "object" },
    handler: async (args: { title: string }) => ({ board_id: "b1", title: args.title }),
  },
  "board.fail": {
    input_schema: { type: "object" },
    output_schema: {},
    handler: () => {
      throw new ToolFailure("permission_denied", "not allowed here");
    },
  },
  "board.crash": {
    input_schema: { type: "object" },
    output_schema: {},
    handler: () => {
      throw new TypeError("cannot read x of undefined");
    },
  },
  "board.slow": {
    call_model: "command",
    input_schema: { type: "object" },
    output_schema: {},
    handler: async (_args, ctx) => {
      await ctx.progress({ stage: "working", progress: 0.5 });
      return { done: true };
    },
  },
  "board.export": {
    call_model: "operation",
    input_schema: { type: "object" },
    output_schema: {},
    handler: async (_args, ctx) => {
      await ctx.progress({ stage: "rendering", progress: 0.25 });
      await ctx.progress({ stage: "encoding", progress: 1.5 });
      return { ok: 1 };
    },
  },
  "board.wait": {
    input_schema: { type: "object" },
    output_schema: {},
    handler: (_args, ctx) =>
      new Promise((_resolve, reject) => {
        ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason));
      }),
  },
});

let host: FakeHost;
let surface: Surface;
beforeEach(async () => {
  host = new FakeHost();
  const connecting = connectSurface({ window: host.window, applyTheme: false, tools });
  host.handover();
  surface = await connecting;
  await surface.lifecycle.ready();
});
afterEach(() => {
  surface.disconnect();
  host.close();
});

describe("lateBound", () => {
  it("refuses with handler_failed until the app provides its value, and again once it is gone", () => {
    const live = lateBound<{ n: number }>("the counter");
    const failure = () => {
      try {
        live.get();
      } catch (error) {
        return error;
      }
      return undefined;
    };
    expect(failure()).toMatchObject({ name: "ToolFailure", code: "handler_failed", message: "the counter has not finished loading" });
    live.provide({ n: 1 });
    expect(live.get()).toEqual({ n: 1 });
    live.provide(undefined);
    expect(failure()).toBeInstanceOf(ToolFailure);
  });
});

describe("defineAgentTools", () => {
  it("emits the manifest's non-executable descriptors, with contract_version defaulting to 1", () => {
    const descriptors = toolDescriptors(tools);
    expect(descriptors.map((d) => d.method)).toEqual(["board.create", "board.fail", "board.crash", "board.slow", "board.export", "board.wait"]);
    expect(descriptors[0]).toEqual({
      method: "board.create",
      contract_version: "1",
      title: "Create a board",
      description: "Creates a new board.",
      call_model: "command",
      activation_requirement: "app_ready",
      input_schema: { type: "object", properties: { title: { type: "string", minLength: 1 } }, required: ["title"], additionalProperties: false },
      output_schema: { type: "object" },
    });
    expect(JSON.parse(JSON.stringify(descriptors))).toEqual(descriptors);
  });

  it("refuses a tool whose schema is broken when checked as the build checks it", () => {
    expect(() => checkAgentTools(defineAgentTools({ "a.b": { input_schema: { type: "array" }, output_schema: {}, handler: () => null } }))).toThrow(/manifest_invalid_tool_schema/);
    expect(() => checkAgentTools(defineAgentTools({ Bad: { input_schema: { type: "object" }, output_schema: {}, handler: () => null } }))).toThrow(/manifest_invalid/);
    expect(() => checkAgentTools(defineAgentTools({ "a.b": { input_schema: { type: "object" }, output_schema: {}, handler: () => null } }))).not.toThrow();
  });
});

describe("tool.invoke dispatch", () => {
  it("validates arguments, runs the handler and answers its result in the response", async () => {
    const outcome = await host.invoke({ call_id: "c1", method: "board.create", arguments: { title: "Plan" } });
    expect(outcome).toEqual({ outcome: "completed", result: { board_id: "b1", title: "Plan" } });
  });

  it("the arguments are checked where the Runtime checks them: the generated input_schema refuses bad ones with a path", async () => {
    // The page carries no schema interpreter; the Runtime validates each call against the installed
    // descriptor (the one the build emits) with createToolSchemaValidator before the page sees it.
    const descriptor = toolDescriptors(tools).find((d) => d.method === "board.create")!;
    const validator = createToolSchemaValidator(descriptor.input_schema, { code: "invalid_arguments" });
    if (!validator.ok) throw new Error(validator.error.message);
    expect(validator.value({ title: 3 })).toMatchObject({ ok: false, error: { code: "invalid_arguments", path: "/title" } });
    expect(validator.value({})).toMatchObject({ ok: false, error: { code: "invalid_arguments" } });
    expect(validator.value({ title: "Plan" })).toMatchObject({ ok: true });
    expect(await host.invoke({ call_id: "c2", method: "board.create", arguments: { title: "Plan" } })).toEqual({ outcome: "completed", result: { board_id: "b1", title: "Plan" } });
  });

  it("a thrown ToolFailure is a typed failure; anything else is handler_failed", async () => {
    expect(await host.invoke({ call_id: "c4", method: "board.fail", arguments: {} })).toEqual({ outcome: "failed", code: "permission_denied", message: "not allowed here" });
    const crash = await host.invoke({ call_id: "c5", method: "board.crash", arguments: {} });
    expect(crash).toMatchObject({ outcome: "failed", code: "handler_failed" });
  });

  it("an unknown method or another contract version is refused without running anything", async () => {
    expect(await host.invoke({ call_id: "c6", method: "board.nope", arguments: {} })).toMatchObject({ outcome: "failed", code: "handler_failed" });
    expect(await host.invoke({ call_id: "c7", method: "board.create", contract_version: "2", arguments: { title: "x" } })).toMatchObject({ outcome: "failed", code: "invalid_arguments" });
  });

  it("progress turns the call pending, then exactly one tool.complete follows", async () => {
    const completed = host.nextRequest("tool.complete");
    expect(await host.invoke({ call_id: "c8", method: "board.slow", arguments: {} })).toEqual({ outcome: "pending" });
    expect((await completed).params).toEqual({ call_id: "c8", result: { done: true } });
    expect(host.trace.filter((t) => t.startsWith("response") || t.startsWith("request tool."))).toEqual(["response 1000", "request tool.progress", "request tool.complete"]);
    expect(host.requestsOf("tool.progress").map((r) => r.params)).toEqual([{ call_id: "c8", progress: { stage: "working", progress: 0.5 } }]);
  });

  it("an operation is pending at once and reports clamped progress before its result", async () => {
    const completed = host.nextRequest("tool.complete");
    expect(await host.invoke({ call_id: "c9", method: "board.export", arguments: {} })).toEqual({ outcome: "pending" });
    await completed;
    expect(host.requestsOf("tool.progress").map((r) => (r.params as { progress: { progress: number } }).progress.progress)).toEqual([0.25, 1]);
    // The host hears `pending` before any report for the call.
    expect(host.trace.filter((t) => t.startsWith("response") || t.startsWith("request tool."))).toEqual(["response 1000", "request tool.progress", "request tool.progress", "request tool.complete"]);
  });

  it("a pending call whose handler fails ends with tool.fail", async () => {
    const failing = defineAgentTools({
      "x.fail_later": {
        call_model: "operation",
        input_schema: { type: "object" },
        output_schema: {},
        handler: async () => {
          throw new ToolFailure("operation_expired", "too slow");
        },
      },
    });
    surface.tools.serve(failing);
    const failed = host.nextRequest("tool.fail");
    expect(await host.invoke({ call_id: "c10", method: "x.fail_later", arguments: {} })).toEqual({ outcome: "pending" });
    expect((await failed).params).toEqual({ call_id: "c10", code: "operation_expired", message: "too slow" });
  });

  it("after tool.cancelled the handler is aborted and nothing more is sent for the call", async () => {
    const pendingCall = host.invoke({ call_id: "c11", method: "board.wait", arguments: {} });
    host.event("tool.cancelled", { call_id: "c11" as ToolCallID, reason: "user changed their mind" });
    expect(await pendingCall).toMatchObject({ outcome: "failed", code: "cancelled_by_user" });
    await eventually(() => expect(host.requestsOf("tool.fail")).toHaveLength(0));
    expect(host.requestsOf("tool.complete")).toHaveLength(0);
  });

  it("an operation handler that returns timedOperation(ms) at once hands the call to the Runtime: { duration_ms }, and nothing more from the app", async () => {
    const timer = defineAgentTools({
      "timer.start": {
        call_model: "operation",
        input_schema: { type: "object", properties: { minutes: { type: "integer", minimum: 1 } }, required: ["minutes"] },
        output_schema: { type: "object" },
        handler: (args: { minutes: number }) => timedOperation(args.minutes * 60_000),
      },
      "timer.late": {
        call_model: "operation",
        input_schema: { type: "object" },
        output_schema: { type: "object" },
        // Through a promise it is too late to be a timed operation: the call fails, and says why.
        handler: async () => timedOperation(1_000),
      },
      "timer.command": {
        call_model: "command",
        input_schema: { type: "object" },
        output_schema: { type: "object" },
        handler: () => timedOperation(1_000),
      },
    });
    surface.tools.serve(timer);
    expect(await host.invoke({ call_id: "t1", method: "timer.start", arguments: { minutes: 25 } })).toEqual({ outcome: "completed", result: { duration_ms: 1_500_000 } });
    const failed = host.nextRequest("tool.fail");
    expect(await host.invoke({ call_id: "t2", method: "timer.late", arguments: {} })).toEqual({ outcome: "pending" });
    expect((await failed).params).toMatchObject({ call_id: "t2", code: "handler_failed", message: expect.stringContaining("at once") as unknown });
    expect(await host.invoke({ call_id: "t3", method: "timer.command", arguments: {} })).toMatchObject({ outcome: "failed", code: "handler_failed" });
    expect(host.requestsOf("tool.complete")).toEqual([]);
    expect(() => timedOperation(0)).toThrow(RangeError);
    expect(() => timedOperation(1.5)).toThrow(RangeError);
    expect(() => timedOperation(86_400_001)).toThrow(RangeError);
  });

  it("operations.interrupt asks the host to end the app's Runtime-owned operations, with a reason of at most 200 characters", async () => {
    host.on("operation.interrupt", () => ({}));
    await surface.operations.interrupt("stopped by the user");
    await surface.operations.interrupt();
    await surface.operations.interrupt("x".repeat(300));
    expect(host.requestsOf("operation.interrupt").map((r) => r.params)).toEqual([{ reason: "stopped by the user" }, {}, { reason: "x".repeat(200) }]);
  });

  it("a deadline aborts the handler and fails the call with operation_expired", async () => {
    const outcome = await host.invoke({ call_id: "c12", method: "board.wait", arguments: {}, deadline_ms: 20 });
    expect(outcome).toMatchObject({ outcome: "failed", code: "operation_expired" });
  });
});
