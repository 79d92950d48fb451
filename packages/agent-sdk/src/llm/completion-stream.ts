/**
 * A streamed chat completion (`stream: true`) folded back into the one assistant message the
 * non-streaming response carries: `choices[0].delta.content` pieces are joined, and each tool call is
 * assembled from its deltas, keyed by `index` (the id and name come first, the arguments in pieces).
 * The result is the same `AssistantReply` `parseCompletion` gives for a JSON response, so the
 * tool-calling loop above does not know which one it got.
 *
 * Every event is untrusted: its data goes through `decodeJson`, and anything that is not a chunk of the
 * expected shape ends the stream with a typed error (`invalid_result`; an error the server reports in
 * the stream is `failed`) — never a crash.
 */
import { LineUpError, decodeJson, isRecord } from "@lineup/protocol";
import type { AssistantReply, ChatToolCall } from "./chat-completions.js";

interface PartialToolCall {
  id: string;
  name: string;
  arguments: string;
}

export class CompletionStream {
  private content: string | undefined;
  private readonly calls = new Map<number, PartialToolCall>();
  private finishReason: string | null = null;
  private done = false;

  /** `onText` hears each piece of the answer's text as it is folded in. */
  constructor(private readonly onText?: (delta: string) => void) {}

  /** True once `[DONE]` or a `finish_reason` arrived: the answer is whole. */
  get finished(): boolean {
    return this.done || this.finishReason !== null;
  }

  /** Folds one event's `data`; returns true at `[DONE]` (nothing more is read). Throws a LineUpError on a malformed event. */
  add(data: string, event = "message"): boolean {
    if (data.trim() === "[DONE]") {
      this.done = true;
      return true;
    }
    const parsed = decodeJson(data, { maxBytes: 4 * 1_048_576, maxDepth: 64 });
    if (!parsed.ok) throw new LineUpError("invalid_result", `the model's stream carried an event that is not safe JSON: ${parsed.error.message}`);
    const chunk = parsed.value;
    if (!isRecord(chunk)) throw new LineUpError("invalid_result", "the model's stream carried an event that is not a JSON object");
    if (event === "error" || chunk["error"] !== undefined) {
      const error = isRecord(chunk["error"]) ? chunk["error"] : chunk;
      const message = typeof error["message"] === "string" ? error["message"] : JSON.stringify(error).slice(0, 300);
      throw new LineUpError("failed", `the model's stream reported an error: ${message.slice(0, 300)}`);
    }
    const choices = chunk["choices"];
    if (!Array.isArray(choices)) throw new LineUpError("invalid_result", "the model's stream carried a chunk without choices");
    // A chunk with no choices (usage at the end, a keep-alive) adds nothing.
    for (const choice of choices) {
      if (!isRecord(choice)) throw new LineUpError("invalid_result", "the model's stream carried a malformed choice");
      if (choice["index"] !== undefined && choice["index"] !== 0) continue;
      if (typeof choice["finish_reason"] === "string") this.finishReason = choice["finish_reason"];
      const delta = choice["delta"];
      if (delta === undefined || delta === null) continue;
      if (!isRecord(delta)) throw new LineUpError("invalid_result", "the model's stream carried a malformed delta");
      const text = delta["content"];
      if (typeof text === "string") {
        this.content = (this.content ?? "") + text;
        if (text !== "") this.onText?.(text);
      }
      const toolCalls = delta["tool_calls"];
      if (toolCalls === undefined || toolCalls === null) continue;
      if (!Array.isArray(toolCalls)) throw new LineUpError("invalid_result", "the model's stream carried malformed tool calls");
      toolCalls.forEach((call, position) => this.addToolCall(call, position));
    }
    return false;
  }

  private addToolCall(call: unknown, position: number): void {
    if (!isRecord(call)) throw new LineUpError("invalid_result", "the model's stream carried a malformed tool call");
    const index = typeof call["index"] === "number" && Number.isInteger(call["index"]) && call["index"] >= 0 ? call["index"] : position;
    const fn = call["function"];
    if (fn !== undefined && !isRecord(fn)) throw new LineUpError("invalid_result", "the model's stream carried a malformed tool call");
    let partial = this.calls.get(index);
    if (partial === undefined) {
      if (this.calls.size >= 128) throw new LineUpError("invalid_result", "the model's stream asked for more than 128 tool calls at once");
      partial = { id: "", name: "", arguments: "" };
      this.calls.set(index, partial);
    }
    // The id and name arrive once, in the call's first delta; some servers repeat them in every delta.
    if (typeof call["id"] === "string" && call["id"] !== "" && partial.id === "") partial.id = call["id"];
    const name = fn?.["name"];
    if (typeof name === "string" && name !== "") partial.name = name.startsWith(partial.name) ? name : partial.name + name;
    const args = fn?.["arguments"];
    if (typeof args === "string") partial.arguments += args;
    else if (args !== undefined && args !== null) partial.arguments += JSON.stringify(args);
  }

  /** The assembled assistant message. Throws a LineUpError when a tool call never got its name. */
  result(): AssistantReply {
    const toolCalls: ChatToolCall[] = [...this.calls.entries()]
      .sort(([a], [b]) => a - b)
      .map(([index, call]) => {
        if (call.name === "") throw new LineUpError("invalid_result", "the model returned a malformed tool call");
        return { id: call.id === "" ? `call_${index}` : call.id, type: "function", function: { name: call.name, arguments: call.arguments } };
      });
    return { content: this.content ?? null, toolCalls, finishReason: this.finishReason };
  }
}
