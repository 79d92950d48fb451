/**
 * The demo agent: makes LineUp come alive without any model service.
 *
 * For each turn handed over by the client it replies in Markdown (`lineup.message`), shows
 * choice / confirm / input cards on request and waits for the answer, and — when asked to open the
 * whiteboard, play draw-and-guess, start a pomodoro or record a voice note — finds the matching
 * tool in the session's inventory, calls it, reports progress in the chat (`lineup.task.progress`
 * and turn updates) and then the result; on the whiteboard it also draws a diagram of the steps the
 * person names, reads the board back and exports it (`demo/whiteboard.ts`); in a draw-and-guess
 * round, the game's "I'm done drawing" button (or "done" in the chat) makes it guess the drawing
 * (`demo/draw-and-guess.ts`). It also answers what the person does in apps, as their declared events tell it
 * (a voice note recorded on their own, `demo/app-events.ts`), and the tasks the shipped apps ask it for from their own
 * UI (`demo/tasks.ts`): a task turn is answered with its structured output, never read as chat, and a result an
 * app rejects with a reason is acknowledged. Refusals in chat become helpful replies, never a failed turn:
 * `tool_not_visible` says how to install the app, `app_disabled` how to enable it,
 * `stale_inventory_revision` refreshes the inventory and retries once, timeouts say so.
 *
 * Every reply is a `lineup.message` envelope; the turn then completes with the final reply as its
 * `text` (the turn's record of its answer; hosts render the messages).
 *
 * Deterministic: the text of every reply depends only on the input, the inventory and the
 * device's answers; ids and time come from the client's injected sources.
 */
import { LineUpError, type ErrorCode, type InventoryTool, type JsonObject, type JsonValue } from "@lineup/protocol";
import { findTool, type AgentClient, type IncomingTurn } from "./agent-client.js";
import { timedOperationStarted, type ToolCallUpdate } from "./tool-calls.js";
import { APP_TARGETS, argumentsFor, belongsTo, matchTool, type AppTarget } from "./demo/tool-match.js";
import { answerValue, declaredArguments, declaredToolFor } from "./demo/declared-tools.js";
import { followCall, resumeDetachedCalls } from "./detached-calls.js";
import { endEnvelopeId, type LoggedToolCall } from "./session-state.js";
import { guessDrawing, resumeRound, roundStarted, stopRounds } from "./demo/draw-and-guess.js";
import { parseIntent, type BoardAction } from "./demo/intents.js";
import { followAppEvents } from "./demo/app-events.js";
import { answerTask, followTaskDecisions, type DemoTaskOptions } from "./demo/tasks.js";
import { toolsForTurn } from "./task-turns.js";
import { capitalize, escapeMarkdown, kilobytes, spoken } from "./demo/text.js";
import { boardTool, describeBoard, describeExport, diagramBounds, diagramRequest, diagramShapes, drawingTop, splitSteps, takesShapes } from "./demo/whiteboard.js";
import { repliesFor, type Replies } from "./demo/replies.js";
import type { DiagnosticsSink } from "./lifecycle.js";
import { alsoDisposing, serveTurns, type TurnRunner } from "./turn-runner.js";
import { turnScoped } from "./turn-scope.js";

export { escapeMarkdown } from "./demo/text.js";

export interface DemoAgentOptions extends DemoTaskOptions {
  /** How long a card waits for the user. Default 10 minutes. */
  readonly interactionTimeoutMs?: number;
  /** Local deadline of a tool call; default the tool's own timeout (see `invokeTool`). */
  readonly toolTimeoutMs?: number;
  /** Complete turns with the final reply as `text` (default true). */
  readonly completeWithText?: boolean;
  readonly diagnostics?: DiagnosticsSink;
}

export type DemoAgent = TurnRunner;

const CHOICES = ["whiteboard", "draw-and-guess", "pomodoro", "voice"] as const;

/** Starts the demo agent on a connected client. */
export function runDemoAgent(client: AgentClient, options: DemoAgentOptions = {}): DemoAgent {
  const runner = serveTurns(client, (turn) => handleTurn(client, turn, options), options.diagnostics);
  // What the person does in apps (their declared events) gets a word from the agent too, outside any turn.
  const events = followAppEvents(client, (error) => options.diagnostics?.({ kind: "agent_error", message: "a reply to an app event was not sent", error }));
  // An app that rejects a task's result with a reason hears that the agent understood.
  const decisions = followTaskDecisions(client, (error) => options.diagnostics?.({ kind: "agent_error", message: "an acknowledgement of a task decision was not sent", error }));
  // A call that outlived its turn while this process was away (restarted during a pomodoro): its end is told.
  const resumed = resumeDetachedCalls(client, (sessionId, call) => resumeDetached(client, sessionId, call, options));
  return alsoDisposing(
    runner,
    () => events.dispose(),
    () => decisions.dispose(),
    () => resumed.dispose(),
    // Draw-and-guess rounds wait for the person's button in the background: those waits end too.
    () => stopRounds(client),
  );
}

