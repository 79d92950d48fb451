/**
 * `lineup chat --url WS --token T [--data DIR]` (or `--credentials dev-credentials.json`): a terminal
 * chat client on the headless Node Runtime (SQLite) — the same Runtime as the web host, in a second
 * host. It talks to the Runtime only through the app SDK, exactly as the web chat does, and renders the
 * same timeline model.
 *
 * Lines typed are sent to the open conversation. Commands: `/new [title]` (a conversation with the
 * agent), `/open N`, `/list`, `/answer …` (or just the option number / y / n for the newest open
 * card), `/stop` (stops the agent's turn, as the chat's Stop), `/quit`. An app's MCP server that asks the person
 * something (`elicitation/create`) is answered here too, on the same cards (`createTerminalQuestions`).
 */
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import { createAppSdk, type LineUpAppRuntimeSDK } from "@lineup/app-sdk";
import { EMPTY_TIMELINE, TIMELINE_TYPES, confirmAnswer, foldMessages, markAnswered, summarizeAnswer, type Card, type TimelineModel, type TimelineRow } from "@lineup/app-sdk/chat";
import { defaultDataDir } from "@lineup/app-server";
import { UsageError } from "@lineup/protocol";
import { credentialFrom } from "@lineup/agent-sdk/node";
import type { JsonObject } from "@lineup/protocol";
import { NO_HOST_CAPABILITIES, type ElicitationAnswer, type HostProvider, type InteractionAnswer, type LineUpRuntime } from "@lineup/runtime";
import { createNodeRuntime } from "@lineup/runtime/node";
import type { CliIo, Command, LoadedCommand } from "../io.js";

export const CHAT_USAGE = `usage: lineup chat --url ws://HOST:PORT/rpc (--token DEVICE_TOKEN | --credentials dev-credentials.json) [--data DIR] [--agent demo-agent]

  --data DIR   the terminal chat's Runtime store (default: the data directory's terminal-chat/,
               $LINEUP_DATA_DIR or $XDG_DATA_HOME/lineup)`;

/** The lines a person reads for a timeline row. */
export function renderRow(row: TimelineRow): string[] {
  switch (row.kind) {
    case "message":
      return [`${row.from === "user" ? "you" : row.from === "agent" ? "agent" : "·"}: ${row.text}${row.cut_short === true ? " (cut short)" : ""}`];
    case "card": {
      if (row.answer !== undefined) return [`agent asked: ${row.card.prompt} — ${row.answer.summary}`];
      return cardLines("agent", row.card);
    }
    case "task":
      return [`task ${row.title}: ${row.state}${row.progress === undefined ? "" : ` ${Math.round(row.progress * 100)}%`}${row.detail === undefined ? "" : ` — ${row.detail}`}`];
    case "tool":
      return [`tool ${(row.title ?? row.tool_title) === undefined ? row.app_scope : `${row.title ?? row.tool_title} in ${row.app_scope}`} (${row.call_id}): ${row.interrupted === undefined ? row.phase : "stopped"}${row.stage === undefined ? "" : ` · ${row.stage}`}${row.code === undefined ? "" : ` · ${row.code}`}${row.interrupted?.reason === undefined ? "" : ` — ${row.interrupted.reason}`}`];
    case "app_task": {
      const head = `${row.app_scope} asked the agent: ${row.title ?? row.entry}${row.attempt > 1 ? ` (attempt ${row.attempt})` : ""} — ${row.state.replace(/_/g, " ")}`;
      const lines = [`${head}${row.progress === undefined ? "" : ` ${Math.round(row.progress * 100)}%`}${row.label === undefined ? "" : ` · ${row.label}`}`];
      if (row.result_text !== undefined) lines.push(`  ${row.result_text}`);
      else if (row.output !== undefined) lines.push(`  result: ${JSON.stringify(row.output)}`);
      if (row.error?.message !== undefined) lines.push(`  ${row.error.code ?? "failed"}: ${row.error.message}`);
      if (row.decision !== undefined) lines.push(`  ${row.app_scope} ${row.decision.decision} it${row.decision.reason === undefined ? "" : `: ${row.decision.reason}`}`);
      return lines;
    }
    case "artifact":
      return [`artifact ${row.name} (${row.mime_type}, ${row.size} bytes)${row.caption === undefined ? "" : ` — ${row.caption}`}`];
    case "notice":
      return [`${row.level}: ${row.text}`];
  }
}

