/**
 * The LLM adapter: an agent backed by any OpenAI-compatible chat-completions endpoint.
 *
 * For each turn it sends the session's conversation (earlier user inputs and agent messages, then
 * this turn's input) with the session's current inventory offered as function tools. Each tool
 * call the model makes is relayed through `invokeTool` (carrying the inventory revision) and its
 * result — or its typed refusal — goes back to the model as the tool message; the loop ends with
 * the model's text, sent as a Markdown message and recorded as the turn's text.
 *
 * The model's text streams: as it arrives it is sent as the turn's `text_delta`s, batched
 * (`turn-text.ts`), so the chat shows it growing; the final message then replaces that draft. Text a
 * model writes before it calls a tool is part of the draft (a paragraph of its own) but not of the
 * final message, exactly as without streaming.
 *
 * A process restarted in the middle of a turn is handed the turn again. It does not ask the model to
 * start over (the model could call the same tools again: a second pomodoro): the calls it already made
 * in the turn are in the log, and the model is shown them as its own, with the results the log holds, or
 * the ones still to come; it goes on from there. Once it has replied, it is not asked again.
 *
 * A model that is unreachable or misbehaves gets the user a short explanation, not a failed turn.
 *
 * A turn an app asked for (an in-app agent task, `turn.task`) is no chat: the model is told which app asked and
 * with what (`llm/task-answer.ts`), offered only the tools the task requested, and asked for structured output
 * (`response_format` with the task's output schema). Its final answer must be JSON matching the schema: one that
 * is not is refused and the model asked again once, with the reason; then the turn fails `invalid_result`. A
 * model that cannot be reached fails the task's turn with its code. No chat message is sent for a task: the
 * turn completes with the output, and the app shows it.
 */
import { LineUpError, decodeJson, type ErrorCode, type JsonObject, type JsonValue } from "@lineup/protocol";
import { findTool, type AgentClient, type IncomingTurn } from "./agent-client.js";
import type { DiagnosticsSink } from "./lifecycle.js";
import { createChatCompletions, type ChatCompletions, type ChatCompletionsConfig, type ChatMessage, type ResponseFormat } from "./llm/chat-completions.js";
import { functionName, toFunctionTools, type FunctionToolSet } from "./llm/function-tools.js";
import { TASK_SYSTEM_PROMPT, parseTaskAnswer, refusalMessage, responseFormatFor, taskRequestMessage } from "./llm/task-answer.js";
import { toolsForTurn, type TaskTurn } from "./task-turns.js";
import { followCall, resumeDetachedCalls } from "./detached-calls.js";
import { endEnvelopeId, loggedOutcome, type LoggedToolCall } from "./session-state.js";
import { timedOperationStarted } from "./tool-calls.js";
import { alsoDisposing, serveTurns, type TurnRunner } from "./turn-runner.js";
import { streamTurnText, type TurnText } from "./turn-text.js";

export interface LlmAgentOptions {
  /** The endpoint's configuration (see `llmConfigFromEnv`) or a ready client. */
  readonly llm: ChatCompletionsConfig | ChatCompletions;
  readonly systemPrompt?: string;
  /** Most model calls per turn (each tool round is one). Default 8. */
  readonly maxSteps?: number;
  /** Most earlier conversation entries sent with a turn. Default 40. */
  readonly historyLimit?: number;
  /** Local deadline of each tool call; default the tool's own timeout. */
  readonly toolTimeoutMs?: number;
  /** Least time between two streamed text updates of a turn, ms (`streamTurnText`). Default 80. */
  readonly textIntervalMs?: number;
  readonly diagnostics?: DiagnosticsSink;
}

export type LlmAgent = TurnRunner;

export const DEFAULT_SYSTEM_PROMPT = [
  "You are an assistant inside LineUp, where people and AI agents work together through apps.",
  "Reply in concise Markdown.",
  "The functions you are offered are tools of the apps installed in this conversation (a whiteboard, a draw-and-guess game, a pomodoro timer, a voice recorder, …).",
  "Call one when the user asks for what it does; its result or error comes back to you. If a tool you need is missing, say which app to install from the App Registry.",
].join(" ");

function isChatCompletions(value: ChatCompletionsConfig | ChatCompletions): value is ChatCompletions {
  return typeof (value as ChatCompletions).complete === "function";
}