/**
 * Answers one turn; true when it completed. Everything it sends and calls in the turn's session goes
 * through `turnScoped`: worked on again after a restart, the turn says nothing twice and runs no tool twice.
 */
async function handleTurn(unscoped: AgentClient, turn: IncomingTurn, options: DemoAgentOptions): Promise<boolean> {
  const { sessionId, turnId } = turn;
  const client = turnScoped(unscoped, turn);
  try {
    await client.updateTurn(sessionId, turnId, { status: "thinking" });
    if (turn.task !== undefined) {
      // An app's task: answered with its structured output (checked against the schema by `completeTurn`), never read as chat.
      const answer = await answerTask(client, turn, turn.task, options);
      if (turn.signal.aborted) return false;
      await client.completeTurn(sessionId, turnId, answer);
      return true;
    }
    const reply = await respond(client, turn, options);
    if (turn.signal.aborted) return false;
    await client.send(sessionId, { kind: "markdown", text: reply });
    await client.completeTurn(sessionId, turnId, options.completeWithText === false ? {} : { text: reply });
    return true;
  } catch (error) {
    if (turn.signal.aborted) return false; // the device cancelled the turn: nothing left to say
    const code: ErrorCode = error instanceof LineUpError ? error.code : "internal_error";
    const message = error instanceof Error ? error.message : String(error);
    try {
      await client.failTurn(sessionId, turnId, { code, message });
    } catch {
      // The turn may have ended meanwhile; the failure is already reported to diagnostics by the caller.
    }
    throw error;
  }
}

async function respond(client: AgentClient, turn: IncomingTurn, options: DemoAgentOptions): Promise<string> {
  const intent = parseIntent(turn.text);
  switch (intent.kind) {
    case "open_app":
      return openApp(client, turn, APP_TARGETS[intent.target], options);
    case "board":
      return onBoard(client, turn, intent.action, options);
    case "ask":
      return ask(client, turn, options);
    case "choose":
      return choose(client, turn, options);
    case "confirm":
      return confirm(client, turn, options);
    case "help":
      return help(client, turn);
    case "greet": {
      const say = repliesFor(turn.text);
      return say.greet(say.suggestions());
    }
    case "guess_drawing":
      return guessDrawing(client, turn, options);
    case "use_tool":
      return useTool(client, turn, intent.method, options);
    case "echo": {
      // An app the agent has no rule for, named by what the inventory declares: its tool's title, or "open <app>".
      const declared = declaredToolFor(turn.text, toolsForTurn(client.inventory(turn.sessionId), turn));
      return declared === undefined ? echo(turn.text) : useDeclaredTool(client, turn, declared, options);
    }
  }
}

function quote(text: string): string {
  return text
    .split("\n")
    .map((line) => `> ${line}`)
    .join("\n");
}

function echo(text: string): string {
  const say = repliesFor(text);
  if (text.trim() === "") return say.emptyMessage(say.suggestions());
  return say.echo(quote(text.slice(0, 2_000)), say.suggestions());
}

function help(client: AgentClient, turn: IncomingTurn): string {
  const inventory = client.inventory(turn.sessionId);
  const tools = toolsForTurn(inventory, turn);
  const say = repliesFor(turn.text);
  const list = tools.length === 0 ? say.noTools : say.toolsHere(inventory!.revision, tools.map((t) => `- \`${t.method}\` (${t.app_scope}): ${t.title}`).join("\n"));
  return `${say.helpTitle}\n\n${say.suggestions()}\n\n${list}`;
}

async function waitForUser<T>(client: AgentClient, turn: IncomingTurn, sent: { interactionId?: string }, options: DemoAgentOptions, then: (answer: Awaited<ReturnType<AgentClient["awaitInteraction"]>>) => T | Promise<T>): Promise<T | string> {
  await client.updateTurn(turn.sessionId, turn.turnId, { status: "waiting_for_user" });
  try {
    const answer = await client.awaitInteraction(turn.sessionId, sent.interactionId!, { signal: turn.signal, timeoutMs: options.interactionTimeoutMs ?? 600_000 });
    await client.updateTurn(turn.sessionId, turn.turnId, { status: "thinking" });
    return await then(answer);
  } catch (error) {
    if (error instanceof LineUpError && error.code === "expired") return repliesFor(turn.text).noAnswerInTime;
    throw error;
  }
}