/** The lines of an open card that `who` asks. */
function cardLines(who: string, card: Card): string[] {
  const head = `${who} asks: ${card.prompt}`;
  if (card.kind === "choice") return [head, ...card.options.map((o, i) => `  ${i + 1}) ${o.label}`)];
  if (card.kind === "confirm") return [head, `  y) ${card.confirm_label}`, `  n) ${card.cancel_label}`];
  return [head, "  (type your answer)"];
}

/** What an app's MCP server asks the person, on this terminal. */
export interface TerminalQuestions {
  /** The Node host's `HostProvider.elicit`. */
  readonly elicit: NonNullable<HostProvider["elicit"]>;
  /** Takes a typed line for the open question (an answer, `/decline` or `/cancel`); false when none is open or the line is another command. */
  answer(typed: string): boolean;
}

type Asked = InteractionAnswer | "decline" | "cancel";
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * An app's MCP server asks the person (`elicitation/create`): one question at a time, on the chat's own cards — a
 * confirm card when there is nothing to fill in, else one card per field of the requested schema (a choice for an
 * `enum`, a confirm for a boolean, an input for text and numbers). The typed answers are the server's `accept`;
 * `/decline` and `/cancel` answer so; a question the Runtime withdraws (the server cancelled, or it waited too long) is
 * said and closed.
 */
export function createTerminalQuestions(io: CliIo): TerminalQuestions {
  let open: { readonly card: Card; readonly numeric: boolean; readonly settle: (answer: Asked) => void } | undefined;
  let queue: Promise<unknown> = Promise.resolve();
  let cards = 0;
  const card = (kind: Card["kind"], prompt: string, options: Card["options"] = []): Card => ({ kind, prompt, options, multiple: false, confirm_label: "Yes", cancel_label: "No", multiline: false, via: "interaction", answer_key: `question-${++cards}` });
  const ask = (who: string, asked: Card, numeric: boolean, signal: AbortSignal): Promise<Asked> =>
    new Promise((resolve) => {
      const settle = (answer: Asked): void => {
        open = undefined;
        resolve(answer);
      };
      if (signal.aborted) return settle("cancel");
      open = { card: asked, numeric, settle };
      signal.addEventListener("abort", () => {
        if (open?.card !== asked) return;
        io.out(`${who} no longer asks: ${asked.prompt}`);
        settle("cancel");
      }, { once: true });
      for (const line of cardLines(who, asked)) io.out(line);
    });
  const yes = (answer: InteractionAnswer): boolean => answer.confirmed === true || answer.outcome === "approved";
  const run = async (prompt: Parameters<TerminalQuestions["elicit"]>[0], signal: AbortSignal): Promise<ElicitationAnswer> => {
    const properties = isObject(prompt.requested_schema["properties"]) ? Object.entries(prompt.requested_schema["properties"]) : [];
    if (properties.length === 0) {
      const answer = await ask(prompt.app_name, card("confirm", prompt.message), false, signal);
      return typeof answer === "string" ? { action: answer } : yes(answer) ? { action: "accept", content: {} } : { action: "decline" };
    }
    io.out(`${prompt.app_name} asks: ${prompt.message}`);
    const content: JsonObject = {};
    for (const [name, field] of properties) {
      const schema = isObject(field) ? field : {};
      const label = `${typeof schema["title"] === "string" ? schema["title"] : name}${typeof schema["description"] === "string" ? ` (${schema["description"]})` : ""}`;
      const choices = Array.isArray(schema["enum"]) ? schema["enum"].filter((v): v is string => typeof v === "string") : undefined;
      const numeric = schema["type"] === "number" || schema["type"] === "integer";
      const asked = choices !== undefined ? card("choice", label, choices.map((v) => ({ id: v, label: v }))) : schema["type"] === "boolean" ? card("confirm", label) : card("input", label);
      const answer = await ask(prompt.app_name, asked, numeric, signal);
      if (typeof answer === "string") return { action: answer };
      content[name] = asked.kind === "choice" ? answer.choice_ids![0]! : asked.kind === "confirm" ? yes(answer) : numeric ? Number(answer.text) : answer.text!;
    }
    return { action: "accept", content };
  };
  return {
    elicit(prompt, signal) {
      const next = queue.then(() => run(prompt, signal));
      queue = next.catch(() => undefined);
      return next;
    },
    answer(typed) {
      const text = typed.trim();
      if (open === undefined || (text.startsWith("/") && text !== "/decline" && text !== "/cancel")) return false;
      if (text === "/decline" || text === "/cancel") {
        open.settle(text === "/decline" ? "decline" : "cancel");
        return true;
      }
      const answer = answerFrom(open.card, text);
      if (answer === undefined || (open.numeric && !Number.isFinite(Number(answer.text)))) io.err(open.numeric ? "a number, please (or /decline, /cancel)" : "that does not answer it (or /decline, /cancel)");
      else open.settle(answer);
      return true;
    },
  };
}

