/**
 * A minimal client of the OpenAI-compatible `POST {base}/chat/completions` endpoint, over plain
 * `fetch` (no SDK): messages in, one assistant message (text and/or tool calls) out. Works with
 * any server that speaks this shape (hosted APIs, local model servers, the test's fake).
 *
 * The answer is asked for as a stream (`stream: true`): server-sent events (`sse.ts`) folded into the
 * same assistant message a JSON answer carries (`completion-stream.ts`), its text handed on as it
 * arrives. A server that answers with JSON anyway is read as JSON. HTTP 429 and 5xx are asked again,
 * a bounded number of times, after the wait `Retry-After` names or the agent's backoff (`RetryPolicy`);
 * the caller's signal aborts the request, the stream and any wait between attempts. An answer may be asked
 * for as structured output (`response_format`: a JSON Schema the answer must match, or any JSON object).
 */
import { LineUpError, decodeJson, type JsonObject, type JsonValue, isRecord } from "@lineup/protocol";
import { backoffDelay } from "../backoff.js";
import { systemClock, type Clock, type Random, type TimerHandle } from "../platform.js";
import { CompletionStream } from "./completion-stream.js";
import { SseParser } from "./sse.js";

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

/** How the answer is to be shaped (the `response_format` of the request). */
export type ResponseFormat =
  | { readonly type: "json_schema"; readonly json_schema: { readonly name: string; readonly schema: JsonObject; readonly strict?: boolean; readonly description?: string } }
  | { readonly type: "json_object" };

export interface CompletionOptions {
  /** Sent as `response_format`: the model is to answer with JSON (matching the schema, for `json_schema`). */
  readonly responseFormat?: ResponseFormat;
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
  /**
   * Most time, in ms, with nothing from the model: before its answer starts, and between two pieces of a
   * streamed answer (a long answer that keeps coming is not cut). Default 60 000.
   */
  readonly timeoutMs?: number;
  readonly temperature?: number;
  /** Ask for the answer as server-sent events (`stream: true`). Default true; a server that answers with plain JSON anyway is read as such. */
  readonly stream?: boolean;
  readonly retry?: RetryPolicy;
  readonly fetch?: typeof fetch;
  readonly clock?: Clock;
  /** Jitter of the retry backoff; default `Math.random`. */
  readonly random?: Random;
}

/**
 * How an answer the server could not give now (HTTP 429, 5xx) is asked for again: up to `maxAttempts`
 * requests in all, after the wait the server's `Retry-After` asks for, else after the backoff
 * (`backoffDelay`). A wait the server asks for that is longer than `maxWaitMs` is not waited: the call
 * fails at once, saying so. Any other HTTP error fails at once.
 */
export interface RetryPolicy {
  /** Requests in all, the first included. Default 3. */
  readonly maxAttempts?: number;
  /** Longest wait before a retry, ms. Default 20 000. */
  readonly maxWaitMs?: number;
  /** Backoff before the first retry when the server names no wait, ms. Default 500. */
  readonly initialMs?: number;
}

export interface ChatCompletions {
  /**
   * One assistant message for `messages`. `onText` hears the answer's text as it streams in (not at all
   * when the server does not stream), never after `signal` aborted. Rejects with a LineUpError:
   * `request_cancelled` (aborted), `request_timeout`, `rate_limited` (429 after the retries), `failed`
   * (unreachable, another HTTP error, a stream cut short), `invalid_result` (not the expected shape).
   */
  complete(messages: readonly ChatMessage[], tools: readonly ChatFunctionTool[], signal?: AbortSignal, onText?: (delta: string) => void, options?: CompletionOptions): Promise<AssistantReply>;
}

/**
 * Reads the adapter's configuration from the environment: `LINEUP_LLM_BASE_URL` (required; else
 * `OPENAI_BASE_URL`), `LINEUP_LLM_API_KEY` (else `OPENAI_API_KEY`), `LINEUP_LLM_MODEL` (default
 * `gpt-4o-mini`). Undefined when neither base URL is set. A variable set to blanks counts as unset.
 */
