/**
 * The host's sign-in config: which AppServer to talk to and the device token to present. The host's site
 * (`serving/site.ts`) writes it into the page (`npm start` from its dev credentials, the desktop host from its
 * config file); without it the shell shows a form and keeps what the person typed in this browser's localStorage.
 */
import { decodeJson, fail, MANIFEST_LOCALE_PATTERN, ok, type LocalizedTexts, type ProtocolError, type Result } from "@lineup/protocol";

export interface HostConfig {
  /** The AppServer's WebSocket endpoint, `ws://` or `wss://`. */
  readonly server_url: string;
  readonly device_token: string;
  /** The agent a new conversation is started with (the demo agent by default). */
  readonly agent_id: string;
  readonly workspace_id: string;
  /** Publisher keys the Runtime trusts from its first start (the local dev key of `npm start`). */
  readonly trusted_publishers: readonly { readonly key_id: string; readonly public_key: string; readonly label?: string }[];
  /** Signed bundles the host serves for the App Registry to offer (`/apps/<file>`). */
  /**
   * Bundles the host serves for Apps to install; `app_scope` (when known) hides the offer while that app is
   * installed, and with `version` an installed older version is offered the update; `localized` (the
   * manifest's) names it in the UI language.
   */
  readonly builtin_apps: readonly { readonly name: string; readonly file: string; readonly app_scope?: string; readonly version?: string; readonly localized?: LocalizedTexts }[];
  /**
   * The host's local back-end service: its `ws://` URL. `npm start`'s host server serves no secret (it adds the
   * service's secret to the page's connection itself); the desktop's config file, which only this user can read, holds
   * its own service's `secret`. With it the page runs `mcp-stdio`, `mcp-http`, `stdio-jsonrpc` and `local-http`
   * back-ends there; without it they are `unsupported_on_host`.
   */
  readonly local_backends?: { readonly url: string; readonly secret?: string };
  /** How long an app instance stays loaded in the background, idle, before it is suspended (spec 4.4); default 600. */
  readonly suspend_idle_seconds?: number;
}

/** The id of the page's config element: `<script type="application/json" id="lineup-config">`. */
export const CONFIG_ELEMENT_ID = "lineup-config";
export const DEFAULT_AGENT_ID = "demo-agent";
export const DEFAULT_WORKSPACE_ID = "default";
const STORAGE_KEY = "lineup.host.config";
const MAX_TOKEN_LENGTH = 512;

