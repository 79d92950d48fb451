/**
 * The conversation for an MCP client (docs/mcp.md): three tools beside the inventory's, so that an MCP
 * client alone holds the whole conversation.
 *
 * - `lineup.next_message` waits for the person's next turn in the session (a message they wrote, or an
 *   app's task) and returns it; after `timeout_ms` without one it returns `status: "none"`, and the client
 *   asks again. Turns are handed over once each, in order; a turn the person stopped before it was taken
 *   is not handed over.
 * - `lineup.reply` says something in the chat (Markdown by default, or plain text) and, unless
 *   `end_turn` is false, completes the turn (an app's task with its `output`).
 * - `lineup.ask` puts a choice, confirm or input card in the chat and waits for the person's answer;
 *   after `timeout_ms` it returns `status: "pending"` with the card's `interaction_id`, and
 *   `lineup.ask { interaction_id }` waits again.
 *
 * They go through the agent SDK's own calls (`onTurn`, `send`, `completeTurn`, `awaitInteraction`), so
 * what the person sees is what any LineUp agent makes.
 */
import { LineUpError, type JsonObject, type JsonValue } from "@lineup/protocol";
import type { AgentClient, IncomingTurn, InteractionAnswer, OutgoingMessage } from "@lineup/agent-sdk";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";

export const NEXT_MESSAGE_TOOL = "lineup.next_message";
export const REPLY_TOOL = "lineup.reply";
export const ASK_TOOL = "lineup.ask";
export const CONVERSATION_TOOL_NAMES: ReadonlySet<string> = new Set([NEXT_MESSAGE_TOOL, REPLY_TOOL, ASK_TOOL]);

/** How long a waiting tool waits when the client does not say: below the MCP SDK client's default 60 s request timeout. */
export const DEFAULT_WAIT_MS = 50_000;
const MAX_WAIT_MS = 600_000;

const waitMs = { type: "integer", minimum: 0, maximum: MAX_WAIT_MS, description: `How long to wait, in ms (default ${DEFAULT_WAIT_MS}).` };
const option = { type: "object", properties: { id: { type: "string" }, label: { type: "string" }, description: { type: "string" } }, required: ["id", "label"] };
const answer = {
  type: "object" as const,
  properties: {
    status: { enum: ["answered", "cancelled", "pending"] },
    interaction_id: { type: "string" },
    choice_ids: { type: "array", items: { type: "string" } },
    confirmed: { type: "boolean" },
    text: { type: "string" },
    data: {},
  },
  required: ["status", "interaction_id"],
};

export const CONVERSATION_TOOLS: readonly Tool[] = [
  {
    name: NEXT_MESSAGE_TOOL,
    title: "Next message",
    description: "Waits for the person's next message in the LineUp conversation and returns it. Answer it with lineup.reply (and lineup.ask for a question); status \"none\" means nothing came within timeout_ms: call again.",
    inputSchema: { type: "object", properties: { timeout_ms: waitMs }, additionalProperties: false },
    outputSchema: {
      type: "object",
      properties: {
        status: { enum: ["message", "none"] },
        session_id: { type: "string" },
        turn_id: { type: "string" },
        text: { type: "string" },
        input: { type: "object", description: "The whole turn input: text, structured content, attachments." },
        task: { type: "object", description: "Set when an app asked for this work: its app scope and the output schema lineup.reply's output must match." },
      },
      required: ["status"],
    },
    annotations: { title: "Next message", readOnlyHint: true, idempotentHint: false, openWorldHint: true },
  },
  {
    name: REPLY_TOOL,
    title: "Reply",
    description: "Says something to the person in the LineUp chat and, unless end_turn is false, ends the current turn. For an app's task, pass its result as output.",
    inputSchema: {
      type: "object",
      properties: {
        text: { type: "string", maxLength: 65_536 },
        format: { enum: ["markdown", "text"], description: "Default markdown." },
        end_turn: { type: "boolean", description: "Default true: the turn is complete after this reply." },
        turn_id: { type: "string", description: "Default: the turn lineup.next_message returned last." },
        output: { description: "The structured result of an app's task (checked against its output schema)." },
      },
      additionalProperties: false,
    },
    outputSchema: { type: "object", properties: { envelope_id: { type: "string" }, turn_id: { type: "string" }, turn_state: { type: "string" } } },
    annotations: { title: "Reply", readOnlyHint: false, idempotentHint: false, destructiveHint: false, openWorldHint: true },
  },
  {
    name: ASK_TOOL,
    title: "Ask",
    description: "Asks the person with a card in the LineUp chat — choice (options), confirm (yes/no) or input (free text) — and waits for the answer. Status \"pending\" means no answer within timeout_ms: call again with the interaction_id alone.",
    inputSchema: {
      type: "object",
      properties: {
        kind: { enum: ["choice", "confirm", "input"] },
        prompt: { type: "string", minLength: 1, maxLength: 4_000 },
        options: { type: "array", items: option, minItems: 1, maxItems: 20 },
        multiple: { type: "boolean" },
        confirm_label: { type: "string" },
        cancel_label: { type: "string" },
        placeholder: { type: "string" },
        multiline: { type: "boolean" },
        max_length: { type: "integer", minimum: 1 },
        interaction_id: { type: "string", description: "Wait again for the answer to a card already asked." },
        timeout_ms: waitMs,
      },
      additionalProperties: false,
    },
    outputSchema: answer,
    annotations: { title: "Ask", readOnlyHint: false, idempotentHint: false, destructiveHint: false, openWorldHint: true },
  },
];

