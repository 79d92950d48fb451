/**
 * `defineAgentTools(...)` (spec 7.1, 9): an app declares its agent tools in code — descriptor,
 * schemas and handler side by side — and the build emits the manifest's `tools` from the same
 * object (`toolDescriptors`), so nobody maintains a second, hand-written tool file. The manifest
 * keeps only the non-executable public contract; the method → handler map stays in the bundle.
 *
 * A tool's descriptor and schemas are checked by the build (`checkAgentTools`), so a broken schema
 * fails the build, not a call. The page carries no schema interpreter: the Runtime checks every
 * call's arguments against the installed `input_schema` before the call reaches the page.
 */
import { validateToolDescriptor, type JsonObject, type JsonValue, type ToolDescriptor } from "@lineup/protocol";

/** What a handler gets besides its arguments. */
export interface ToolContext {
  readonly call_id: string;
  readonly method: string;
  /** Aborted when the agent cancels the call (`tool.cancelled`), its deadline passes, or the app closes. */
  readonly signal: AbortSignal;
  /** Milliseconds the Runtime gave the call, when it said. */
  readonly deadline_ms?: number;
  /**
   * Reports progress (a replayable protocol fact, not checked against the output schema). The
   * first report turns the call `pending`; the result then follows as `tool.complete`.
   */
  progress(progress: ToolProgress): Promise<void>;
}

export interface ToolProgress {
  readonly stage?: string;
  /** 0 … 1. */
  readonly progress?: number;
  readonly message?: string;
  readonly data?: JsonValue;
}

/** The descriptor fields an app writes; `method` is the key it is declared under. */
export type AgentToolDescriptorFields = Omit<ToolDescriptor, "method" | "contract_version"> & {
  /** Default `"1"`. */
  readonly contract_version?: string;
};

export interface AgentToolDefinition<Args extends JsonObject = JsonObject, Result extends JsonValue = JsonValue> extends AgentToolDescriptorFields {
  /**
   * Runs one call with arguments the Runtime has checked against `input_schema`. Its return value is the
   * call's one result; a thrown `ToolFailure` its typed failure; anything else thrown is
   * `handler_failed`. (Declared as a method so a handler may annotate a narrower `args` type.)
   * An `operation` tool's handler may instead return `timedOperation(ms)` at once (not through a
   * promise): the Runtime then runs a timed operation whose expiry, interruption and one result are its own.
   */
  handler(args: Args, ctx: ToolContext): Promise<Result> | Result | TimedOperation;
}

export const TIMED_OPERATION: unique symbol = Symbol.for("lineup.surface-sdk.timed-operation");

/** The answer that hands a call to a Runtime-owned timed operation (spec 6.3, the pomodoro example). */
export interface TimedOperation {
  readonly [TIMED_OPERATION]: true;
  readonly duration_ms: number;
}

/** The longest timed operation the Runtime runs: one day. */
export const MAX_TIMED_OPERATION_MS = 86_400_000;

/**
 * What an `operation` tool's handler returns to have the Runtime run the call as a timed operation of
 * `durationMs` (a whole number of milliseconds, 1 … one day): the Runtime reports `started`, and ends
 * the call with its one result when the time is up or the operation is interrupted. The app only shows it.
 */
export function timedOperation(durationMs: number): TimedOperation {
  if (!Number.isInteger(durationMs) || durationMs < 1 || durationMs > MAX_TIMED_OPERATION_MS) {
    throw new RangeError(`a timed operation lasts 1 … ${MAX_TIMED_OPERATION_MS} whole milliseconds, not ${durationMs}`);
  }
  return Object.freeze({ [TIMED_OPERATION]: true as const, duration_ms: durationMs });
}

export function isTimedOperation(value: unknown): value is TimedOperation {
  return typeof value === "object" && value !== null && (value as { [TIMED_OPERATION]?: unknown })[TIMED_OPERATION] === true;
}

/** A declared tool, ready to serve. */
export interface AgentTool {
  readonly descriptor: ToolDescriptor;
  readonly handler: (args: JsonObject, ctx: ToolContext) => Promise<JsonValue> | JsonValue | TimedOperation;
}

export const AGENT_TOOLS: unique symbol = Symbol.for("lineup.surface-sdk.agent-tools");

/** The result of `defineAgentTools`: method → tool. Recognised across module copies by a registered symbol. */
export interface AgentTools {
  readonly [AGENT_TOOLS]: true;
  readonly tools: ReadonlyMap<string, AgentTool>;
}

/** Keys of the descriptor in the order the manifest writes them. */
const DESCRIPTOR_KEYS = [
  "title",
  "description",
  "call_model",
  "handling",
  "delivery",
  "activation_requirement",
  "launch_policy",
  "entrypoint",
  "requires_foreground",
  "restore_focus",
  "timeout_ms",
  "idempotent",
  "risk_level",
  "capabilities",
  "input_schema",
  "output_schema",
] as const;

function descriptorOf(method: string, definition: AgentToolDescriptorFields): ToolDescriptor {
  const descriptor: Record<string, unknown> = { method, contract_version: definition.contract_version ?? "1" };
  for (const key of DESCRIPTOR_KEYS) {
    const value = definition[key];
    if (value !== undefined) descriptor[key] = value;
  }
  return descriptor as ToolDescriptor;
}

/**
 * Declares an app's agent tools. The descriptors and their schemas are checked where they are
 * accepted, not on the app's page: the build (`checkAgentTools`, then the whole manifest) and the
 * Runtime's install refuse a broken one. The Runtime checks every call's arguments against
 * `input_schema` before the page sees them (`invalid_arguments`), and it is the only party on the
 * page's port, so the page does not check them again: as with the other bodies the host writes
 * (docs/protocol.md), the host is the party that checks, and a schema interpreter would be most of
 * the SDK's weight in every app.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each tool narrows its own argument and result types
export function defineAgentTools(definitions: Readonly<Record<string, AgentToolDefinition<any, any>>>): AgentTools {
  const tools = new Map<string, AgentTool>();
  for (const [method, definition] of Object.entries(definitions)) {
    const handler = definition.handler.bind(definition) as AgentTool["handler"];
    tools.set(method, { descriptor: descriptorOf(method, definition), handler });
  }
  return { [AGENT_TOOLS]: true, tools };
}

export function isAgentTools(value: unknown): value is AgentTools {
  return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[AGENT_TOOLS] === true;
}

/** The manifest's `tools` array: the non-executable descriptors, in declaration order. */
export function toolDescriptors(tools: AgentTools): ToolDescriptor[] {
  return [...tools.tools.values()].map((tool) => structuredClone(tool.descriptor));
}

/**
 * Checks every descriptor of `tools` and its schemas as the Runtime's install will (the build runs
 * it on the app's tools module). Throws with the tool, the protocol's code and the path.
 */
export function checkAgentTools(tools: AgentTools): void {
  for (const [method, tool] of tools.tools) {
    const checked = validateToolDescriptor(tool.descriptor);
    if (!checked.ok) throw new Error(`tool ${method}: ${checked.error.code} at ${checked.error.path ?? ""}: ${checked.error.message}`);
  }
}