/** Starts the LLM agent on a connected client. */
export function runLlmAgent(client: AgentClient, options: LlmAgentOptions): LlmAgent {
  const llm = isChatCompletions(options.llm) ? options.llm : createChatCompletions(options.llm);
  const runner = serveTurns(client, (turn) => handleTurn(client, llm, turn, options), options.diagnostics);
  // A timer that outlived its turn while this process was away: its end is told.
  const resumed = resumeDetachedCalls(client, (sessionId, call) => resumeOperation(client, llm, sessionId, call, options));
  return alsoDisposing(runner, () => resumed.dispose());
}

/** Follows again a timed operation of this agent that outlived its turn, and tells its end. */
function resumeOperation(client: AgentClient, llm: ChatCompletions, sessionId: string, call: LoggedToolCall, options: LlmAgentOptions): void {
  const tool = findTool(client.inventory(sessionId)?.tools ?? [], call.method, call.appScope) ?? { app_scope: call.appScope, method: call.method, title: call.method };
  const handle = client.invokeTool(sessionId, call.method, call.arguments, { appScope: call.appScope, callId: call.callId });
  const telling = tellOperationEnd(client, llm, sessionId, call.callId, tool, handle.progress[Symbol.asyncIterator](), handle.result, options).catch((error: unknown) =>
    options.diagnostics?.({ kind: "agent_error", message: `the end of ${call.appScope}/${call.method} was not told`, error }),
  );
  followCall(client, sessionId, call.callId, telling);
}

/** Transcript entries as chat messages. The device's notices (what the agent sent that went nowhere) reach the model as system lines where they happened. */
function transcriptMessages(entries: ReturnType<AgentClient["transcript"]>): ChatMessage[] {
  return entries.map((e): ChatMessage => (e.role === "user" ? { role: "user", content: e.text } : e.role === "runtime" ? { role: "system", content: `LineUp on the user's device: ${e.text}` } : { role: "assistant", content: e.text }));
}

/** The conversation before `turn` as chat messages: its last `limit` entries. */
function earlierMessages(client: AgentClient, turn: IncomingTurn, limit: number): ChatMessage[] {
  return transcriptMessages(client.transcript(turn.sessionId).filter((e) => e.seq < turn.turn.started_seq).slice(-limit));
}

/** The conversation so far as chat messages, ending with this turn's input. */
export function historyFor(client: AgentClient, turn: IncomingTurn, limit: number): ChatMessage[] {
  const earlier = earlierMessages(client, turn, limit);
  const input = turn.text !== "" ? turn.text : JSON.stringify(turn.input.content ?? {});
  return [...earlier, { role: "user", content: input }];
}

/**
 * The reply this agent already sent in `turn`, if any: a process restarted after replying and before
 * completing the turn is handed the turn again, and must not ask the model (and call its tools) again.
 */
function sentReply(client: AgentClient, turn: IncomingTurn): string | undefined {
  return client
    .transcript(turn.sessionId)
    .filter((e) => e.role === "agent" && e.seq > turn.turn.started_seq)
    .at(-1)?.text;
}

async function handleTurn(client: AgentClient, llm: ChatCompletions, turn: IncomingTurn, options: LlmAgentOptions): Promise<boolean> {
  const { sessionId, turnId } = turn;
  const streamed = streamTurnText(client, sessionId, turnId, turn.signal, { ...(options.textIntervalMs === undefined ? {} : { intervalMs: options.textIntervalMs }), ...(options.diagnostics === undefined ? {} : { diagnostics: options.diagnostics }) });
  try {
    if (turn.task !== undefined) {
      await client.updateTurn(sessionId, turnId, { status: "thinking" });
      const output = await answerTask(client, llm, turn, turn.task, options, streamed);
      if (turn.signal.aborted) return false;
      await streamed.flush();
      if (turn.signal.aborted) return false;
      await client.completeTurn(sessionId, turnId, { output });
      return true;
    }
    const replied = sentReply(client, turn);
    if (replied !== undefined) {
      await client.completeTurn(sessionId, turnId, { text: replied });
      return true;
    }
    await client.updateTurn(sessionId, turnId, { status: "thinking" });
    const reply = await converse(client, llm, turn, options, streamed);
    if (turn.signal.aborted) return false;
    // The draft is whole before the message that replaces it: no text of the turn lands after it.
    await streamed.flush();
    if (turn.signal.aborted) return false;
    await client.send(sessionId, { kind: "markdown", text: reply });
    await client.completeTurn(sessionId, turnId, { text: reply });
    return true;
  } catch (error) {
    if (turn.signal.aborted) return false;
    const code: ErrorCode = error instanceof LineUpError ? error.code : "internal_error";
    try {
      await client.failTurn(sessionId, turnId, { code, message: error instanceof Error ? error.message : String(error) });
    } catch {
      // The turn may have ended meanwhile.
    }
    throw error;
  } finally {
    streamed.cancel();
  }
}