async function ask(client: AgentClient, turn: IncomingTurn, options: DemoAgentOptions): Promise<string> {
  const say = repliesFor(turn.text);
  const sent = await client.send(turn.sessionId, { kind: "input", prompt: say.askName.prompt, placeholder: say.askName.placeholder, maxLength: 80 });
  return waitForUser(client, turn, sent, options, (answer) => {
    const name = answer.text?.trim();
    if (answer.outcome === "cancelled" || name === undefined || name === "") return say.skipIntroductions;
    return say.niceToMeet(name);
  });
}

async function choose(client: AgentClient, turn: IncomingTurn, options: DemoAgentOptions): Promise<string> {
  const say = repliesFor(turn.text);
  const sent = await client.send(turn.sessionId, { kind: "choice", prompt: say.chooseWhat, options: CHOICES.map((id) => ({ id, label: say.choices[id] })) });
  return waitForUser(client, turn, sent, options, async (answer) => {
    const picked = CHOICES.find((id) => id === answer.choiceIds?.[0]);
    if (answer.outcome === "cancelled" || picked === undefined) return say.nothingForNow;
    return openApp(client, turn, APP_TARGETS[picked], options);
  });
}

async function confirm(client: AgentClient, turn: IncomingTurn, options: DemoAgentOptions): Promise<string> {
  const say = repliesFor(turn.text);
  const sent = await client.send(turn.sessionId, { kind: "confirm", prompt: say.confirm.prompt, confirmLabel: say.confirm.confirmLabel, cancelLabel: say.confirm.cancelLabel });
  return waitForUser(client, turn, sent, options, (answer) => (answer.outcome === "answered" && answer.confirmed === true ? say.confirmed : say.notConfirmed));
}

/** Calls the app's tool, reporting progress; refusals become advice. */
async function openApp(client: AgentClient, turn: IncomingTurn, target: AppTarget, options: DemoAgentOptions): Promise<string> {
  return withInventory(client, turn, target, async (tools) => {
    const say = repliesFor(turn.text);
    const tool = matchTool(tools, target);
    if (tool === undefined) return notInstalled(target, "open", say);
    const detach = detachFor(target);
    const result = await runCall(client, turn, tool, target, options, { label: say.opening(say.label(target.name, target.label)), args: argumentsFor(tool, turn.text, target), ...(detach === undefined ? {} : { detach }) });
    if (isDetached(result)) return result.reply;
    const started = target.name === "draw-and-guess" ? roundStarted(client, turn.sessionId, tool, result, options) : undefined;
    return started ?? describeOperation(result, target) ?? describeRecording(result) ?? ready(target, result, say);
  });
}

/** Calls the inventory's tool `method` with no arguments and tells its result: its text, else its JSON. */
async function useTool(client: AgentClient, turn: IncomingTurn, method: string, options: DemoAgentOptions): Promise<string> {
  const tool = toolsForTurn(client.inventory(turn.sessionId), turn).find((t) => t.method === method);
  if (tool === undefined) return `No app offers \`${escapeMarkdown(method)}\` in this conversation. Say *help* to see the tools I can use.`;
  const target = toolTarget(tool);
  return withInventory(client, turn, target, async () => toolAnswered(tool, await callWithProgress(client, turn, tool, target, options, { label: `Calling ${tool.method}`, args: {} })));
}

/** A tool found by what it declares, as the replies name it. */
const toolTarget = (tool: InventoryTool): AppTarget => ({ name: "tool", label: tool.title || tool.method, installName: tool.app_scope, scopes: [tool.app_scope], prefixes: [], verbs: [] });

/** What a tool answered: its text content, else its JSON. */
function toolAnswered(tool: InventoryTool, result: JsonValue): string {
  const content = typeof result === "object" && result !== null && !Array.isArray(result) ? result["content"] : undefined;
  const text = Array.isArray(content) ? content.map((c) => (typeof c === "object" && c !== null && !Array.isArray(c) && c["type"] === "text" ? String(c["text"]) : "")).filter((t) => t !== "").join("\n") : "";
  return `\`${tool.method}\` answered:\n\n${quote((text || JSON.stringify(result)).slice(0, 2_000))}`;
}

