/**
 * Shape checks for the apps' capability inputs (the gateway only checks that an input is JSON; the
 * shape is the host's). Pure: every check returns the typed input or a closed `failed` result with
 * `invalid_arguments`, so the browser code never touches a device for a malformed request.
 * Inputs are closed objects: an unknown key is refused, like the protocol's own schemas.
 */
import { base64ToBytes, capabilityRefused, isSafeFileName, type CapabilityRefusal, type JsonValue } from "@lineup/protocol";

export type Checked<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly refusal: CapabilityRefusal };

/** The default bound on one capability's artifacts (a picked file, a recording, saved data). */
export const DEFAULT_MAX_ARTIFACT_BYTES = 16 * 1_048_576;
export const DEFAULT_RECORDING_MS = 60_000;
export const MAX_RECORDING_MS = 600_000;

export interface FilePickInput {
  /** MIME types (`image/png`, `image/*`) or extensions (`.txt`); empty means any file. */
  readonly accept: readonly string[];
  readonly multiple: boolean;
  /** Per file, and for all files together; never above the host's artifact limit. */
  readonly max_bytes: number;
}

export interface FileSaveInput {
  readonly name: string;
  readonly mime_type: string;
  readonly bytes: Uint8Array;
}

export interface NotificationInput {
  readonly title: string;
  readonly body: string | undefined;
}

export interface MicrophoneInput {
  readonly max_ms: number;
}

export interface ClipboardInput {
  readonly text: string;
}

export interface LinkInput {
  /** The normalised https URL. */
  readonly url: string;
}

export interface AttentionInput {
  readonly text: string | undefined;
}

const MIME_PATTERN = /^[a-z][a-z0-9!#$&^_.+-]{0,63}\/(?:\*|[a-z0-9][a-z0-9!#$&^_.+-]{0,126})$/i;
const EXTENSION_PATTERN = /^\.[a-z0-9][a-z0-9_+-]{0,31}$/i;

const invalid = (message: string): { ok: false; refusal: CapabilityRefusal } => ({ ok: false, refusal: capabilityRefused("failed", message, "invalid_arguments") });
const valid = <T>(value: T): { ok: true; value: T } => ({ ok: true, value });

type JsonObject = { readonly [key: string]: JsonValue };

function objectInput(input: JsonValue, allowed: readonly string[], what: string): Checked<JsonObject> {
  if (input === null || typeof input !== "object" || Array.isArray(input)) return invalid(`${what} expects an object`);
  const unknown = Object.keys(input).find((key) => !allowed.includes(key));
  if (unknown !== undefined) return invalid(`${what} does not take "${unknown.slice(0, 40)}"`);
  return valid(input as JsonObject);
}

function optionalString(value: JsonValue | undefined, field: string, max: number): Checked<string | undefined> {
  if (value === undefined) return valid(undefined);
  if (typeof value !== "string") return invalid(`${field} must be a string`);
  if (value.length > max) return invalid(`${field} is longer than ${max} characters`);
  return valid(value);
}

function requiredString(value: JsonValue | undefined, field: string, max: number): Checked<string> {
  if (value === undefined) return invalid(`${field} is required`);
  const checked = optionalString(value, field, max);
  if (!checked.ok) return checked;
  if (checked.value === undefined || checked.value.length === 0) return invalid(`${field} must not be empty`);
  return valid(checked.value);
}

function positiveInteger(value: JsonValue | undefined, field: string): Checked<number | undefined> {
  if (value === undefined) return valid(undefined);
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1) return invalid(`${field} must be a positive integer`);
  return valid(value);
}

export function checkFilePickInput(input: JsonValue, maxArtifactBytes: number = DEFAULT_MAX_ARTIFACT_BYTES): Checked<FilePickInput> {
  const object = objectInput(input, ["accept", "multiple", "max_bytes"], "file.pick");
  if (!object.ok) return object;
  const { accept = [], multiple = false, max_bytes } = object.value;
  if (!Array.isArray(accept)) return invalid("accept must be a list of MIME types or extensions");
  if (accept.length > 32) return invalid("accept lists more than 32 types");
  for (const entry of accept) {
    if (typeof entry !== "string" || !(MIME_PATTERN.test(entry) || EXTENSION_PATTERN.test(entry))) return invalid('accept holds an entry that is neither a MIME type ("image/png", "image/*") nor an extension (".txt")');
  }
  if (typeof multiple !== "boolean") return invalid("multiple must be true or false");
  const max = positiveInteger(max_bytes, "max_bytes");
  if (!max.ok) return max;
  return valid({ accept: accept as string[], multiple, max_bytes: Math.min(max.value ?? maxArtifactBytes, maxArtifactBytes) });
}