/** The newest card still waiting for an answer. */
function openCard(model: TimelineModel): (TimelineRow & { kind: "card" }) | undefined {
  for (let i = model.rows.length - 1; i >= 0; i--) {
    const row = model.rows[i]!;
    if (row.kind === "card" && row.answer === undefined) return row;
  }
  return undefined;
}

/** Turns what was typed into an answer for `card`, or undefined when it does not answer it. */
export function answerFrom(card: Card, typed: string): InteractionAnswer | undefined {
  const text = typed.trim();
  if (card.kind === "choice") {
    const option = /^\d+$/.test(text) ? card.options[Number(text) - 1] : undefined;
    return option === undefined ? undefined : { outcome: "answered", choice_ids: [option.id] };
  }
  if (card.kind === "confirm") {
    if (/^(y|yes)$/i.test(text)) return confirmAnswer(card, true);
    if (/^(n|no)$/i.test(text)) return confirmAnswer(card, false);
    return undefined;
  }
  return text === "" ? undefined : { outcome: "answered", text };
}

export interface ChatSession {
  /** Handles one typed line; resolves false when the person quit. */
  line(text: string): Promise<boolean>;
  close(): void;
}

/**
 * The chat's logic over a running Runtime, through the app SDK only: conversations, the timeline of the
 * open one (the same model the web chat renders), sending text and answering cards.
 */
