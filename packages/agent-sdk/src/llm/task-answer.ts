/**
 * An app's task put to a model, and the model's answer read back. The model is told which app asked, the
 * entry, title, context, input and attachments, and is asked for structured output: the task's output schema
 * as `response_format` (`json_schema`, strict), or any JSON object when the task names none. Its answer must
 * be one JSON value matching the schema; anything else is refused with `invalid_result` and the reason, which
 * the adapter hands back to the model once (`refusalMessage`).
 */
import { LineUpError, decodeJson, type ArtifactRef, type JsonValue } from "@lineup/protocol";
import type { AgentClient, IncomingTurn } from "../agent-client.js";
import { checkTurnOutput, type TaskTurn } from "../task-turns.js";
import type { ChatMessage, ResponseFormat } from "./chat-completions.js";

/** What the model is told, beside the agent's own system prompt, when a turn is an app's task. */
export const TASK_SYSTEM_PROMPT = [
  "This turn is a task an app in this conversation asked for from its own screen, not a chat message.",
  "Use the functions you are offered if the task needs them (they are the only tools the app allowed), then answer with one JSON value that matches the task's output schema, and nothing else: no prose, no code fence.",
].join(" ");

/** Most bytes of one attachment whose text the model is shown, and of all of them together. */
const ATTACHMENT_TEXT_BYTES = 65_536;
const ATTACHMENTS_TEXT_BYTES = 262_144;

/** The `response_format` of a task: its output schema, strict, named after the entry; any JSON object without one. */
export function responseFormatFor(task: TaskTurn): ResponseFormat {
  if (task.output_schema === undefined) return { type: "json_object" };
  return { type: "json_schema", json_schema: { name: task.entry.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64), schema: task.output_schema, strict: true } };
}

const isText = (ref: ArtifactRef): boolean => /^text\/|^application\/(?:json|xml|x-ndjson|csv)\b|\+json$|\+xml$/.test(ref.mime_type);

/** The attachments as the model reads them: small text files inline, the others by name. */
async function attachmentLines(client: AgentClient, turn: IncomingTurn): Promise<string[]> {
  const lines: string[] = [];
  let budget = ATTACHMENTS_TEXT_BYTES;
  for (const ref of turn.input.attachments ?? []) {
    const about = `- ${ref.name} (${ref.mime_type}, ${ref.size} bytes)`;
    if (!isText(ref) || ref.size > Math.min(ATTACHMENT_TEXT_BYTES, budget)) {
      lines.push(`${about}: not shown`);
      continue;
    }
    try {
      const { bytes } = await client.readArtifact(turn.sessionId, ref.artifact_id, { signal: turn.signal, maxBytes: ATTACHMENT_TEXT_BYTES });
      budget -= bytes.byteLength;
      lines.push(`${about}:`, "<<<", new TextDecoder().decode(bytes), ">>>");
    } catch (error) {
      if (turn.signal.aborted) throw error;
      lines.push(`${about}: could not be read (${error instanceof LineUpError ? error.code : "internal_error"})`);
    }
  }
  return lines;
}

/** The user message that puts the task to the model. */
export async function taskRequestMessage(client: AgentClient, turn: IncomingTurn, task: TaskTurn): Promise<ChatMessage> {
  const { provenance } = task;
  const lines = [
    `The app "${provenance.app_scope}" (version ${provenance.app_version}) asks you for a task.`,
    `Entry: ${task.entry}`,
    ...(task.title === undefined ? [] : [`Title: ${task.title}`]),
    `Context (JSON): ${JSON.stringify(task.context ?? {})}`,
    ...(task.business_object_ref === undefined ? [] : [`About: ${task.business_object_ref.type} ${task.business_object_ref.id}`]),
    `Input: ${turn.text.trim() === "" ? "(none)" : turn.text}`,
  ];
  const attachments = await attachmentLines(client, turn);
  if (attachments.length > 0) lines.push("Attachments:", ...attachments);
  if (task.knowledge.length > 0) lines.push(`Knowledge the app bound to the task: ${task.knowledge.map((ref) => ref.name).join(", ")}`);
  lines.push(`Tools the app allows: ${task.requested_tools.length === 0 ? "none" : task.requested_tools.map((t) => `${t.app_scope}/${t.method}`).join(", ")}`);
  lines.push(
    task.output_schema === undefined
      ? "Answer with one JSON object, and nothing else."
      : `Answer with one JSON value matching this JSON Schema, and nothing else: ${JSON.stringify(task.output_schema)}`,
  );
  return { role: "user", content: lines.join("\n") };
}

/** A code fence around the whole answer, which models add although told not to. */
const FENCED = /^```[A-Za-z0-9_-]*[ \t]*\r?\n([\s\S]*?)\r?\n?```$/;

/**
 * The model's answer as the task's output: one JSON value (a code fence around it is let through) that matches
 * the output schema. Throws `invalid_result`: not JSON (`path` ""), or the schema's first problem (its pointer).
 */
export function parseTaskAnswer(content: string, task: TaskTurn): JsonValue {
  const trimmed = content.trim();
  const text = FENCED.exec(trimmed)?.[1] ?? trimmed;
  if (text === "") throw new LineUpError("invalid_result", "the answer is empty, not JSON", { path: "" });
  const decoded = decodeJson(text, { maxBytes: 4 * 1_048_576, maxDepth: 64 });
  if (!decoded.ok) throw new LineUpError("invalid_result", `the answer is not JSON: ${decoded.error.message}`, { path: "" });
  return checkTurnOutput(task.output_schema, decoded.value) ?? decoded.value;
}

/** What the model is told of a refused answer, so that it can answer again. */
export function refusalMessage(error: LineUpError): ChatMessage {
  const where = error.path === undefined || error.path === "" ? "" : ` (at ${error.path})`;
  return { role: "user", content: `That answer was refused: ${error.message}${where}. Answer again with only one JSON value that matches the output schema.` };
}