/**
 * The tool calls this agent already made in `turn` (a restarted process finds them in the log) as the
 * model's own step: one assistant message asking for them, then each one's tool message — the outcome
 * the log holds, or, for a call still running, its outcome once it comes (the call is followed, not made
 * again). Empty when the turn has made none.
 */
async function resumedStep(client: AgentClient, llm: ChatCompletions, turn: IncomingTurn, options: LlmAgentOptions): Promise<ChatMessage[]> {
  const calls = client.toolCalls(turn.sessionId).filter((c) => c.seq > turn.turn.started_seq);
  if (calls.length === 0) return [];
  const toolSet = toFunctionTools(toolsForTurn(client.inventory(turn.sessionId), turn));
  const named = calls.map((call) => ({ call, ...offeredAs(toolSet, call) }));
  const messages: ChatMessage[] = [
    {
      role: "assistant",
      content: null,
      tool_calls: named.map(({ call, name }) => ({ id: call.callId, type: "function" as const, function: { name, arguments: JSON.stringify(call.arguments) } })),
    },
  ];
  for (const { call, name, tool } of named) {
    // An ended call's outcome is the log's, and the model hears it here (an ended timer is not followed again).
    const ended = loggedOutcome(call);
    const content = ended !== undefined ? JSON.stringify(ended) : await relayToolCall(client, llm, turn, tool, name, JSON.stringify(call.arguments), options, call.callId);
    messages.push({ role: "tool", tool_call_id: call.callId, content });
  }
  return messages;
}

/**
 * How the model knows a logged call's tool: its function name and the tool (the current inventory's while
 * it is still offered; else the same naming rule, and the method as its title).
 */
function offeredAs(toolSet: FunctionToolSet, call: LoggedToolCall): { name: string; tool: { app_scope: string; method: string; title: string } } {
  for (const [name, tool] of toolSet.byName) if (tool.app_scope === call.appScope && tool.method === call.method) return { name, tool };
  return { name: functionName({ app_scope: call.appScope, method: call.method }), tool: { app_scope: call.appScope, method: call.method, title: call.method } };
}

/** How a conversation with the model ended: its final text, a model that could not answer, or too many tool rounds. */
type Rounds = { readonly kind: "answer"; readonly content: string } | { readonly kind: "model_error"; readonly error: unknown } | { readonly kind: "too_many_steps" };

/**
 * Asks the model, relaying each tool call it makes, until it answers without one; `messages` grows with each
 * round. Each round offers the tools the turn may use, from the current inventory (an app may have been
 * installed meanwhile). A tool call's failure is thrown; the model's own is returned, for the caller to judge.
 */
async function modelRounds(client: AgentClient, llm: ChatCompletions, turn: IncomingTurn, messages: ChatMessage[], options: LlmAgentOptions, streamed: TurnText, firstStep: number, format?: ResponseFormat): Promise<Rounds> {
  const maxSteps = options.maxSteps ?? 8;
  for (let step = firstStep; step < maxSteps; step++) {
    const toolSet = toFunctionTools(toolsForTurn(client.inventory(turn.sessionId), turn));
    const onText = (delta: string): void => streamed.push(delta);
    let reply;
    try {
      reply = await (format === undefined ? llm.complete(messages, toolSet.tools, turn.signal, onText) : llm.complete(messages, toolSet.tools, turn.signal, onText, { responseFormat: format }));
    } catch (error) {
      if (turn.signal.aborted) throw error;
      return { kind: "model_error", error };
    }
    if (reply.toolCalls.length === 0) return { kind: "answer", content: reply.content ?? "" };
    // What it said before calling tools shows now, above their cards; what it says next is a new paragraph.
    streamed.endParagraph();
    messages.push({ role: "assistant", content: reply.content, tool_calls: reply.toolCalls });
    for (const call of reply.toolCalls) {
      const content = await relayToolCall(client, llm, turn, toolSet.byName.get(call.function.name), call.function.name, call.function.arguments, options);
      messages.push({ role: "tool", tool_call_id: call.id, content });
    }
  }
  return { kind: "too_many_steps" };
}

