/**
 * An incremental parser of server-sent events (the WHATWG `text/event-stream` format), for the model's
 * streamed answer. Bytes go in as they arrive, cut anywhere (inside a line, a CRLF pair or a UTF-8
 * sequence); complete events come out. Lines end with CRLF, LF or CR; a line starting with `:` is a
 * comment; `data:` lines of one event are joined with `\n`; a blank line ends the event; an event with
 * no data is not dispatched.
 *
 * Two leniencies, both for servers seen in the wild: a last line without its newline, and a last event
 * without its blank line, still count when the stream ends (`end()`).
 *
 * Untrusted input: the bytes buffered for one event are bounded (`maxEventChars`); past it the parser
 * throws a typed `invalid_result` instead of growing without end.
 */
import { LineUpError } from "@lineup/protocol";

export interface SseEvent {
  /** The `event:` field; `message` when absent. */
  readonly event: string;
  readonly data: string;
  /** The `id:` field, when the event had one. */
  readonly id?: string;
}

export interface SseParserOptions {
  /** Most characters one event may buffer (its data and its current line). Default 16 MiB. */
  readonly maxEventChars?: number;
}

const NEWLINE = /[\r\n]/g;
const LF = 10;
const CR = 13;

export class SseParser {
  private readonly decoder = new TextDecoder("utf-8");
  private readonly maxEventChars: number;
  /** The current line, not yet ended. */
  private line = "";
  /** The last chunk ended with CR: an LF at the start of the next one belongs to it. */
  private skipLineFeed = false;
  private data: string[] = [];
  private dataChars = 0;
  private event = "";
  private id: string | undefined;
  private ended = false;

  constructor(options: SseParserOptions = {}) {
    this.maxEventChars = options.maxEventChars ?? 16 * 1_048_576;
  }

  /** Feeds the next piece of the stream; returns the events it completed, in order. */
  push(chunk: Uint8Array | string): SseEvent[] {
    if (this.ended) throw new Error("SseParser: push after end");
    const out: SseEvent[] = [];
    this.feed(typeof chunk === "string" ? chunk : this.decoder.decode(chunk, { stream: true }), out);
    return out;
  }

  /** The stream ended: returns what its last, unterminated line and event complete. */
  end(): SseEvent[] {
    if (this.ended) return [];
    this.ended = true;
    const out: SseEvent[] = [];
    this.feed(this.decoder.decode(), out);
    if (this.line !== "") this.processLine(this.line, out);
    this.line = "";
    this.dispatch(out);
    return out;
  }

  private feed(text: string, out: SseEvent[]): void {
    let index = 0;
    if (this.skipLineFeed && text.length > 0) {
      if (text.charCodeAt(0) === LF) index = 1;
      this.skipLineFeed = false;
    }
    while (index < text.length) {
      NEWLINE.lastIndex = index;
      const match = NEWLINE.exec(text);
      if (match === null) {
        this.line += text.slice(index);
        this.checkSize();
        return;
      }
      const end = match.index;
      const line = this.line + text.slice(index, end);
      this.line = "";
      this.processLine(line, out);
      if (text.charCodeAt(end) === CR && end + 1 === text.length) {
        // CR last in this chunk: the chunk after it may begin with the LF of the same line end.
        this.skipLineFeed = true;
        index = end + 1;
      } else {
        index = text.charCodeAt(end) === CR && text.charCodeAt(end + 1) === LF ? end + 2 : end + 1;
      }
    }
  }

  private processLine(line: string, out: SseEvent[]): void {
    if (line === "") {
      this.dispatch(out);
      return;
    }
    if (line.charCodeAt(0) === 58 /* ":" */) return;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32 /* " " */) value = value.slice(1);
    switch (field) {
      case "data":
        this.data.push(value);
        this.dataChars += value.length + 1;
        this.checkSize();
        break;
      case "event":
        this.event = value;
        break;
      case "id":
        if (!value.includes("\u0000")) this.id = value;
        break;
      default:
        // `retry` (reconnection time) and unknown fields: nothing to do for a one-shot response.
        break;
    }
  }

  private dispatch(out: SseEvent[]): void {
    if (this.data.length > 0) {
      const event: SseEvent = { event: this.event === "" ? "message" : this.event, data: this.data.join("\n"), ...(this.id === undefined ? {} : { id: this.id }) };
      out.push(event);
    }
    this.data = [];
    this.dataChars = 0;
    this.event = "";
  }

  private checkSize(): void {
    if (this.line.length + this.dataChars > this.maxEventChars) {
      throw new LineUpError("invalid_result", `the model's event stream has an event longer than ${this.maxEventChars} characters`);
    }
  }
}