/** Checks an untrusted value (parsed JSON or form fields) and fills defaults. Never throws. */
export function parseHostConfig(value: unknown): Result<HostConfig> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return fail("invalid_params", "the config must be an object");
  const record = value as Record<string, unknown>;
  const serverUrl = record["server_url"];
  if (typeof serverUrl !== "string" || !isWebSocketUrl(serverUrl)) return fail("invalid_params", "server_url must be a ws:// or wss:// URL", "/server_url");
  const token = record["device_token"];
  if (typeof token !== "string" || token.trim() === "" || token.length > MAX_TOKEN_LENGTH) return fail("invalid_params", "device_token must be a non-empty string", "/device_token");
  const agentId = record["agent_id"] ?? DEFAULT_AGENT_ID;
  if (typeof agentId !== "string" || agentId === "") return fail("invalid_params", "agent_id must be a non-empty string", "/agent_id");
  const workspaceId = record["workspace_id"] ?? DEFAULT_WORKSPACE_ID;
  if (typeof workspaceId !== "string" || workspaceId === "") return fail("invalid_params", "workspace_id must be a non-empty string", "/workspace_id");
  const trusted = record["trusted_publishers"] ?? [];
  if (!Array.isArray(trusted) || trusted.length > 16) return fail("invalid_params", "trusted_publishers must be a list of at most 16 keys", "/trusted_publishers");
  for (const [i, k] of trusted.entries()) {
    const key = k as Record<string, unknown> | null;
    if (typeof key?.["key_id"] !== "string" || typeof key["public_key"] !== "string" || (key["label"] !== undefined && typeof key["label"] !== "string")) {
      return fail("invalid_params", "a trusted publisher is { key_id, public_key, label? }", `/trusted_publishers/${i}`);
    }
  }
  const builtin = record["builtin_apps"] ?? [];
  if (!Array.isArray(builtin) || builtin.length > 32) return fail("invalid_params", "builtin_apps must be a list", "/builtin_apps");
  for (const [i, a] of builtin.entries()) {
    const app = a as Record<string, unknown> | null;
    const scope = app?.["app_scope"];
    const version = app?.["version"];
    if (
      typeof app?.["name"] !== "string" ||
      typeof app["file"] !== "string" ||
      !/^[a-z0-9][a-z0-9._-]*\.lineup$/.test(app["file"]) ||
      (scope !== undefined && (typeof scope !== "string" || !/^[a-z][a-z0-9-]{0,63}$/.test(scope))) ||
      (version !== undefined && (typeof version !== "string" || !/^\d{1,9}\.\d{1,9}\.\d{1,9}(?:[-+][0-9A-Za-z.-]{1,64})?$/.test(version))) ||
      (app["localized"] !== undefined && !isLocalizedTexts(app["localized"]))
    ) {
      return fail("invalid_params", "a built-in app is { name, file, app_scope?, version?, localized? } with file like whiteboard.lineup", `/builtin_apps/${i}`);
    }
  }
  const local = record["local_backends"];
  if (local !== undefined) {
    const service = local as Record<string, unknown> | null;
    const secret = service?.["secret"];
    if (typeof service?.["url"] !== "string" || !isWebSocketUrl(service["url"]) || (secret !== undefined && (typeof secret !== "string" || !/^[0-9a-f]{32,128}$/.test(secret)))) {
      return fail("invalid_params", "local_backends is { url: a ws:// URL, secret?: hex }", "/local_backends");
    }
  }
  const idle = record["suspend_idle_seconds"];
  if (idle !== undefined && (typeof idle !== "number" || !Number.isInteger(idle) || idle < 1 || idle > 86_400)) {
    return fail("invalid_params", "suspend_idle_seconds must be a whole number of seconds from 1 to 86400", "/suspend_idle_seconds");
  }
  return ok({
    ...(idle === undefined ? {} : { suspend_idle_seconds: idle }),
    ...(local === undefined ? {} : { local_backends: local as { url: string; secret?: string } }),
    server_url: serverUrl,
    device_token: token.trim(),
    agent_id: agentId,
    workspace_id: workspaceId,
    trusted_publishers: trusted as HostConfig["trusted_publishers"],
    builtin_apps: builtin as HostConfig["builtin_apps"],
  });
}

export function isWebSocketUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === "ws:" || url.protocol === "wss:") && url.username === "" && url.password === "";
  } catch {
    return false;
  }
}

/** Decodes config text with the protocol's safe JSON parser. */
export function decodeHostConfig(text: string): Result<HostConfig> {
  const decoded = decodeJson(text, { maxBytes: 16 * 1024 });
  return decoded.ok ? parseHostConfig(decoded.value) : decoded;
}

/**
 * The config to sign in with: the one the site wrote into the page first (it follows the dev credentials of this
 * `npm start`), then one saved from the form. `undefined` when there is neither: the shell shows the form. Read
 * at once, with no request: the Runtime's start does not wait on the network for it.
 */
export function readHostConfig(doc: Pick<Document, "getElementById"> | undefined = globalThis.document, storage: Storage | undefined = globalThis.localStorage): HostConfig | undefined {
  const served = doc?.getElementById(CONFIG_ELEMENT_ID)?.textContent;
  if (typeof served === "string") {
    const decoded = decodeHostConfig(served);
    if (decoded.ok) return decoded.value;
    console.error(`[lineup] the config written into the page was refused: ${decoded.error.message}`);
  }
  const saved = storage?.getItem(STORAGE_KEY);
  if (saved === null || saved === undefined) return undefined;
  const decoded = decodeHostConfig(saved);
  return decoded.ok ? decoded.value : undefined;
}