/**
 * Calls a tool of an app the agent has no rule for, found by its declarations (`demo/declared-tools.ts`): the
 * inputs the schema lets it fill are filled, each other required one is asked for with an input card, in order.
 */
async function useDeclaredTool(client: AgentClient, turn: IncomingTurn, tool: InventoryTool, options: DemoAgentOptions): Promise<string> {
  const say = repliesFor(turn.text);
  const target = toolTarget(tool);
  const planned = declaredArguments(tool, turn.text);
  if (planned.unfillable.length > 0) return say.cannotFill(tool.title, planned.unfillable.join(", "));
  const args: JsonObject = { ...planned.args };
  for (const input of planned.missing) {
    const sent = await client.send(turn.sessionId, { kind: "input", prompt: say.askInput(tool.title, input.prompt), placeholder: input.name, maxLength: 2_000 });
    const answered = await waitForUser(client, turn, sent, options, (answer) => ({ cancelled: answer.outcome === "cancelled", value: answerValue(input, answer.text ?? "") }));
    if (typeof answered === "string") return answered; // no answer in time
    if (answered.cancelled) return say.leftAlone(tool.title);
    if (answered.value === undefined) return say.notAValue(input.prompt);
    args[input.name] = answered.value;
  }
  return withInventory(client, turn, target, async () => toolAnswered(tool, await callWithProgress(client, turn, tool, target, options, { label: say.opening(tool.title), args })));
}

/**
 * Runs `attempt` on the session's current inventory. `stale_inventory_revision` refreshes the
 * inventory and runs it once more; any other refusal becomes advice about `target`.
 */
async function withInventory(client: AgentClient, turn: IncomingTurn, target: AppTarget, attempt: (tools: readonly InventoryTool[]) => Promise<string>): Promise<string> {
  for (let tries = 0; ; tries++) {
    try {
      return await attempt(toolsForTurn(client.inventory(turn.sessionId), turn));
    } catch (error) {
      if (!(error instanceof LineUpError)) throw error;
      if (error.code === "stale_inventory_revision" && tries === 0) {
        await client.updateTurn(turn.sessionId, turn.turnId, { status: "working", label: "The app list changed; refreshing" });
        await client.refreshInventory(turn.sessionId);
        continue;
      }
      if (turn.signal.aborted) throw error;
      return refusal(error, target);
    }
  }
}

/** A call left to run on outside the turn (`Detach`), and the reply that ends the turn; never confused with an app's result. */
class Detached {
  constructor(readonly reply: string) {}
}

const isDetached = (value: JsonValue | Detached): value is Detached => value instanceof Detached;

/**
 * When a call may go on without the turn, and what is said then. The server runs one turn at a time, so
 * a turn that waits minutes for a timer or for the person holds back everything they say meanwhile.
 */
interface Detach {
  /** The reply that ends the turn if `update` means the call now runs on by itself; else undefined. */
  readonly at: (update: ToolCallUpdate) => string | undefined;
  /** What is said, outside any turn, when the call ends: its result, or the Runtime's refusal. */
  readonly end: (outcome: { readonly result: JsonValue } | { readonly error: LineUpError }) => string;
}

function detachFor(target: AppTarget): Detach | undefined {
  switch (target.detach) {
    case "timed_operation":
      // A Runtime-owned timer that has started: its end is the Runtime's, exactly once.
      return {
        at: (update) => {
          const started = timedOperationStarted(update);
          return started === undefined ? undefined : `Started the **${target.label}** for ${spoken(started.planned_ms)}. I'll tell you when it's over — meanwhile, ask me anything.`;
        },
        end: (outcome) => ("error" in outcome ? refusal(outcome.error, target) : (describeOperation(outcome.result, target) ?? ready(target, outcome.result))),
      };
    case "waiting_for_user":
      // The app shows the person the request: they answer there when they like.
      return {
        at: (update) =>
          update.type === "progress" && update.stage === "waiting_for_user"
            ? `I've asked for it in the **${target.installName}** app — answer there whenever you're ready, and I'll tell you when I have it. Meanwhile, ask me anything.`
            : undefined,
        end: (outcome) => ("error" in outcome ? refusal(outcome.error, target) : (describeRecording(outcome.result) ?? ready(target, outcome.result))),
      };
    case undefined:
      return undefined;
  }
}

/** One tool call shown as a task in the chat (`runCall` without detaching): its result. */
async function callWithProgress(client: AgentClient, turn: IncomingTurn, tool: InventoryTool, target: AppTarget, options: DemoAgentOptions, call: { readonly label: string; readonly args: JsonObject }): Promise<JsonValue> {
  const result = await runCall(client, turn, tool, target, options, call);
  if (isDetached(result)) throw new LineUpError("internal_error", "a call without a detach policy was detached");
  return result;
}