async function converse(client: AgentClient, llm: ChatCompletions, turn: IncomingTurn, options: LlmAgentOptions, streamed: TurnText): Promise<string> {
  const messages: ChatMessage[] = [{ role: "system", content: options.systemPrompt ?? DEFAULT_SYSTEM_PROMPT }, ...historyFor(client, turn, options.historyLimit ?? 40)];
  const resumed = await resumedStep(client, llm, turn, options);
  messages.push(...resumed);
  const rounds = await modelRounds(client, llm, turn, messages, options, streamed, resumed.length === 0 ? 0 : 1);
  switch (rounds.kind) {
    case "answer":
      return rounds.content.trim() || "(The model returned an empty answer.)";
    case "model_error": {
      const { error } = rounds;
      const detail = error instanceof LineUpError ? `${error.code}: ${error.message}` : String(error);
      return `Sorry — I couldn't reach the language model just now (\`${detail.slice(0, 300)}\`). Please try again in a moment.`;
    }
    case "too_many_steps":
      return "I stopped after too many tool calls in one turn. Tell me how you'd like to continue.";
  }
}

/**
 * The output of an app's task, from the model: asked with the task's request and output schema, then its answer
 * checked. An answer that is not JSON or does not match is refused and the model asked again once, told why;
 * a second refusal, a model that cannot answer or too many tool rounds reject with a typed error.
 */
async function answerTask(client: AgentClient, llm: ChatCompletions, turn: IncomingTurn, task: TaskTurn, options: LlmAgentOptions, streamed: TurnText): Promise<JsonValue> {
  const messages: ChatMessage[] = [
    { role: "system", content: options.systemPrompt ?? DEFAULT_SYSTEM_PROMPT },
    { role: "system", content: TASK_SYSTEM_PROMPT },
    ...earlierMessages(client, turn, options.historyLimit ?? 40),
    await taskRequestMessage(client, turn, task),
  ];
  const resumed = await resumedStep(client, llm, turn, options);
  messages.push(...resumed);
  const format = responseFormatFor(task);
  for (let attempt = 1; ; attempt++) {
    const rounds = await modelRounds(client, llm, turn, messages, options, streamed, attempt === 1 && resumed.length > 0 ? 1 : 0, format);
    if (rounds.kind === "model_error") throw rounds.error instanceof LineUpError ? rounds.error : new LineUpError("failed", `the model could not answer: ${String(rounds.error)}`);
    if (rounds.kind === "too_many_steps") throw new LineUpError("failed", `the model made tool calls for ${options.maxSteps ?? 8} rounds without answering the task`);
    try {
      return parseTaskAnswer(rounds.content, task);
    } catch (error) {
      if (!(error instanceof LineUpError)) throw error;
      if (attempt >= 2) {
        throw new LineUpError("invalid_result", `the model's answer was refused twice; the last time: ${error.message}`, error.path === undefined ? {} : { path: error.path });
      }
      // Its next try starts a paragraph of its own in the streamed text.
      streamed.endParagraph();
      messages.push({ role: "assistant", content: rounds.content }, refusalMessage(error));
    }
  }
}

/**
 * The end of a timed operation the turn left running: the model is asked, outside any turn and with no
 * tools, what to tell the person given its result; if the model cannot be reached, the result is said
 * plainly.
 */
async function tellOperationEnd(
  client: AgentClient,
  llm: ChatCompletions,
  sessionId: string,
  callId: string,
  tool: { app_scope: string; method: string; title: string },
  updates: AsyncIterator<unknown>,
  pending: Promise<JsonValue>,
  options: LlmAgentOptions,
): Promise<void> {
  for (let next = await updates.next(); next.done !== true; next = await updates.next()) {
    // Later progress of a running timer adds nothing to say.
  }
  let outcome: JsonObject;
  try {
    outcome = { ok: true, result: await pending };
  } catch (error) {
    // The client closed: the call did not end, this process is stopping. A restarted one tells its end.
    if (client.state === "closed") return;
    const e = error instanceof LineUpError ? error : new LineUpError("internal_error", String(error));
    outcome = { ok: false, error: { code: e.code, message: e.message } };
  }
  const event = `The "${tool.title}" you started earlier (${tool.app_scope}/${tool.method}) has ended: ${JSON.stringify(outcome)}. Tell the user briefly how it went.`;
  const messages: ChatMessage[] = [
    { role: "system", content: options.systemPrompt ?? DEFAULT_SYSTEM_PROMPT },
    ...transcriptMessages(client.transcript(sessionId).slice(-(options.historyLimit ?? 40))),
    { role: "system", content: event },
  ];
  let text: string;
  try {
    text = (await llm.complete(messages, [])).content?.trim() || "";
  } catch {
    text = "";
  }
  if (text === "") text = outcome.ok === true ? `${tool.title} has ended.` : `${tool.title} ended without a result (\`${String((outcome.error as { code?: unknown }).code)}\`).`;
  // Under the call's end id: an agent restarted meanwhile finds it told (and one told nothing tells it).
  const envelopeId = endEnvelopeId(callId);
  await client.send(sessionId, { kind: "markdown", text }, envelopeId === undefined ? {} : { envelopeId });
}