/** The running turns of one session, handed to the client once each, in order. */
export class TurnInbox {
  private readonly queue: IncomingTurn[] = [];
  private readonly waiting = new Set<() => void>();
  private readonly open = new Map<string, IncomingTurn>();
  private latest: string | undefined;

  push(turn: IncomingTurn): void {
    this.queue.push(turn);
    for (const wake of [...this.waiting]) wake();
  }

  /** The next turn still running, or undefined after `timeoutMs`; rejects `request_cancelled` when `signal` aborts. */
  async next(signal: AbortSignal, timeoutMs: number): Promise<IncomingTurn | undefined> {
    for (;;) {
      const turn = this.take();
      if (turn !== undefined) return turn;
      if (signal.aborted) throw new LineUpError("request_cancelled", "stopped waiting for the next message");
      const woken = await new Promise<boolean>((resolve) => {
        const finish = (value: boolean): void => {
          clearTimeout(timer);
          signal.removeEventListener("abort", abort);
          this.waiting.delete(wake);
          resolve(value);
        };
        const wake = (): void => finish(true);
        const abort = (): void => finish(true);
        const timer = setTimeout(() => finish(false), timeoutMs);
        this.waiting.add(wake);
        signal.addEventListener("abort", abort, { once: true });
      });
      if (!woken) return this.take();
    }
  }

  private take(): IncomingTurn | undefined {
    for (let turn = this.queue.shift(); turn !== undefined; turn = this.queue.shift()) {
      if (turn.signal.aborted) continue; // stopped by the person before anyone took it
      this.open.set(turn.turnId, turn);
      this.latest = turn.turnId;
      turn.signal.addEventListener("abort", () => this.open.delete(turn.turnId), { once: true });
      return turn;
    }
    return undefined;
  }

  /** The turn a reply is for: the one named, else the one handed out last, while it runs. */
  current(turnId?: string): IncomingTurn | undefined {
    return this.open.get(turnId ?? this.latest ?? "");
  }

  ended(turnId: string): void {
    this.open.delete(turnId);
  }

  /** The signal of the turn a tool call belongs to: the one handed out last, while it runs. */
  currentSignal(): AbortSignal | undefined {
    return this.current()?.signal;
  }
}

function argument<T>(args: JsonObject, key: string, check: (value: unknown) => value is T, what: string): T | undefined {
  const value = args[key];
  if (value === undefined) return undefined;
  if (!check(value)) throw new LineUpError("invalid_arguments", `${key} must be ${what}`, { path: `/${key}` });
  return value;
}
const isString = (v: unknown): v is string => typeof v === "string";
const isBoolean = (v: unknown): v is boolean => typeof v === "boolean";
const isWait = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v) && v >= 0 && v <= MAX_WAIT_MS;
const isPositive = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v) && v > 0;
const isOptions = (v: unknown): v is { id: string; label: string; description?: string }[] =>
  Array.isArray(v) && v.length > 0 && v.length <= 20 && v.every((o: unknown) => o !== null && typeof o === "object" && typeof (o as { id?: unknown }).id === "string" && typeof (o as { label?: unknown }).label === "string");

function result(structured: JsonObject, text: string): CallToolResult {
  return { structuredContent: structured, content: [{ type: "text", text }] };
}

function answerResult(interactionId: string, answered: InteractionAnswer | undefined): CallToolResult {
  if (answered === undefined) return result({ status: "pending", interaction_id: interactionId }, `No answer yet to ${interactionId}; call lineup.ask with {"interaction_id": "${interactionId}"} to wait again.`);
  const structured: JsonObject = {
    status: answered.outcome,
    interaction_id: interactionId,
    ...(answered.choiceIds === undefined ? {} : { choice_ids: [...answered.choiceIds] }),
    ...(answered.confirmed === undefined ? {} : { confirmed: answered.confirmed }),
    ...(answered.text === undefined ? {} : { text: answered.text }),
    ...(answered.data === undefined ? {} : { data: answered.data }),
  };
  return result(structured, JSON.stringify(structured));
}