/**
 * One tool call shown as a task in the chat: `label` is the turn's status line while it starts. With
 * `detach`, a call that may go on without the turn is left to run once `detach.at` says so: this returns
 * `Detached` with the turn's reply, and when the call ends its task is finished and `detach.end` is said.
 */
async function runCall(
  client: AgentClient,
  turn: IncomingTurn,
  tool: InventoryTool,
  target: AppTarget,
  options: DemoAgentOptions,
  call: { readonly label: string; readonly args: JsonObject; readonly detach?: Detach },
): Promise<JsonValue | Detached> {
  const { sessionId, turnId } = turn;
  await client.updateTurn(sessionId, turnId, { status: "working", label: call.label });
  const invoked = client.invokeTool(sessionId, tool.method, call.args, {
    appScope: tool.app_scope,
    signal: turn.signal,
    ...(options.toolTimeoutMs === undefined ? {} : { timeoutMs: options.toolTimeoutMs }),
  });
  // The tool's own title says what this call does ("Draw shapes on the whiteboard"); the app's name otherwise.
  const title = tool.title.trim() === "" ? capitalize(target.label) : tool.title.slice(0, 200);
  await client.send(sessionId, { kind: "task_progress", taskId: invoked.callId, title, state: "running", detail: `Calling \`${tool.method}\`…` });
  const updates = invoked.progress[Symbol.asyncIterator]();
  for (let next = await updates.next(); next.done !== true; next = await updates.next()) {
    const update = next.value;
    const detail = update.type === "receipt" ? receiptText(update.status, target) : (update.message ?? update.stage ?? "working");
    const progress = update.type === "progress" ? update.progress : undefined;
    const say = async (): Promise<void> => {
      // The turn's status line stands alone under the conversation: it names the task ("Create a whiteboard: Opening the board").
      await client.updateTurn(sessionId, turnId, { status: "working", label: `${title}: ${detail}`.slice(0, 200), ...(progress === undefined ? {} : { progress }) });
      await client.send(sessionId, { kind: "task_progress", taskId: invoked.callId, title, state: "running", detail: detail.slice(0, 2_000), ...(progress === undefined ? {} : { progress }) });
    };
    const reply = call.detach?.at(update);
    // Once the device cancelled the turn nothing more is said in it; a call that runs on without its turn (the
    // Runtime keeps a timer that started) is still followed to its end.
    if (!turn.signal.aborted) {
      try {
        await say();
      } catch (error) {
        if (reply === undefined && !turn.signal.aborted) throw error;
      }
    }
    if (reply === undefined || call.detach === undefined) continue;
    const finishing = finishDetached(client, sessionId, invoked.callId, title, updates, invoked.result, call.detach).catch((error: unknown) =>
      options.diagnostics?.({ kind: "agent_error", message: `the end of ${tool.app_scope}/${tool.method} was not told`, error }),
    );
    followCall(client, sessionId, invoked.callId, finishing);
    return new Detached(reply);
  }
  return finishTask(client, sessionId, invoked.callId, title, invoked.result, turn.signal);
}

/** Waits for a call's result and closes its task in the chat: completed, stopped early, failed or cancelled. */
async function finishTask(client: AgentClient, sessionId: string, taskId: string, title: string, pending: Promise<JsonValue>, signal?: AbortSignal): Promise<JsonValue> {
  try {
    const result = await pending;
    // A Runtime-owned operation the person stopped ended with a result, but the task was not completed.
    const operation = operationResultOf(result);
    await client.send(sessionId, {
      kind: "task_progress",
      taskId,
      title,
      ...(operation?.outcome === "interrupted" ? { state: "cancelled", detail: operation.reason ?? "stopped" } : { state: "completed", progress: 1 }),
    });
    return result;
  } catch (error) {
    const cancelled = error instanceof LineUpError && (error.code === "cancelled_by_user" || error.code === "activation_cancelled" || error.code === "request_cancelled");
    if (signal?.aborted !== true) {
      await client.send(sessionId, { kind: "task_progress", taskId, title, state: cancelled ? "cancelled" : "failed", ...(error instanceof LineUpError ? { detail: error.code } : {}) });
    }
    throw error;
  }
}

/**
 * The rest of a detached call, outside any turn: its progress goes on its task, its end closes the task and
 * is said, once (under `endEnvelopeId`). `shown`: updates its task already shows (a call followed again).
 */
