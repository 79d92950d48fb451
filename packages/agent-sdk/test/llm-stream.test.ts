/**
 * The streamed answer, piece by piece: the server-sent-events parser (chunks cut at every byte, CRLF,
 * comments, [DONE], malformed input), the fold of chunks into the one assistant message, the
 * chat-completions client over a stream (and its retries), and the batching of text into turn updates.
 */
import { describe, expect, it } from "vitest";
import { LineUpError } from "@lineup/protocol";
import { CompletionStream, SseParser, createChatCompletions, parseCompletion, retryAfterMs, streamTurnText, type Clock, type SseEvent, type TurnUpdate } from "../src/index.js";

const encoder = new TextEncoder();

/** Parses `bytes` fed as the given chunks (cut at the given offsets). */
function parseCut(bytes: Uint8Array, cuts: readonly number[]): SseEvent[] {
  const parser = new SseParser();
  const events: SseEvent[] = [];
  let from = 0;
  for (const cut of [...cuts, bytes.length]) {
    events.push(...parser.push(bytes.subarray(from, cut)));
    from = cut;
  }
  events.push(...parser.end());
  return events;
}

// A stream with CRLF, LF and CR line ends, comments, an event name, an id, a two-line event, multi-byte
// UTF-8 (2, 3 and 4 bytes) and the terminator.
const SAMPLE =
  ": keep-alive\r\n" +
  'data: {"choices":[{"index":0,"delta":{"content":"Grüße "}}]}\r\n\r\n' +
  "event: note\nid: 7\ndata: first line\ndata: second line\n\n" +
  'data: {"choices":[{"index":0,"delta":{"content":"— 世界 🌍"}}]}\r\r' +
  ":comment between\n" +
  "data:no-space\r\n\r\n" +
  "data: one\r\ndata: two\r\n\r\n" +
  "data: [DONE]\r\n\r\n";
const SAMPLE_EVENTS: SseEvent[] = [
  { event: "message", data: '{"choices":[{"index":0,"delta":{"content":"Grüße "}}]}' },
  { event: "note", data: "first line\nsecond line", id: "7" },
  { event: "message", data: '{"choices":[{"index":0,"delta":{"content":"— 世界 🌍"}}]}', id: "7" },
  { event: "message", data: "no-space", id: "7" },
  { event: "message", data: "one\ntwo", id: "7" },
  { event: "message", data: "[DONE]", id: "7" },
];

describe("the server-sent events parser", () => {
  it("reads the sample whole", () => {
    expect(parseCut(encoder.encode(SAMPLE), [])).toEqual(SAMPLE_EVENTS);
  });

  it("gives the same events however the bytes are cut: at every byte position, and one byte at a time", () => {
    const bytes = encoder.encode(SAMPLE);
    for (let cut = 0; cut <= bytes.length; cut++) expect(parseCut(bytes, [cut]), `cut at byte ${cut}`).toEqual(SAMPLE_EVENTS);
    // Two cuts: every CR/LF pair and every multi-byte character split in every way with another cut elsewhere.
    for (let a = 1; a < bytes.length; a += 7) for (let b = a + 1; b < bytes.length; b += 5) expect(parseCut(bytes, [a, b])).toEqual(SAMPLE_EVENTS);
    expect(parseCut(bytes, [...Array(bytes.length).keys()].slice(1))).toEqual(SAMPLE_EVENTS);
  });

  it("treats CRLF, LF and CR alike, and a CR ending one chunk with the LF starting the next as one line end", () => {
    const lines = ["data: a", "data: b", "", "data: c", ""];
    const want = [
      { event: "message", data: "a\nb" },
      { event: "message", data: "c" },
    ];
    for (const eol of ["\r\n", "\n", "\r"]) expect(parseCut(encoder.encode(lines.join(eol) + eol), [])).toEqual(want);
    const parser = new SseParser();
    expect(parser.push("data: a\r")).toEqual([]);
    expect(parser.push("\ndata: b\r")).toEqual([]);
    expect(parser.push("\n\r")).toEqual([{ event: "message", data: "a\nb" }]);
    expect(parser.push("\n")).toEqual([]);
    expect(parser.end()).toEqual([]);
  });

  it("ignores comments and fields it does not know, and dispatches no event without data", () => {
    const events = parseCut(encoder.encode(": hello\n\nretry: 3000\nfoo: bar\n\nevent: ping\n\n:\ndata\n\n"), []);
    expect(events).toEqual([{ event: "message", data: "" }]);
  });

  it("counts a last event that lacks its blank line, or its newline, when the stream ends", () => {
    expect(parseCut(encoder.encode("data: [DONE]"), [])).toEqual([{ event: "message", data: "[DONE]" }]);
    expect(parseCut(encoder.encode("data: x\n"), [])).toEqual([{ event: "message", data: "x" }]);
  });

  it("refuses an event longer than its limit with a typed error instead of buffering without end", () => {
    const parser = new SseParser({ maxEventChars: 64 });
    expect(() => parser.push(`data: ${"x".repeat(100)}`)).toThrow(expect.objectContaining({ code: "invalid_result" }) as Error);
    const lines = new SseParser({ maxEventChars: 64 });
    expect(() => {
      for (let i = 0; i < 20; i++) lines.push("data: 0123456789\n");
    }).toThrow(LineUpError);
  });
});

