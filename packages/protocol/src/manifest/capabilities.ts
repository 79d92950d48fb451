/**
 * The capability vocabulary (spec 2.1, 6.3): which device capabilities a host can offer, how
 * risky each is, and the closed set of outcomes a capability request can have.
 *
 * A capability is not an app and not a permission granted by installing one. An app declares the
 * capabilities it may request in its manifest (each with a purpose the user reads before enabling
 * it); at run time every request still goes through the Capability Gateway, which checks the
 * declaration, the app's state, host support, the foreground, user confirmation, policy and rate
 * limits, and audits the decision before the host acts.
 */
import type { Static } from "@sinclair/typebox";
import type { ErrorCode } from "../errors.js";
import type { JsonValue } from "../json.js";
import type { CapabilityResultSchema } from "./capability-result-schema.js";

export const RISK_LEVELS = ["low", "medium", "high"] as const;
export type RiskLevel = (typeof RISK_LEVELS)[number];

/** Orders risk levels: `riskRank("high") > riskRank("low")`. */
export function riskRank(level: RiskLevel): number {
  return RISK_LEVELS.indexOf(level);
}

/** The higher of two risk levels. */
export function maxRisk(a: RiskLevel, b: RiskLevel): RiskLevel {
  return riskRank(a) >= riskRank(b) ? a : b;
}

export interface CapabilityInfo {
  readonly description: string;
  readonly risk: RiskLevel;
  /** The host only carries the request out while the requesting app is in the foreground. */
  readonly requires_foreground: boolean;
  /**
   * The Runtime asks the user before the first use (and again after a denial only once settings
   * change). False where the host's own dialog is the user's decision (a file picker) or where
   * the effect is harmless; a user or organisation policy may still require confirmation.
   */
  readonly requires_confirmation: boolean;
}

const table = {
  "file.pick": { description: "Let the user pick one or more files; the app receives the chosen files' contents as artifacts.", risk: "medium", requires_foreground: true, requires_confirmation: false },
  "file.save": { description: "Let the user save data the app provides to a location they choose.", risk: "medium", requires_foreground: true, requires_confirmation: false },
  "microphone.record": { description: "Record audio from the microphone until stopped or a time limit; the recording becomes an artifact.", risk: "high", requires_foreground: true, requires_confirmation: true },
  "notification.show": { description: "Show a system notification with a title and short text; clicking it opens the app.", risk: "low", requires_foreground: false, requires_confirmation: false },
  "clipboard.write": { description: "Replace the clipboard's content with text the app provides.", risk: "low", requires_foreground: true, requires_confirmation: false },
  "window.attention": { description: "Ask for the user's attention (flash the window or dock icon) while the app is in the background.", risk: "low", requires_foreground: false, requires_confirmation: false },
  "link.open": { description: "Open an https URL in the user's browser, outside the sandbox, after showing it.", risk: "medium", requires_foreground: true, requires_confirmation: true },
} as const satisfies Record<string, CapabilityInfo>;

export type CapabilityName = keyof typeof table;

/** Every capability a LineUp host may offer. A given host may support a subset. */
export const CAPABILITIES: Readonly<Record<CapabilityName, CapabilityInfo>> = table;

/** The grammar of capability names, known or not: dotted lowercase, `microphone.record`. */
export const CAPABILITY_NAME_PATTERN = "^[a-z][a-z0-9_]*(?:\\.[a-z][a-z0-9_]*)+$";

// --- File names (`file.save`) ---

/** Characters no host's file system takes in a file name: control characters, path separators, and Windows' reserved set (the widest). */
// eslint-disable-next-line no-control-regex
const UNSAFE_FILE_NAME_CHARS = /[\u0000-\u001f\u007f/\\:*?"<>|]/;
const UNSAFE_FILE_NAME_CHARS_ALL = new RegExp(UNSAFE_FILE_NAME_CHARS.source, "g");

/** A file name every host's file system can take: no path, no reserved or control characters, not `.` or `..`, no spaces at the ends, ≤ 255 characters. */
export function isSafeFileName(name: string): boolean {
  return name.length > 0 && name.length <= 255 && !UNSAFE_FILE_NAME_CHARS.test(name) && name !== "." && name !== ".." && name.trim() === name;
}

/**
 * The nearest safe file name to `name` (`Plan: v2.png` → `Plan_ v2.png`): what a file system refuses
 * replaced by `_`, no spaces at the ends, at most 255 characters; `artifact` when nothing is left.
 */
export function safeFileName(name: string): string {
  const cleaned = name.replace(UNSAFE_FILE_NAME_CHARS_ALL, "_").trim().slice(0, 255);
  return cleaned === "" || cleaned === "." || cleaned === ".." ? "artifact" : cleaned;
}

export function isCapabilityName(value: unknown): value is CapabilityName {
  return typeof value === "string" && Object.prototype.hasOwnProperty.call(table, value);
}

// --- Capability results (spec 6.3) ---

/** Every outcome of a capability request. Nothing else is ever returned to an app. */
export const CAPABILITY_RESULT_STATUSES = [
  "completed",
  "cancelled_by_user",
  "permission_denied",
  "unsupported_on_host",
  "policy_denied",
  "expired",
  "failed",
] as const;
export type CapabilityResultStatus = (typeof CAPABILITY_RESULT_STATUSES)[number];
export type CapabilityRefusalStatus = Exclude<CapabilityResultStatus, "completed">;
export const CAPABILITY_REFUSAL_STATUSES = CAPABILITY_RESULT_STATUSES.filter(
  (s): s is CapabilityRefusalStatus => s !== "completed",
) as readonly CapabilityRefusalStatus[];

type CapabilityResultWire = Static<typeof CapabilityResultSchema>;
/** A refused capability request. */
export type CapabilityRefusal = Exclude<CapabilityResultWire, { status: "completed" }>;
/** `{status:"completed", value:T}` or a refusal; `T` narrows the value a capability yields. */
export type CapabilityResult<T extends JsonValue = JsonValue> =
  | (Omit<Extract<CapabilityResultWire, { status: "completed" }>, "value"> & { value: T })
  | CapabilityRefusal;

export function capabilityCompleted<T extends JsonValue>(value: T): CapabilityResult<T> {
  return { status: "completed", value };
}

/** A refusal; `code` defaults to the error code spelled like the status. */
export function capabilityRefused(status: CapabilityRefusalStatus, message: string, code: ErrorCode = status): CapabilityRefusal {
  return { status, code, message };
}