async function finishDetached(client: AgentClient, sessionId: string, taskId: string, title: string, updates: AsyncIterator<ToolCallUpdate>, pending: Promise<JsonValue>, detach: Detach, shown = 0): Promise<void> {
  let skipped = 0;
  for (let next = await updates.next(); next.done !== true; next = await updates.next()) {
    const update = next.value;
    if (skipped++ < shown) continue;
    if (update.type !== "progress" || (update.message ?? update.stage) === undefined) continue;
    await client.send(sessionId, { kind: "task_progress", taskId, title, state: "running", detail: (update.message ?? update.stage ?? "").slice(0, 2_000), ...(update.progress === undefined ? {} : { progress: update.progress }) });
  }
  let text: string;
  try {
    text = detach.end({ result: await finishTask(client, sessionId, taskId, title, pending) });
  } catch (error) {
    // The client closed: the call did not end, this process is stopping. A restarted one tells its end.
    if (client.state === "closed") return;
    if (!(error instanceof LineUpError)) throw error;
    text = detach.end({ error });
  }
  const envelopeId = endEnvelopeId(taskId);
  await client.send(sessionId, { kind: "markdown", text }, envelopeId === undefined ? {} : { envelopeId });
}

/**
 * Follows again a call of this agent that outlived its turn while the process was away, and tells its end:
 * a timer's or a voice note's, or a Draw and Guess round's wait for the person's drawing.
 */
function resumeDetached(client: AgentClient, sessionId: string, call: LoggedToolCall, options: DemoAgentOptions): void {
  if (call.method === "game.await_drawing") {
    resumeRound(client, sessionId, call, options);
    return;
  }
  const tool = findTool(client.inventory(sessionId)?.tools ?? [], call.method, call.appScope);
  const target = Object.values(APP_TARGETS).find((t) => t.detach !== undefined && belongsTo(tool ?? { app_scope: call.appScope, method: call.method }, t));
  const detach = target === undefined ? undefined : detachFor(target);
  if (target === undefined || detach === undefined) return;
  const title = tool === undefined || tool.title.trim() === "" ? capitalize(target.label) : tool.title.slice(0, 200);
  // The updates the log holds come first, and the task already shows them.
  const shown = call.outputs.filter((o) => o.type === "lineup.tool.receipt" || o.type === "lineup.tool.progress").length;
  const invoked = client.invokeTool(sessionId, call.method, call.arguments, { appScope: call.appScope, callId: call.callId });
  const finishing = finishDetached(client, sessionId, call.callId, title, invoked.progress[Symbol.asyncIterator](), invoked.result, detach, shown).catch((error: unknown) =>
    options.diagnostics?.({ kind: "agent_error", message: `the end of ${call.appScope}/${call.method} was not told`, error }),
  );
  followCall(client, sessionId, call.callId, finishing);
}

/** Draws, reads or exports the whiteboard with its tools; refusals become advice as for opening it. */
async function onBoard(client: AgentClient, turn: IncomingTurn, action: BoardAction, options: DemoAgentOptions): Promise<string> {
  const target = APP_TARGETS.whiteboard;
  const verb = action === "draw" ? "draw on" : action;
  return withInventory(client, turn, target, async (tools) => {
    const tool = boardTool(tools, action);
    if (tool === undefined) {
      return matchTool(tools, target) === undefined ? notInstalled(target, verb) : `The **${target.installName}** app here offers no tool to ${verb} it, so I can't do that.`;
    }
    switch (action) {
      case "read": {
        const result = await callWithProgress(client, turn, tool, target, options, { label: "Reading the whiteboard", args: {} });
        return describeBoard(result) ?? `Here is what the whiteboard says:${describeResult(result)}`;
      }
      case "export": {
        const result = await callWithProgress(client, turn, tool, target, options, { label: "Exporting the whiteboard", args: {} });
        return describeExport(result) ?? `Exported the whiteboard:${describeResult(result)}`;
      }
      case "draw":
        return drawDiagram(client, turn, tool, boardTool(tools, "read"), options);
    }
  });
}

/**
 * A diagram of the steps the person named, below what is already on the board (read first, when the
 * board can be read). Without at least two steps in the request it asks for them with an input card.
 */
