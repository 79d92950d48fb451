/**
 * A minimal client of the OpenAI-compatible `POST {base}/chat/completions` endpoint, over plain
 * `fetch` (no SDK): messages in, one assistant message (text and/or tool calls) out. Works with
 * any server that speaks this shape (hosted APIs, local model servers, the test's fake).
 */
import { LineUpError, decodeJson, type JsonObject, type JsonValue } from "@lineup/protocol";
import { systemClock, type Clock } from "../platform.js";

export interface ChatToolCall {
  readonly id: string;
  readonly type: "function";
  readonly function: { readonly name: string; readonly arguments: string };
}

export type ChatMessage =
  | { readonly role: "system"; readonly content: string }
  | { readonly role: "user"; readonly content: string }
  | { readonly role: "assistant"; readonly content: string | null; readonly tool_calls?: readonly ChatToolCall[] }
  | { readonly role: "tool"; readonly tool_call_id: string; readonly content: string };

export interface ChatFunctionTool {
  readonly type: "function";
  readonly function: { readonly name: string; readonly description: string; readonly parameters: JsonObject };
}

export interface AssistantReply {
  readonly content: string | null;
  readonly toolCalls: readonly ChatToolCall[];
  readonly finishReason: string | null;
}

export interface ChatCompletionsConfig {
  /** e.g. `https://api.example.com/v1` or `http://127.0.0.1:11434/v1`; `/chat/completions` is appended. */
  readonly baseUrl: string;
  /** Sent as `Authorization: Bearer …` when present (local servers often need none). */
  readonly apiKey?: string;
  readonly model: string;
  readonly timeoutMs?: number;
  readonly temperature?: number;
  readonly fetch?: typeof fetch;
  readonly clock?: Clock;
}

export interface ChatCompletions {
  complete(messages: readonly ChatMessage[], tools: readonly ChatFunctionTool[], signal?: AbortSignal): Promise<AssistantReply>;
}

/**
 * Reads the adapter's configuration from the environment: `LINEUP_LLM_BASE_URL` (required),
 * `LINEUP_LLM_API_KEY`, `LINEUP_LLM_MODEL` (default `gpt-4o-mini`). Undefined when no base URL is set.
 */
export function llmConfigFromEnv(env: Readonly<Record<string, string | undefined>>): ChatCompletionsConfig | undefined {
  const baseUrl = env["LINEUP_LLM_BASE_URL"]?.trim();
  if (baseUrl === undefined || baseUrl === "") return undefined;
  const apiKey = env["LINEUP_LLM_API_KEY"]?.trim();
  return { baseUrl, model: env["LINEUP_LLM_MODEL"]?.trim() || "gpt-4o-mini", ...(apiKey === undefined || apiKey === "" ? {} : { apiKey }) };
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Parses a completion response body; throws a LineUpError when it is not the expected shape. */
export function parseCompletion(body: JsonValue): AssistantReply {
  const choice = isRecord(body) && Array.isArray(body["choices"]) ? body["choices"][0] : undefined;
  const message = isRecord(choice) ? choice["message"] : undefined;
  if (!isRecord(message)) throw new LineUpError("invalid_result", "the model's response has no choices[0].message");
  const content = typeof message["content"] === "string" ? message["content"] : null;
  const rawCalls = Array.isArray(message["tool_calls"]) ? message["tool_calls"] : [];
  const toolCalls: ChatToolCall[] = [];
  for (const call of rawCalls) {
    if (!isRecord(call) || typeof call["id"] !== "string" || !isRecord(call["function"]) || typeof call["function"]["name"] !== "string") {
      throw new LineUpError("invalid_result", "the model returned a malformed tool call");
    }
    const args = call["function"]["arguments"];
    toolCalls.push({ id: call["id"], type: "function", function: { name: call["function"]["name"], arguments: typeof args === "string" ? args : JSON.stringify(args ?? {}) } });
  }
  return { content, toolCalls, finishReason: isRecord(choice) && typeof choice["finish_reason"] === "string" ? choice["finish_reason"] : null };
}

export function createChatCompletions(config: ChatCompletionsConfig): ChatCompletions {
  const doFetch = config.fetch ?? globalThis.fetch;
  const clock = config.clock ?? systemClock;
  const url = `${config.baseUrl.replace(/\/+$/, "")}/chat/completions`;
  return {
    async complete(messages, tools, signal) {
      const controller = new AbortController();
      const timeoutMs = config.timeoutMs ?? 60_000;
      const timer = clock.setTimeout(() => controller.abort(), timeoutMs);
      const onAbort = (): void => controller.abort();
      signal?.addEventListener("abort", onAbort, { once: true });
      try {
        const body: Record<string, unknown> = { model: config.model, messages };
        if (tools.length > 0) body["tools"] = tools;
        if (config.temperature !== undefined) body["temperature"] = config.temperature;
        let response: Response;
        try {
          response = await doFetch(url, {
            method: "POST",
            headers: { "content-type": "application/json", ...(config.apiKey === undefined ? {} : { authorization: `Bearer ${config.apiKey}` }) },
            body: JSON.stringify(body),
            signal: controller.signal,
          });
        } catch (error) {
          if (signal?.aborted === true) throw new LineUpError("request_cancelled", "the model call was cancelled", { cause: error });
          if (controller.signal.aborted) throw new LineUpError("request_timeout", `the model did not answer within ${timeoutMs} ms`, { cause: error });
          throw new LineUpError("failed", `could not reach the model at ${url}`, { cause: error });
        }
        const text = await response.text();
        if (!response.ok) throw new LineUpError(response.status === 429 ? "rate_limited" : "failed", `the model endpoint answered HTTP ${response.status}: ${text.slice(0, 300)}`);
        const json = decodeJson(text, { maxBytes: 16 * 1_048_576, maxDepth: 128 });
        if (!json.ok) throw new LineUpError("invalid_result", `the model's response is not safe JSON: ${json.error.message}`);
        return parseCompletion(json.value);
      } finally {
        clock.clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
      }
    },
  };
}