/** Runs one tool call the model asked for (or follows one already made, under `callId`); returns the tool message content (JSON). */
async function relayToolCall(
  client: AgentClient,
  llm: ChatCompletions,
  turn: IncomingTurn,
  tool: { app_scope: string; method: string; title: string } | undefined,
  name: string,
  rawArguments: string,
  options: LlmAgentOptions,
  callId?: string,
): Promise<string> {
  // A cancelled turn calls nothing more.
  if (turn.signal.aborted) throw turn.signal.reason instanceof Error ? turn.signal.reason : new LineUpError("cancelled_by_user", "the turn was cancelled");
  if (tool === undefined) return JSON.stringify({ ok: false, error: { code: "tool_not_visible", message: `no tool named ${name} in this conversation` } });
  const parsed = rawArguments.trim() === "" ? ({ ok: true, value: {} } as const) : decodeJson(rawArguments, { maxBytes: 1_048_576, maxDepth: 32 });
  if (!parsed.ok || typeof parsed.value !== "object" || parsed.value === null || Array.isArray(parsed.value)) {
    return JSON.stringify({ ok: false, error: { code: "invalid_arguments", message: "the arguments must be a JSON object" } });
  }
  await client.updateTurn(turn.sessionId, turn.turnId, { status: "working", label: `Using ${tool.title}`.slice(0, 200) });
  const handle = client.invokeTool(turn.sessionId, tool.method, parsed.value as JsonObject, {
    appScope: tool.app_scope,
    signal: turn.signal,
    ...(callId === undefined ? {} : { callId }),
    ...(options.toolTimeoutMs === undefined ? {} : { timeoutMs: options.toolTimeoutMs }),
  });
  const updates = handle.progress[Symbol.asyncIterator]();
  for (let next = await updates.next(); next.done !== true; next = await updates.next()) {
    const update = next.value;
    const label = update.type === "receipt" ? `${tool.title}: ${update.status}` : `${tool.title}: ${update.message ?? update.stage ?? "working"}`;
    const started = timedOperationStarted(update);
    // Once the device cancelled the turn nothing more is said in it; a timer that started still runs on (the
    // Runtime keeps it), and its end is told.
    if (!turn.signal.aborted) {
      try {
        await client.updateTurn(turn.sessionId, turn.turnId, { status: "working", label: label.slice(0, 200), ...(update.type === "progress" && update.progress !== undefined ? { progress: update.progress } : {}) });
      } catch (error) {
        if (started === undefined && !turn.signal.aborted) throw error;
      }
    }
    if (started !== undefined) {
      // A Runtime-owned timer (a pomodoro): the turn need not wait minutes for it — the server runs one turn
      // at a time, so everything the person says meanwhile would wait too. The model hears it started; its
      // end is told outside the turn (`tellOperationEnd`).
      const telling = tellOperationEnd(client, llm, turn.sessionId, handle.callId, tool, updates, handle.result, options).catch((error: unknown) =>
        options.diagnostics?.({ kind: "agent_error", message: `the end of ${tool.app_scope}/${tool.method} was not told`, error }),
      );
      followCall(client, turn.sessionId, handle.callId, telling);
      return JSON.stringify({ ok: true, status: "started", started_at: started.started_at, ends_at: started.ends_at, note: "It runs on by itself; you will be told how it ended." });
    }
  }
  try {
    const result: JsonValue = await handle.result;
    return JSON.stringify({ ok: true, result });
  } catch (error) {
    if (turn.signal.aborted) throw error;
    const e = error instanceof LineUpError ? error : new LineUpError("internal_error", String(error));
    return JSON.stringify({ ok: false, error: { code: e.code, message: e.message } });
  }
}