const chunk = (delta: object, finish: string | null = null) => JSON.stringify({ id: "c", object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: finish }] });

describe("the fold of a streamed completion", () => {
  it("joins the text, assembles each tool call from its pieces by index, and gives what the JSON answer gives", () => {
    const heard: string[] = [];
    const stream = new CompletionStream((d) => heard.push(d));
    const events = [
      chunk({ role: "assistant", content: "" }),
      chunk({ content: "Let me " }),
      chunk({ content: "draw." }),
      chunk({ tool_calls: [{ index: 0, id: "call_a", type: "function", function: { name: "whiteboard__board_create", arguments: "" } }] }),
      chunk({ tool_calls: [{ index: 1, id: "call_b", type: "function", function: { name: "pomodoro__pomodoro_start", arguments: '{"min' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{"ti' } }] }),
      chunk({ tool_calls: [{ index: 1, function: { arguments: 'utes":25}' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: 'tle":"cat"}' } }] }),
      chunk({}, "tool_calls"),
      JSON.stringify({ id: "c", choices: [], usage: { total_tokens: 12 } }),
    ];
    for (const data of events) expect(stream.add(data)).toBe(false);
    expect(stream.add("[DONE]")).toBe(true);
    const reply = stream.result();
    expect(heard).toEqual(["Let me ", "draw."]);
    expect(reply).toEqual(
      parseCompletion({
        choices: [
          {
            index: 0,
            finish_reason: "tool_calls",
            message: {
              role: "assistant",
              content: "Let me draw.",
              tool_calls: [
                { id: "call_a", type: "function", function: { name: "whiteboard__board_create", arguments: '{"title":"cat"}' } },
                { id: "call_b", type: "function", function: { name: "pomodoro__pomodoro_start", arguments: '{"minutes":25}' } },
              ],
            },
          },
        ],
      }),
    );
  });

  it("has no content (null) when the model only called tools, and tells no text", () => {
    const heard: string[] = [];
    const stream = new CompletionStream((d) => heard.push(d));
    stream.add(chunk({ tool_calls: [{ index: 0, id: "x", function: { name: "f", arguments: "{}" } }] }, "tool_calls"));
    expect(stream.result()).toEqual({ content: null, toolCalls: [{ id: "x", type: "function", function: { name: "f", arguments: "{}" } }], finishReason: "tool_calls" });
    expect(heard).toEqual([]);
  });

  it.each([
    ["not JSON", "{nope", "invalid_result"],
    ["JSON that is not an object", "[1,2]", "invalid_result"],
    ["a chunk without choices", '{"id":"c"}', "invalid_result"],
    ["a malformed delta", '{"choices":[{"index":0,"delta":"x"}]}', "invalid_result"],
    ["a forbidden key", '{"choices":[],"__proto__":{}}', "invalid_result"],
    ["an error the server reports in the stream", '{"error":{"message":"overloaded"}}', "failed"],
  ])("refuses %s with a typed error", (_what, data, code) => {
    let thrown: unknown;
    try {
      new CompletionStream().add(data);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(LineUpError);
    expect((thrown as LineUpError).code).toBe(code);
  });

  it("refuses a tool call that never got its name", () => {
    const stream = new CompletionStream();
    stream.add(chunk({ tool_calls: [{ index: 0, function: { arguments: "{}" } }] }, "tool_calls"));
    expect(() => stream.result()).toThrow(expect.objectContaining({ code: "invalid_result" }) as Error);
  });
});

/** A `fetch` that answers each request with the next scripted response, and records the requests. */
function scriptedFetch(responses: (() => Response)[]): { fetch: typeof fetch; bodies: Record<string, unknown>[] } {
  const bodies: Record<string, unknown>[] = [];
  const fetchFn = (async (_url: string, init: RequestInit) => {
    bodies.push(JSON.parse(init.body as string) as Record<string, unknown>);
    const next = responses[bodies.length - 1];
    if (next === undefined) throw new Error("script exhausted");
    return next();
  }) as unknown as typeof fetch;
  return { fetch: fetchFn, bodies };
}

/** A streamed response whose body is `bytes` cut at `cuts`. */
function streamed(bytes: Uint8Array, cuts: readonly number[] = [], signal?: AbortSignal): Response {
  const pieces: Uint8Array[] = [];
  let from = 0;
  for (const cut of [...cuts, bytes.length]) {
    pieces.push(bytes.subarray(from, cut));
    from = cut;
  }
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (signal?.aborted === true) {
        controller.error(signal.reason);
        return;
      }
      const next = pieces.shift();
      if (next === undefined) controller.close();
      else controller.enqueue(next);
    },
  });
  return new Response(body, { headers: { "content-type": "text/event-stream; charset=utf-8" } });
}

const TEXT_STREAM = encoder.encode(
  [chunk({ role: "assistant" }), chunk({ content: "Ça " }), chunk({ content: "marche 👍" }), chunk({}, "stop")].map((d) => `data: ${d}\r\n\r\n`).join("") + "data: [DONE]\r\n\r\n",
);

describe("the chat-completions client over a stream", () => {
  it("asks for a stream and gives the same reply and text however the stream is cut", async () => {
    for (let cut = 0; cut <= TEXT_STREAM.length; cut += 3) {
      const { fetch, bodies } = scriptedFetch([() => streamed(TEXT_STREAM, [cut])]);
      const heard: string[] = [];
      const reply = await createChatCompletions({ baseUrl: "http://model/v1", model: "m", fetch }).complete([{ role: "user", content: "hi" }], [], undefined, (d) => heard.push(d));
      expect(reply).toEqual({ content: "Ça marche 👍", toolCalls: [], finishReason: "stop" });
      expect(heard.join("")).toBe("Ça marche 👍");
      expect(bodies[0]!["stream"]).toBe(true);
    }
  });

  it("reads a JSON answer to a streaming request as before, and asks for none when streaming is off", async () => {
    const json = () => new Response(JSON.stringify({ choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: "plain" } }] }), { headers: { "content-type": "application/json" } });
    const { fetch, bodies } = scriptedFetch([json, json]);
    const heard: string[] = [];
    expect((await createChatCompletions({ baseUrl: "http://model/v1", model: "m", fetch }).complete([], [], undefined, (d) => heard.push(d))).content).toBe("plain");
    expect(heard).toEqual([]);
    expect((await createChatCompletions({ baseUrl: "http://model/v1", model: "m", fetch, stream: false }).complete([], [])).content).toBe("plain");
    expect(bodies[1]!["stream"]).toBeUndefined();
  });

  it("fails with a typed error on a malformed event, and on a stream that ends before the answer", async () => {
    const bad = encoder.encode(`data: ${chunk({ content: "ok" })}\n\ndata: {oops\n\n`);
    const cut = encoder.encode(`data: ${chunk({ content: "half" })}\n\n`);
    const { fetch } = scriptedFetch([() => streamed(bad), () => streamed(cut)]);
    const client = createChatCompletions({ baseUrl: "http://model/v1", model: "m", fetch });
    await expect(client.complete([], [])).rejects.toMatchObject({ code: "invalid_result" });
    await expect(client.complete([], [])).rejects.toMatchObject({ code: "failed", message: expect.stringContaining("ended before") as unknown });
  });

  it("tells no text once the caller aborted, and rejects request_cancelled", async () => {
    const controller = new AbortController();
    const heard: string[] = [];
    const { fetch } = scriptedFetch([() => streamed(TEXT_STREAM, [...Array(TEXT_STREAM.length).keys()].slice(1), controller.signal)]);
    const call = createChatCompletions({ baseUrl: "http://model/v1", model: "m", fetch }).complete([], [], controller.signal, (d) => {
      heard.push(d);
      controller.abort();
    });
    await expect(call).rejects.toMatchObject({ code: "request_cancelled" });
    expect(heard).toEqual(["Ça "]);
  });

  it("fails at once, without waiting, when Retry-After asks for longer than the longest wait; another 4xx is not retried", async () => {
    const { fetch, bodies } = scriptedFetch([
      () => new Response("slow down", { status: 429, headers: { "retry-after": "3600" } }),
      () => new Response("bad request", { status: 400 }),
    ]);
    const client = createChatCompletions({ baseUrl: "http://model/v1", model: "m", fetch, retry: { maxWaitMs: 5_000 } });
    const started = Date.now();
    await expect(client.complete([], [])).rejects.toMatchObject({ code: "rate_limited", message: expect.stringContaining("asks to wait 3600 s") as unknown });
    await expect(client.complete([], [])).rejects.toMatchObject({ code: "failed", message: expect.stringContaining("HTTP 400: bad request") as unknown, data: { status: 400, attempts: 1 } });
    expect(bodies).toHaveLength(2);
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it("waits between attempts with the backoff when no Retry-After is given, and an abort ends the wait", async () => {
    const waits: number[] = [];
    const clock: Clock = {
      now: () => 0,
      setTimeout: (callback, ms) => {
        waits.push(ms);
        return ms === 60_000 ? undefined : setTimeout(callback, 0);
      },
      clearTimeout: () => undefined,
    };
    const { fetch, bodies } = scriptedFetch([() => new Response("", { status: 502 }), () => new Response("", { status: 503 }), () => new Response("", { status: 504 })]);
    const client = createChatCompletions({ baseUrl: "http://model/v1", model: "m", fetch, clock, random: () => 0.5, retry: { initialMs: 400 } });
    await expect(client.complete([], [])).rejects.toMatchObject({ code: "failed", message: expect.stringContaining("HTTP 504 (3 attempts)") as unknown });
    expect(bodies).toHaveLength(3);
    // The request timers (60 s) aside: 400 ms then 800 ms ceilings, half fixed and half jitter.
    expect(waits.filter((ms) => ms !== 60_000)).toEqual([300, 600]);

    const controller = new AbortController();
    const hanging = createChatCompletions({ baseUrl: "http://model/v1", model: "m", fetch: scriptedFetch([() => new Response("", { status: 500, headers: { "retry-after": "5" } })]).fetch });
    const call = hanging.complete([], [], controller.signal);
    setTimeout(() => controller.abort(), 20);
    const started = Date.now();
    await expect(call).rejects.toMatchObject({ code: "request_cancelled" });
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it("reads Retry-After as seconds or an HTTP date, and OpenAI's retry-after-ms", () => {
    const headers = (h: Record<string, string>) => new Headers(h);
    const now = Date.parse("2026-12-01T09:00:00.000Z");
    expect(retryAfterMs(headers({ "retry-after": "2" }), now)).toBe(2_000);
    expect(retryAfterMs(headers({ "retry-after": "0.5" }), now)).toBe(500);
    expect(retryAfterMs(headers({ "retry-after": "Tue, 01 Dec 2026 09:00:30 GMT" }), now)).toBe(30_000);
    expect(retryAfterMs(headers({ "retry-after": "Tue, 01 Dec 2026 08:00:00 GMT" }), now)).toBe(0);
    expect(retryAfterMs(headers({ "retry-after-ms": "1500", "retry-after": "9" }), now)).toBe(1_500);
    expect(retryAfterMs(headers({ "retry-after": "soon" }), now)).toBeUndefined();
    expect(retryAfterMs(headers({}), now)).toBeUndefined();
  });
});

/** A clock the test moves by hand. */
function manualClock(): Clock & { advance(ms: number): void } {
  let now = 0;
  const timers = new Map<number, { at: number; callback: () => void }>();
  let next = 1;
  return {
    now: () => now,
    setTimeout(callback, ms) {
      const id = next++;
      timers.set(id, { at: now + ms, callback });
      return id;
    },
    clearTimeout(handle) {
      timers.delete(handle as number);
    },
    advance(ms) {
      const until = now + ms;
      for (;;) {
        const due = [...timers.entries()].filter(([, t]) => t.at <= until).sort((a, b) => a[1].at - b[1].at)[0];
        if (due === undefined) break;
        timers.delete(due[0]);
        now = due[1].at;
        due[1].callback();
      }
      now = until;
    },
  };
}

describe("a turn's streamed text as turn updates", () => {
  const recorder = () => {
    const sent: string[] = [];
    return { sent, client: { updateTurn: async (_s: string, _t: string, update: TurnUpdate) => (sent.push(update.textDelta ?? ""), sent.length) } };
  };

  it("sends the first piece at once, then at most one update per interval with everything that came meanwhile", async () => {
    const clock = manualClock();
    const { sent, client } = recorder();
    const text = streamTurnText(client, "s", "t", new AbortController().signal, { clock, intervalMs: 80 });
    text.push("He");
    expect(sent).toEqual(["He"]);
    for (let i = 0; i < 10; i++) {
      clock.advance(10);
      text.push(`${i}`);
    }
    // 100 ms of pieces: one update at 80 ms, the rest waits for 160 ms.
    expect(sent).toEqual(["He", "0123456"]);
    clock.advance(60);
    expect(sent).toEqual(["He", "0123456", "789"]);
    text.push("!");
    await text.flush();
    expect(sent).toEqual(["He", "0123456", "789", "!"]);
    expect(text.updates).toBe(4);
  });

  it("starts a new paragraph after a step, sends a long backlog at once in pieces (never inside a surrogate pair), and nothing after an abort", async () => {
    const clock = manualClock();
    const { sent, client } = recorder();
    const controller = new AbortController();
    const text = streamTurnText(client, "s", "t", controller.signal, { clock, intervalMs: 80, maxChars: 4 });
    text.endParagraph();
    text.push("ab");
    text.endParagraph();
    text.push("c🌍de");
    expect(sent).toEqual(["ab", "\n\nc", "🌍de"]);
    text.push("x");
    controller.abort();
    clock.advance(1_000);
    text.push("y");
    await text.flush();
    expect(sent).toEqual(["ab", "\n\nc", "🌍de"]);
  });
});