/** The AppServer's pairing endpoint beside its WebSocket: `ws://h:p/rpc` → `http://h:p/pair` (`wss` → `https`). */
export function pairingUrl(serverUrl: string): string {
  const url = new URL(serverUrl);
  url.protocol = url.protocol === "wss:" ? "https:" : "http:";
  url.pathname = "/pair";
  url.search = "";
  url.hash = "";
  return url.toString();
}

/**
 * Exchanges a pairing code (`lineup admin device pair USER`) for a new device's token at the AppServer. The
 * refusal is `unauthorized` for a code that is unknown, expired or used, `rate_limited` (with `retry_after_s`)
 * past the server's attempts per address, `failed` when the server cannot be reached or answers something else.
 */
export async function redeemPairingCode(serverUrl: string, code: string, deviceName: string, fetcher: typeof fetch = fetch): Promise<Result<string, ProtocolError & { readonly retry_after_s?: number }>> {
  let response: Response;
  try {
    response = await fetcher(pairingUrl(serverUrl), { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ code: code.trim(), device_name: deviceName }), cache: "no-store", credentials: "omit" });
  } catch {
    return fail("failed", "the AppServer could not be reached");
  }
  const decoded = decodeJson(await response.text().catch(() => ""), { maxBytes: 16 * 1024 });
  const body = decoded.ok && typeof decoded.value === "object" && decoded.value !== null && !Array.isArray(decoded.value) ? (decoded.value as Record<string, unknown>) : {};
  const token = body["device_token"];
  if (response.ok && typeof token === "string" && token !== "" && token.length <= MAX_TOKEN_LENGTH) return ok(token);
  if (response.status === 401) return fail("unauthorized", "the pairing code is unknown, expired or used");
  if (response.status === 429) {
    const seconds = Number(response.headers.get("retry-after") ?? "60");
    return { ok: false, error: { code: "rate_limited", message: "too many pairing attempts", retry_after_s: Number.isFinite(seconds) && seconds > 0 ? Math.ceil(seconds) : 60 } };
  }
  return fail("failed", `the AppServer answered ${response.status}`);
}

export function saveHostConfig(config: HostConfig, storage: Storage | undefined = globalThis.localStorage): void {
  storage?.setItem(STORAGE_KEY, JSON.stringify(config));
}

/** Forgets the config saved from the form (signing out). */
export function forgetHostConfig(storage: Storage | undefined = globalThis.localStorage): void {
  storage?.removeItem(STORAGE_KEY);
}

/**
 * One IndexedDB database (and one Web Lock) per profile: the server and the device it signs in as. The
 * token enters only as a short non-cryptographic digest — a fresh dev data directory means a fresh
 * device, and its state must not mix with the old one's; the name never reveals the token.
 */
export function profileName(config: Pick<HostConfig, "server_url" | "device_token"> & Partial<HostConfig>): string {
  const url = new URL(config.server_url);
  let hash = 0x811c9dc5;
  for (let i = 0; i < config.device_token.length; i++) {
    hash ^= config.device_token.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return `lineup-runtime:${url.host}:${hash.toString(16).padStart(8, "0")}`;
}

/** A manifest's `localized` shape: language tags to `{ name?, description? }` strings. */
function isLocalizedTexts(value: unknown): value is LocalizedTexts {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const entries = Object.entries(value as Record<string, unknown>);
  const tag = new RegExp(MANIFEST_LOCALE_PATTERN);
  return (
    entries.length <= 32 &&
    entries.every(([key, entry]) => {
      if (!tag.test(key) || typeof entry !== "object" || entry === null || Array.isArray(entry)) return false;
      return Object.entries(entry as Record<string, unknown>).every(([field, text]) => (field === "name" || field === "description") && typeof text === "string");
    })
  );
}