export function createChatSession(runtime: LineUpRuntime, io: CliIo, options: { readonly agentId: string; readonly workspaceId: string; readonly questions?: TerminalQuestions }): ChatSession {
  const sdk: LineUpAppRuntimeSDK = createAppSdk(runtime.appPort("chat"));
  let current: string | undefined;
  let model: TimelineModel = EMPTY_TIMELINE;
  const printed = new Map<string, string>();
  let offMessages: (() => void) | undefined;

  const show = (next: TimelineModel): void => {
    model = next;
    for (const row of model.rows) {
      // A terminal prints lines once: text the agent is still writing is printed when it is final.
      if (row.kind === "message" && row.streaming === true) continue;
      const lines = renderRow(row);
      const text = lines.join("\n");
      if (printed.get(row.key) === text) continue;
      printed.set(row.key, text);
      for (const line of lines) io.out(line);
    }
  };

  const open = async (conversationId: string): Promise<void> => {
    offMessages?.();
    current = conversationId;
    model = EMPTY_TIMELINE;
    printed.clear();
    io.out(`— ${conversationId} —`);
    let after: string | undefined;
    for (;;) {
      const page = await sdk.agentMessages.list({ conversation_id: conversationId, limit: 200, ...(after === undefined ? {} : { after }) });
      show(foldMessages(model, page.messages));
      if (page.next_cursor === undefined) break;
      after = page.next_cursor;
    }
    offMessages = sdk.agentMessages.subscribe({ conversation_id: conversationId, types: TIMELINE_TYPES }, (message) => {
      if (current === conversationId) show(foldMessages(model, [message]));
    });
  };

  const list = (): void => {
    const conversations = sdk.state.snapshot().conversations;
    if (conversations.length === 0) io.out("no conversations yet: /new [title] starts one");
    conversations.forEach((c, i) =>
      io.out(`${i + 1}. ${c.title ?? c.conversation_id} (${c.agent_id}${c.agent_connected === false ? " not connected" : ""}, ${c.status}${c.unread > 0 ? `, ${c.unread} unread` : ""})`),
    );
  };

  const answer = async (typed: string): Promise<boolean> => {
    const row = openCard(model);
    if (row === undefined || current === undefined) return false;
    const response = answerFrom(row.card, typed);
    if (response === undefined) return false;
    await sdk.actions.dispatch({ type: "interaction.answer", conversation_id: current, message_id: row.message_id, response });
    show(markAnswered(model, row.message_id, summarizeAnswer(row.card, response)));
    return true;
  };

  return {
    async line(raw) {
      const line = raw.trim();
      try {
        if (line === "") return true;
        if (line === "/quit") return false;
        if (options.questions?.answer(line) === true) return true;
        if (line === "/list") list();
        else if (line === "/new" || line.startsWith("/new ")) {
          const title = line.slice(4).trim();
          const started = await runtime.conversations.start({ agent_id: options.agentId, workspace_id: options.workspaceId, ...(title === "" ? {} : { title }) });
          await open(started.conversation_id);
        } else if (line.startsWith("/open ")) {
          const target = sdk.state.snapshot().conversations[Number(line.slice(6)) - 1];
          if (target === undefined) io.err("no such conversation: /list shows them");
          else await open(target.conversation_id);
        } else if (line === "/stop") {
          // The chat's Stop: the turn the agent works on is cancelled (queued while offline); nothing to stop is refused.
          if (current === undefined) io.err("open a conversation first: /list, /open N");
          else {
            await sdk.actions.cancelTurn(current);
            io.out("stopping the agent…");
          }
        } else if (line.startsWith("/answer ")) {
          if (!(await answer(line.slice(8)))) io.err("nothing to answer with that");
        } else if (line.startsWith("/")) io.err("commands: /new [title]  /list  /open N  /answer …  /stop  /quit");
        else if (openCard(model) !== undefined && (await answer(line))) return true;
        else if (current === undefined) io.out("open or start a conversation first: /list, /open N, /new [title]");
        else await sdk.actions.dispatch({ type: "conversation.send_text", conversation_id: current, text: line });
      } catch (error) {
        io.err(`refused: ${error instanceof Error ? error.message : String(error)}`);
      }
      return true;
    },
    close() {
      offMessages?.();
    },
  };
}

export const chatCommand: Command = async (argv, io) => {
  const { values } = parseArgs({ args: [...argv], options: { url: { type: "string" }, token: { type: "string" }, credentials: { type: "string" }, data: { type: "string" }, agent: { type: "string" } } });
  if (values.url === undefined || (values.token === undefined && values.credentials === undefined)) throw new UsageError("--url and --token (or --credentials) are required");
  const token = values.token ?? credentialFrom(values.credentials!, "device_token");
  // The person at this terminal answers what an app's MCP server asks (the Runtime asks through the host).
  const questions = createTerminalQuestions(io);
  const runtime = await createNodeRuntime({ host: { ...NO_HOST_CAPABILITIES, elicit: questions.elicit }, serverUrl: values.url, token, dataDir: values.data === undefined ? join(defaultDataDir(process.env), "terminal-chat") : resolve(values.data), clientInfo: { name: "lineup-chat", version: "0.1.0" } });
  let lifecycle = "";
  const offLifecycle = runtime.lifecycle.subscribe((l) => {
    if (l.status !== lifecycle) io.out(`(runtime ${(lifecycle = l.status)})`);
  });
  await runtime.start();
  const chat = createChatSession(runtime, io, { agentId: values.agent ?? "demo-agent", workspaceId: "default", questions });
  await chat.line("/list");
  const lines = createInterface({ input: process.stdin, terminal: false });
  for await (const typed of lines) if (!(await chat.line(typed))) break;
  lines.close();
  chat.close();
  offLifecycle();
  await runtime.stop();
  return 0;
};

export const chatCli: LoadedCommand = { run: chatCommand, usage: CHAT_USAGE };