export function llmConfigFromEnv(env: Readonly<Record<string, string | undefined>>): ChatCompletionsConfig | undefined {
  const read = (...names: string[]): string | undefined => {
    for (const name of names) {
      const value = env[name]?.trim();
      if (value !== undefined && value !== "") return value;
    }
    return undefined;
  };
  const baseUrl = read("LINEUP_LLM_BASE_URL", "OPENAI_BASE_URL");
  if (baseUrl === undefined) return undefined;
  const apiKey = read("LINEUP_LLM_API_KEY", "OPENAI_API_KEY");
  return { baseUrl, model: read("LINEUP_LLM_MODEL") ?? "gpt-4o-mini", ...(apiKey === undefined ? {} : { apiKey }) };
}

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

/**
 * The wait a refusal asks for, in ms from `now`: OpenAI's `retry-after-ms`, else `Retry-After` as
 * delta-seconds or an HTTP date (RFC 9110 §10.2.3). Undefined when absent or unreadable.
 */
export function retryAfterMs(headers: { get(name: string): string | null }, now: number): number | undefined {
  const ms = headers.get("retry-after-ms")?.trim();
  if (ms !== undefined && /^\d+(\.\d+)?$/.test(ms)) return Math.ceil(Number(ms));
  const value = headers.get("retry-after")?.trim();
  if (value === undefined || value === "") return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.ceil(Number(value) * 1_000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

type Attempt = { readonly ok: true; readonly reply: AssistantReply } | { readonly ok: false; readonly status: number; readonly body: string; readonly retryAfterMs: number | undefined };

const cancelled = (cause?: unknown): LineUpError => new LineUpError("request_cancelled", "the model call was cancelled", cause === undefined ? undefined : { cause });

/**
 * Reads a streamed answer to its end (`[DONE]`, or the body's end after a `finish_reason`). `heard` is
 * told of every piece that arrives; `onText` of the text in it, and of nothing once `signal` aborted.
 */
async function readEventStream(body: ReadableStream<Uint8Array>, heard: () => void, signal: AbortSignal | undefined, onText: ((delta: string) => void) | undefined): Promise<AssistantReply> {
  const reader = body.getReader();
  const parser = new SseParser();
  const completion = new CompletionStream(onText === undefined ? undefined : (delta) => {
    if (signal?.aborted !== true) onText(delta);
  });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (signal?.aborted === true) throw cancelled();
      if (!done) heard();
      for (const event of done ? parser.end() : parser.push(value)) {
        if (completion.add(event.data, event.event)) return completion.result();
      }
      if (done) break;
    }
  } finally {
    // Reading stops here — after [DONE], on a malformed event, on abort — and the connection is let go.
    reader.cancel().catch(() => undefined);
  }
  if (!completion.finished) throw new LineUpError("failed", "the model's stream ended before its answer did");
  return completion.result();
}