/** The protocol's rule for a file name the user's system can take (the Runtime's `saveArtifact` names files by it too). */
export { isSafeFileName };

export function checkFileSaveInput(input: JsonValue, maxArtifactBytes: number = DEFAULT_MAX_ARTIFACT_BYTES): Checked<FileSaveInput> {
  const object = objectInput(input, ["name", "mime_type", "data"], "file.save");
  if (!object.ok) return object;
  const name = requiredString(object.value["name"], "name", 255);
  if (!name.ok) return name;
  if (!isSafeFileName(name.value)) return invalid("name must be a plain file name, without a path or control characters");
  const mime = requiredString(object.value["mime_type"], "mime_type", 127);
  if (!mime.ok) return mime;
  if (!MIME_PATTERN.test(mime.value) || mime.value.endsWith("/*")) return invalid("mime_type must be a MIME type such as text/plain");
  const data = object.value["data"];
  if (typeof data !== "string") return invalid("data must be standard base64");
  // The base64 text is 4/3 of the bytes: refuse an oversized one before decoding it.
  if (Math.floor(data.length / 4) * 3 > maxArtifactBytes + 2) return invalid(`data is larger than ${maxArtifactBytes} bytes`);
  const bytes = base64ToBytes(data);
  if (bytes === undefined) return invalid("data must be standard base64");
  if (bytes.byteLength > maxArtifactBytes) return invalid(`data is larger than ${maxArtifactBytes} bytes`);
  return valid({ name: name.value, mime_type: mime.value, bytes });
}

export function checkNotificationInput(input: JsonValue): Checked<NotificationInput> {
  const object = objectInput(input, ["title", "body"], "notification.show");
  if (!object.ok) return object;
  const title = requiredString(object.value["title"], "title", 120);
  if (!title.ok) return title;
  const body = optionalString(object.value["body"], "body", 500);
  if (!body.ok) return body;
  return valid({ title: title.value, body: body.value });
}

export function checkMicrophoneInput(input: JsonValue): Checked<MicrophoneInput> {
  const object = objectInput(input, ["max_ms"], "microphone.record");
  if (!object.ok) return object;
  const max = positiveInteger(object.value["max_ms"], "max_ms");
  if (!max.ok) return max;
  return valid({ max_ms: Math.min(max.value ?? DEFAULT_RECORDING_MS, MAX_RECORDING_MS) });
}

export function checkClipboardInput(input: JsonValue): Checked<ClipboardInput> {
  const object = objectInput(input, ["text"], "clipboard.write");
  if (!object.ok) return object;
  const text = object.value["text"];
  if (typeof text !== "string") return invalid("text must be a string");
  if (text.length > 1_048_576) return invalid("text is longer than 1048576 characters");
  return valid({ text });
}

/** Only https, with a host, without user name or password (which could disguise where it leads). */
export function checkLinkInput(input: JsonValue): Checked<LinkInput> {
  const object = objectInput(input, ["url"], "link.open");
  if (!object.ok) return object;
  const raw = requiredString(object.value["url"], "url", 2_048);
  if (!raw.ok) return raw;
  let url: URL;
  try {
    url = new URL(raw.value);
  } catch {
    return invalid("url is not a valid URL");
  }
  if (url.protocol !== "https:") return invalid("url must be an https URL");
  if (url.hostname === "") return invalid("url must name a host");
  if (url.username !== "" || url.password !== "") return invalid("url must not carry a user name or password");
  return valid({ url: url.href });
}

export function checkAttentionInput(input: JsonValue): Checked<AttentionInput> {
  const object = objectInput(input ?? {}, ["text"], "window.attention");
  if (!object.ok) return object;
  const text = optionalString(object.value["text"], "text", 60);
  if (!text.ok) return text;
  return valid({ text: text.value === undefined || text.value.trim() === "" ? undefined : text.value.trim() });
}
