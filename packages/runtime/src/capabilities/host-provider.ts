/**
 * The `HostProvider` port (spec 6.3, 10): what a host platform does for the Capability Gateway once
 * the gateway has decided, audited and committed a step. The gateway never touches a device API;
 * the host never decides. A browser host implements it with file inputs, downloads, the Notification
 * API and `MediaRecorder`; the Node host and the testkit with fakes.
 *
 * Rules every implementation keeps:
 * - `invoke` resolves with a result from the spec's closed set (`CapabilityResult`), never throws
 *   for an expected outcome (the user closed the picker → `cancelled_by_user`), and never puts
 *   paths, tokens or native error text in a message.
 * - `invoke` honours `signal`: once aborted it stops the device work and resolves `cancelled_by_user`
 *   (the gateway discards late results anyway).
 * - Confirmation dialogs belong to the shell: `confirm` is the shell's dialog, never the app's; so is `elicit`'s
 *   question.
 */
import type { CapabilityName, CapabilityResult, DisplayMode, JsonObject, JsonValue, RiskLevel } from "@lineup/protocol";

export type CapabilityConfirmation = "allow" | "deny" | "dismiss";

export type SystemPermission = "granted" | "denied" | "prompt" | "not_applicable";

export interface CapabilityPrompt {
  readonly request_id: string;
  readonly app_scope: string;
  /** The app's name as the user knows it (manifest `name`), for the dialog. */
  readonly app_name: string;
  readonly capability: CapabilityName;
  /** The app's stated purpose, as declared and as given with the request. */
  readonly purpose: string;
  /** The capability's description from the protocol's table. */
  readonly description: string;
  readonly risk: RiskLevel;
}

export interface HostInvocation {
  readonly request_id: string;
  readonly app_scope: string;
  readonly capability: CapabilityName;
  /** The app's input, already checked by the gateway to be JSON (shape checks are the host's). */
  readonly input: JsonValue;
  readonly signal: AbortSignal;
}

/** An app's MCP server asks the person something (`elicitation/create`): the question the shell shows. */
export interface ElicitationPrompt {
  readonly request_id: string;
  readonly app_scope: string;
  /** The app's name as the user knows it (manifest `name`). */
  readonly app_name: string;
  /** The server's question, as it wrote it. */
  readonly message: string;
  /**
   * What to fill in: MCP's `requestedSchema`, a flat object schema of strings, numbers, integers, booleans and
   * enums. An empty `properties` is a confirmation (accept or decline).
   */
  readonly requested_schema: JsonObject;
}

/** The person's answer: the filled-in values (checked against the schema by the Runtime), no, or no answer. */
export type ElicitationAnswer = { readonly action: "accept"; readonly content: JsonObject } | { readonly action: "decline" } | { readonly action: "cancel" };

export interface HostProvider {
  /** Capabilities this host can carry out at all (a browser without `MediaRecorder` has no `microphone.record`). */
  supports(capability: CapabilityName): boolean;
  /** The operating system's / browser's current permission, without prompting. */
  systemPermission(capability: CapabilityName): SystemPermission;
  /** Shows the system's own permission prompt where there is one; resolves with what the user chose. */
  requestSystemPermission(capability: CapabilityName): Promise<"granted" | "denied">;
  /**
   * The shell's confirmation dialog. `deny` is the user's decision (remembered until changed in settings);
   * `dismiss` — the dialog closed without a choice (Escape) — decides nothing and is not remembered.
   */
  confirm(prompt: CapabilityPrompt): Promise<CapabilityConfirmation>;
  /** Carries the capability out. */
  invoke(invocation: HostInvocation): Promise<CapabilityResult>;
  /**
   * The shell's question card for an app's MCP server (`elicitation/create`); `signal` withdraws it (the server
   * cancelled, or the person took too long). A host without it cannot ask: the server is told `unsupported_on_host`.
   */
  elicit?(prompt: ElicitationPrompt, signal: AbortSignal): Promise<ElicitationAnswer>;
  /**
   * The display modes in which this host shows an app's surface (spec 6.3), as the inventory's `surfaces` tells
   * agents. Absent: none — a host without a screen for apps (the Node and terminal hosts).
   */
  readonly displayModes?: readonly DisplayMode[];
}

/** Artifacts a capability produced (a picked file, a recording) travel back as this value shape. */
export interface HostArtifactValue {
  readonly name: string;
  readonly mime_type: string;
  readonly size: number;
  /** Standard base64 of the bytes (bounded by the gateway's artifact limit). */
  readonly data: string;
}

/** A host that offers nothing: every capability is `unsupported_on_host`. */
export const NO_HOST_CAPABILITIES: HostProvider = {
  supports: () => false,
  systemPermission: () => "not_applicable",
  requestSystemPermission: () => Promise.resolve("denied"),
  confirm: () => Promise.resolve("dismiss"),
  invoke: ({ capability }) => Promise.resolve({ status: "unsupported_on_host", code: "unsupported_on_host", message: `this host cannot provide ${capability}` }),
};
