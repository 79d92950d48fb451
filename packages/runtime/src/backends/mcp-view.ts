/**
 * An MCP Apps view (issue 22 §3) as the Runtime hands it to a host: the `ui://` resource a tool names, read from
 * the tool's MCP back-end and checked to be one HTML page of the MCP Apps profile (`text/html;profile=mcp-app`).
 */
import { LineUpError, type JsonValue, isRecord } from "@lineup/protocol";

/** The MIME type of an MCP Apps view. */
export const MCP_APP_MIME_TYPE = "text/html;profile=mcp-app";
/** The largest view page a host is given. */
export const MAX_MCP_VIEW_BYTES = 4 * 1024 * 1024;

/** The origins a view's page may reach, by CSP directive (its `_meta.ui.csp`: `connectDomains`, `resourceDomains`). */
export interface McpViewOrigins {
  readonly connect_domains: readonly string[];
  readonly resource_domains: readonly string[];
}

export interface McpView {
  /** The MCP tool the view belongs to (its server's name for it). */
  readonly tool: string;
  readonly uri: string;
  readonly html: string;
  /**
   * The origins the view's page may ask for: those its live resource's `_meta.ui.csp` declares that the app's manifest
   * declares too (`view.csp`, read when the bundle was made, listed in the install review). None is allowed without a grant.
   */
  readonly csp: McpViewOrigins;
  /** Of those, the ones the person granted (`RuntimeSettings.setViewGrant`): what its frame may reach. */
  readonly granted: McpViewOrigins;
}

const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === "string").slice(0, 32) : []);

/** The view's page in a `resources/read` answer (`{contents}`), or `invalid_result` when it is not one MCP App page. */
function viewPage(uri: string, read: JsonValue): { readonly text: string; readonly csp: McpViewOrigins } {
  const contents = isRecord(read) && Array.isArray(read["contents"]) ? read["contents"] : [];
  const page = contents.find((c) => isRecord(c) && c["uri"] === uri) ?? contents[0];
  if (!isRecord(page) || typeof page["text"] !== "string") throw new LineUpError("invalid_result", `${uri} is not a page of text`);
  const mime = typeof page["mimeType"] === "string" ? page["mimeType"].replace(/\s+/g, "").toLowerCase() : "";
  if (mime !== MCP_APP_MIME_TYPE) throw new LineUpError("invalid_result", `${uri} is ${mime || "of no type"}, not ${MCP_APP_MIME_TYPE}`);
  if (page["text"].length > MAX_MCP_VIEW_BYTES) throw new LineUpError("message_too_large", `${uri} is over ${MAX_MCP_VIEW_BYTES} bytes`);
  const meta = isRecord(page["_meta"]) ? page["_meta"] : {};
  const ui = isRecord(meta["ui"]) ? meta["ui"] : {};
  const csp = isRecord(ui["csp"]) ? ui["csp"] : {};
  return { text: page["text"], csp: { connect_domains: strings(csp["connectDomains"]), resource_domains: strings(csp["resourceDomains"]) } };
}

/** The origins a view's resource declares (`_meta.ui.csp`), as `lineup app from-mcp` records them in the manifest. */
export function mcpViewOrigins(uri: string, read: JsonValue): McpViewOrigins {
  return viewPage(uri, read).csp;
}

/**
 * The view in a `resources/read` answer, or `invalid_result` when it is not one MCP App page. `declared` is what the
 * app's manifest declares for it (`view.csp`; none when absent): an origin may be asked for and granted only when the
 * live page and the manifest both declare it. `granted` is the person's stored grant for it (a settings row).
 */
export function mcpViewOf(tool: string, uri: string, read: JsonValue, declared: Partial<McpViewOrigins> | undefined, granted?: unknown): McpView {
  const page = viewPage(uri, read);
  const grant = isRecord(granted) ? granted : {};
  const both = (kind: keyof McpViewOrigins): string[] => page.csp[kind].filter((origin) => (declared?.[kind] ?? []).includes(origin));
  const csp = { connect_domains: both("connect_domains"), resource_domains: both("resource_domains") };
  const kept = (kind: keyof McpViewOrigins) => csp[kind].filter((origin) => strings(grant[kind]).includes(origin));
  return { tool, uri, html: page.text, csp, granted: { connect_domains: kept("connect_domains"), resource_domains: kept("resource_domains") } };
}