/** Runs a conversation tool for the session. */
export async function callConversationTool(
  name: string,
  args: JsonObject,
  context: { readonly client: AgentClient; readonly sessionId: () => Promise<string>; readonly inbox: TurnInbox; readonly signal: AbortSignal },
): Promise<CallToolResult> {
  const { client, inbox, signal } = context;
  const timeoutMs = argument(args, "timeout_ms", isWait, `an integer 0–${MAX_WAIT_MS}`) ?? DEFAULT_WAIT_MS;
  if (name === NEXT_MESSAGE_TOOL) {
    const sessionId = await context.sessionId();
    const turn = await inbox.next(signal, timeoutMs);
    if (turn === undefined) return result({ status: "none" }, "No message yet; call lineup.next_message again to keep waiting.");
    const structured: JsonObject = {
      status: "message",
      session_id: sessionId,
      turn_id: turn.turnId,
      text: turn.text,
      input: turn.input as unknown as JsonObject,
      ...(turn.task === undefined ? {} : { task: turn.task as unknown as JsonObject }),
    };
    return result(structured, turn.task === undefined ? turn.text : `${turn.task.provenance.app_scope} asks: ${turn.text}`);
  }
  const sessionId = await context.sessionId();
  if (name === REPLY_TOOL) {
    const text = argument(args, "text", isString, "a string");
    const format = argument(args, "format", (v): v is "markdown" | "text" => v === "markdown" || v === "text", `"markdown" or "text"`) ?? "markdown";
    const endTurn = argument(args, "end_turn", isBoolean, "a boolean") ?? true;
    const turnId = argument(args, "turn_id", isString, "a string");
    const output = args["output"] as JsonValue | undefined;
    const turn = inbox.current(turnId);
    if (turnId !== undefined && turn === undefined) throw new LineUpError("invalid_state", `turn ${turnId} is not running`);
    if (text === undefined && !(endTurn && turn !== undefined)) throw new LineUpError("invalid_arguments", "give the text to say, or end a running turn", { path: "/text" });
    const sent = text === undefined ? undefined : await client.send(sessionId, { kind: format, text }, { signal });
    let turnState: string | undefined;
    if (endTurn && turn !== undefined) {
      const completed = await client.completeTurn(sessionId, turn.turnId, { ...(text === undefined ? {} : { text }), ...(output === undefined ? {} : { output }) });
      inbox.ended(turn.turnId);
      turnState = completed.state;
    }
    const structured: JsonObject = {
      ...(sent === undefined ? {} : { envelope_id: sent.envelopeId }),
      ...(turn === undefined ? {} : { turn_id: turn.turnId }),
      ...(turnState === undefined ? {} : { turn_state: turnState }),
    };
    return result(structured, turnState === undefined ? "Said." : `Said; turn ${turn!.turnId} ${turnState}.`);
  }
  if (name === ASK_TOOL) {
    const again = argument(args, "interaction_id", isString, "a string");
    let interactionId: string;
    if (again !== undefined) interactionId = again;
    else {
      const kind = args["kind"];
      const prompt = argument(args, "prompt", isString, "a string");
      if (prompt === undefined || prompt === "") throw new LineUpError("invalid_arguments", "prompt is required", { path: "/prompt" });
      let message: OutgoingMessage;
      if (kind === "choice") {
        const options = argument(args, "options", isOptions, "1–20 options, each with an id and a label");
        if (options === undefined) throw new LineUpError("invalid_arguments", "a choice needs options", { path: "/options" });
        const multiple = argument(args, "multiple", isBoolean, "a boolean");
        message = { kind, prompt, options, ...(multiple === undefined ? {} : { multiple }) };
      } else if (kind === "confirm") {
        const confirmLabel = argument(args, "confirm_label", isString, "a string");
        const cancelLabel = argument(args, "cancel_label", isString, "a string");
        message = { kind, prompt, ...(confirmLabel === undefined ? {} : { confirmLabel }), ...(cancelLabel === undefined ? {} : { cancelLabel }) };
      } else if (kind === "input") {
        const placeholder = argument(args, "placeholder", isString, "a string");
        const multiline = argument(args, "multiline", isBoolean, "a boolean");
        const maxLength = argument(args, "max_length", isPositive, "a positive integer");
        message = { kind, prompt, ...(placeholder === undefined ? {} : { placeholder }), ...(multiline === undefined ? {} : { multiline }), ...(maxLength === undefined ? {} : { maxLength }) };
      } else throw new LineUpError("invalid_arguments", `kind must be "choice", "confirm" or "input"`, { path: "/kind" });
      const sent = await client.send(sessionId, message, { signal });
      interactionId = sent.interactionId!;
    }
    try {
      return answerResult(interactionId, await client.awaitInteraction(sessionId, interactionId, { signal, timeoutMs }));
    } catch (error) {
      if (error instanceof LineUpError && error.code === "expired" && !signal.aborted) return answerResult(interactionId, undefined);
      throw error;
    }
  }
  throw new LineUpError("tool_not_visible", `no conversation tool ${name}`);
}