async function drawDiagram(client: AgentClient, turn: IncomingTurn, draw: InventoryTool, read: InventoryTool | undefined, options: DemoAgentOptions): Promise<string> {
  const target = APP_TARGETS.whiteboard;
  if (!takesShapes(draw)) return `The whiteboard's \`${draw.method}\` takes arguments I don't know how to fill, so I didn't draw anything.`;
  const request = diagramRequest(turn.text);
  const about = request.topic === undefined ? "" : ` of the ${request.topic}`;
  let steps = request.steps;
  if (steps.length === 0) {
    const sent = await client.send(turn.sessionId, { kind: "input", prompt: `What are the steps${about}? Separate them with arrows or commas.`, placeholder: "Sign in → Check password → Home", maxLength: 500 });
    const answered = await waitForUser(client, turn, sent, options, (answer) => (answer.outcome === "cancelled" ? [] : splitSteps(answer.text ?? "")));
    if (typeof answered === "string") return answered;
    if (answered.length === 0) return "OK, I didn't draw anything.";
    steps = answered;
  }
  const summary = read === undefined ? undefined : await callWithProgress(client, turn, read, target, options, { label: "Looking at the whiteboard", args: {} });
  const shapes = diagramShapes(steps, request.topic, drawingTop(summary));
  await callWithProgress(client, turn, draw, target, options, { label: `Drawing ${steps.length === 1 ? "a box" : `${steps.length} steps`} on the whiteboard`, args: { shapes } });
  // Drawn below what was there, perhaps out of view: the whiteboard brings it into view (its `focus` state
  // patch). A board that does not take patches refuses it; the drawing is there all the same.
  const focus = diagramBounds(shapes);
  if (focus !== undefined) await client.sendStatePatch(turn.sessionId, { appScope: draw.app_scope, patch: { focus } }).catch(() => undefined);
  const what = request.topic === undefined ? "" : ` the **${escapeMarkdown(request.topic)}**`;
  return `I drew${what} on the whiteboard: ${steps.map(escapeMarkdown).join(" → ")}. Draw on it too, or ask me *what's on the whiteboard?*`;
}

function receiptText(status: string, target: AppTarget): string {
  switch (status) {
    case "accepted":
      return `The ${target.label} accepted the request`;
    case "starting":
      return `Starting the ${target.label}…`;
    case "activation_ready":
      return `The ${target.label} is open`;
    case "activation_failed":
      return `The ${target.label} could not start`;
    case "activation_cancelled":
      return `Starting the ${target.label} was cancelled`;
    default:
      return status;
  }
}

function notInstalled(target: AppTarget, verb = "open", say: Replies = repliesFor("")): string {
  if (verb === "open") return say.notInstalled(say.label(target.name, target.label), say.installName(target.name, target.installName));
  return [
    `I can't ${verb} the **${target.label}** here: the **${target.installName}** app isn't installed (or isn't available) in this conversation.`,
    "",
    `To install it, open **Apps** (the App Registry) in LineUp, choose **${target.installName}** and install it — then ask me again.`,
  ].join("\n");
}

function refusal(error: LineUpError, target: AppTarget): string {
  switch (error.code) {
    case "tool_not_visible":
    case "app_not_installed":
      return notInstalled(target);
    case "app_disabled":
      return `The **${target.installName}** app is installed but disabled. Enable it in **Apps** (the App Registry), then ask me again.`;
    case "cancelled_by_user":
    case "activation_cancelled":
      return `OK — you cancelled, so I left the ${target.label} closed.`;
    case "permission_denied":
    case "policy_denied":
      return `The ${target.label} needs a permission that was denied. You can change that in **Settings**, then ask me again.`;
    case "stale_inventory_revision":
      return `The apps in this conversation changed while I was calling the ${target.label}. Please ask me again.`;
    case "operation_expired":
    case "request_timeout":
    case "expired":
      return `The ${target.label} didn't answer in time. It may still be starting — try again in a moment.`;
    case "foreground_required":
    case "activation_failed":
      return `The ${target.label} couldn't be brought to the front. Open it from the app list, or ask me again.`;
    case "app_version_mismatch":
      return `The installed **${target.installName}** is a version I can't talk to. Updating it in **Apps** should fix this.`;
    case "invalid_arguments":
      return `The ${target.label} didn't accept my request (\`${error.code}\`): ${escapeMarkdown(error.message)}`;
    default:
      return `Something went wrong with the ${target.label}: \`${error.code}\` — ${escapeMarkdown(error.message)}`;
  }
}

/** A Runtime-owned operation's result (`{ outcome, operation_id, started_at, ends_at, ended_at, reason? }`, spec 6.3), as read here. */
interface OperationResult {
  readonly outcome: "completed" | "interrupted";
  readonly reason?: string;
  /** Epoch ms of the start, the planned end and the real end, when all three are readable. */
  readonly times?: { readonly start: number; readonly end: number; readonly ended: number };
}