export function createChatCompletions(config: ChatCompletionsConfig): ChatCompletions {
  const doFetch = config.fetch ?? globalThis.fetch;
  const clock = config.clock ?? systemClock;
  const random = config.random ?? Math.random;
  const url = `${config.baseUrl.replace(/\/+$/, "")}/chat/completions`;
  const timeoutMs = config.timeoutMs ?? 60_000;
  const maxAttempts = Math.max(1, Math.floor(config.retry?.maxAttempts ?? 3));
  const maxWaitMs = config.retry?.maxWaitMs ?? 20_000;
  const initialMs = config.retry?.initialMs ?? 500;

  /** One request: the answer, or the HTTP status it was refused with (the caller decides on a retry). */
  async function attempt(body: string, signal: AbortSignal | undefined, onText: ((delta: string) => void) | undefined): Promise<Attempt> {
    const controller = new AbortController();
    const silence = (): TimerHandle => clock.setTimeout(() => controller.abort(), timeoutMs);
    let timer = silence();
    // Anything from the model starts the wait again: the timeout is for silence, not for a long answer.
    const heard = (): void => {
      clock.clearTimeout(timer);
      timer = silence();
    };
    const onAbort = (): void => controller.abort();
    signal?.addEventListener("abort", onAbort, { once: true });
    if (signal?.aborted === true) controller.abort();
    const broken = (error: unknown, what: string): LineUpError => {
      if (signal?.aborted === true) return cancelled(error);
      if (controller.signal.aborted) return new LineUpError("request_timeout", `the model sent nothing for ${timeoutMs} ms`, { cause: error });
      return error instanceof LineUpError ? error : new LineUpError("failed", what, { cause: error });
    };
    try {
      let response: Response;
      try {
        response = await doFetch(url, {
          method: "POST",
          headers: { "content-type": "application/json", ...(config.apiKey === undefined ? {} : { authorization: `Bearer ${config.apiKey}` }) },
          body,
          signal: controller.signal,
        });
      } catch (error) {
        throw broken(error, `could not reach the model at ${url}`);
      }
      heard();
      if (!response.ok) {
        const text = await response.text().catch(() => "");
        return { ok: false, status: response.status, body: text, retryAfterMs: retryAfterMs(response.headers, clock.now()) };
      }
      if (/^\s*text\/event-stream/i.test(response.headers.get("content-type") ?? "") && response.body !== null) {
        try {
          return { ok: true, reply: await readEventStream(response.body, heard, signal, onText) };
        } catch (error) {
          throw broken(error, "the model's stream broke off");
        }
      }
      // Not a stream (a server that ignores `stream`, or it was not asked for): one JSON answer.
      let text: string;
      try {
        text = await response.text();
      } catch (error) {
        throw broken(error, "the model's answer broke off");
      }
      const json = decodeJson(text, { maxBytes: 16 * 1_048_576, maxDepth: 128 });
      if (!json.ok) throw new LineUpError("invalid_result", `the model's response is not safe JSON: ${json.error.message}`);
      return { ok: true, reply: parseCompletion(json.value) };
    } finally {
      clock.clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    }
  }

  /** Waits `ms`, or rejects `request_cancelled` as soon as `signal` aborts. */
  function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted === true) {
        reject(cancelled());
        return;
      }
      const onAbort = (): void => {
        clock.clearTimeout(timer);
        reject(cancelled());
      };
      const timer = clock.setTimeout(() => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      }, ms);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  return {
    async complete(messages, tools, signal, onText, options = {}) {
      const request: Record<string, unknown> = { model: config.model, messages };
      if (tools.length > 0) request["tools"] = tools;
      if (options.responseFormat !== undefined) request["response_format"] = options.responseFormat;
      if (config.temperature !== undefined) request["temperature"] = config.temperature;
      if (config.stream !== false) request["stream"] = true;
      const body = JSON.stringify(request);
      for (let attempts = 1; ; attempts++) {
        const outcome = await attempt(body, signal, onText);
        if (outcome.ok) return outcome.reply;
        if (signal?.aborted === true) throw cancelled();
        const { status } = outcome;
        const retryable = status === 429 || (status >= 500 && status <= 599);
        const wait = outcome.retryAfterMs ?? backoffDelay(attempts - 1, random(), { initialMs, maxMs: maxWaitMs });
        if (retryable && attempts < maxAttempts && wait <= maxWaitMs) {
          await pause(wait, signal);
          continue;
        }
        const asked = retryable && attempts < maxAttempts ? ` and asks to wait ${Math.ceil(wait / 1_000)} s` : "";
        const tries = attempts > 1 ? ` (${attempts} attempts)` : "";
        throw new LineUpError(status === 429 ? "rate_limited" : "failed", `the model endpoint answered HTTP ${status}${tries}${asked}: ${outcome.body.slice(0, 300)}`, { data: { status, attempts } });
      }
    },
  };
}