/** The operation result `result` is, or undefined for any other result. */
function operationResultOf(result: JsonValue): OperationResult | undefined {
  if (result === null || typeof result !== "object" || Array.isArray(result)) return undefined;
  const { outcome, reason, started_at: startedAt, ends_at: endsAt, ended_at: endedAt } = result as Record<string, JsonValue>;
  if (outcome !== "completed" && outcome !== "interrupted") return undefined;
  const [start, end, ended] = [startedAt, endsAt, endedAt].map((at) => (typeof at === "string" ? Date.parse(at) : Number.NaN)) as [number, number, number];
  return {
    outcome,
    ...(typeof reason === "string" && reason.length > 0 ? { reason: reason.slice(0, 2_000) } : {}),
    ...([start, end, ended].every(Number.isFinite) ? { times: { start, end, ended } } : {}),
  };
}

/** An operation's end in words: finished, or stopped early and after how long. Undefined for any other result. */
export function describeOperation(result: JsonValue, target: AppTarget): string | undefined {
  const operation = operationResultOf(result);
  if (operation?.times === undefined) return undefined;
  const { start, end, ended } = operation.times;
  const planned = spoken(end - start);
  if (operation.outcome === "completed") return `Time's up — your ${planned} with the **${target.label}** is done. Nice focus! 🍅`;
  return `The **${target.label}** was stopped after ${spoken(ended - start)} of the ${planned} planned. Tell me when you want to start another one.`;
}

/** A recording the person made (`{ outcome: "recorded", artifact_id, duration_ms, size, mime_type }`) in words. Undefined for any other result. */
export function describeRecording(result: JsonValue): string | undefined {
  if (result === null || typeof result !== "object" || Array.isArray(result)) return undefined;
  const { outcome, artifact_id: artifactId, duration_ms: durationMs, size, mime_type: mimeType } = result as Record<string, JsonValue>;
  if (outcome !== "recorded" || typeof artifactId !== "string" || typeof durationMs !== "number" || typeof size !== "number") return undefined;
  const kind = typeof mimeType === "string" ? `, ${escapeMarkdown(mimeType.slice(0, 100))}` : "";
  return `Got your **voice note**: ${spoken(durationMs)} of audio (${kilobytes(size)}${kind}), saved in this conversation as \`${artifactId.slice(0, 200).replace(/`/g, "")}\`. Ask me for another one any time.`;
}

/** "25 minutes", "1 minute 30 seconds", "12 seconds". */

/** "Done — the **whiteboard** is ready." with the result's details, if it has any, in the person's language. */
function ready(target: AppTarget, result: JsonValue, say: Replies = repliesFor("")): string {
  return say.ready(say.label(target.name, target.label), describeResult(result));
}

/**
 * A tool's result for a person: a small flat object as a list of its fields ("**Item count:** 0"), the
 * values escaped (they are the app's text, not the agent's Markdown); anything else as a JSON block.
 */
export function describeResult(result: JsonValue): string {
  if (result === null || (typeof result === "object" && !Array.isArray(result) && Object.keys(result).length === 0)) return "";
  const fields = flatFields(result);
  if (fields !== undefined) return `\n\n${fields.map(([name, value]) => `- **${escapeMarkdown(fieldName(name))}:** ${escapeMarkdown(String(value))}`).join("\n")}`;
  const text = JSON.stringify(result, null, 2);
  return `\n\n\`\`\`json\n${text.length > 800 ? `${text.slice(0, 800)}\n…` : text}\n\`\`\``;
}

/** The fields of an object of at most 6 short strings, numbers and booleans; undefined for anything else. */
function flatFields(result: JsonValue): Array<readonly [string, string | number | boolean]> | undefined {
  if (typeof result !== "object" || result === null || Array.isArray(result)) return undefined;
  const entries = Object.entries(result);
  if (entries.length > 6) return undefined;
  const fields: Array<readonly [string, string | number | boolean]> = [];
  for (const [name, value] of entries) {
    if (name.length > 40) return undefined;
    if (typeof value === "number" || typeof value === "boolean" || (typeof value === "string" && value.length <= 120 && !value.includes("\n"))) fields.push([name, value]);
    else return undefined;
  }
  return fields;
}

/** "item_count" / "itemCount" → "Item count". */
function fieldName(name: string): string {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/[_-]+/g, " ")
    .trim()
    .toLowerCase();
  return capitalize(words.length > 0 ? words : name);
}
