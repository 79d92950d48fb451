/**
 * An MCP Apps view (issue 22 §3) as the Runtime hands it to a host: the `ui://` resource a tool names, read from
 * the tool's MCP back-end and checked to be one HTML page of the MCP Apps profile (`text/html;profile=mcp-app`).
 */
import { LineUpError, type JsonValue, isRecord } from "@lineup/protocol";

/** The MIME type of an MCP Apps view. */
export const MCP_APP_MIME_TYPE = "text/html;profile=mcp-app";
/** The largest view page a host is given. */
export const MAX_MCP_VIEW_BYTES = 4 * 1024 * 1024;

export interface McpView {
  /** The MCP tool the view belongs to (its server's name for it). */
  readonly tool: string;
  readonly uri: string;
  readonly html: string;
  /** The origins the server's `_meta.ui.csp` asks the view's page may reach (`connectDomains`, `resourceDomains`); none is allowed without a grant. */
  readonly csp: { readonly connect_domains: readonly string[]; readonly resource_domains: readonly string[] };
  /** Of those, the ones the person granted (`RuntimeSettings.setViewGrant`) and the view still declares: what its frame may reach. */
  readonly granted: { readonly connect_domains: readonly string[]; readonly resource_domains: readonly string[] };
}

const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === "string").slice(0, 32) : []);

/**
 * The view in a `resources/read` answer (`{contents}`), or `invalid_result` when it is not one MCP App page; `granted`
 * is the person's stored grant for it (a settings row), of which only origins the page declares now are kept.
 */
export function mcpViewOf(tool: string, uri: string, read: JsonValue, granted?: unknown): McpView {
  const contents = isRecord(read) && Array.isArray(read["contents"]) ? read["contents"] : [];
  const page = contents.find((c) => isRecord(c) && c["uri"] === uri) ?? contents[0];
  if (!isRecord(page) || typeof page["text"] !== "string") throw new LineUpError("invalid_result", `${uri} is not a page of text`);
  const mime = typeof page["mimeType"] === "string" ? page["mimeType"].replace(/\s+/g, "").toLowerCase() : "";
  if (mime !== MCP_APP_MIME_TYPE) throw new LineUpError("invalid_result", `${uri} is ${mime || "of no type"}, not ${MCP_APP_MIME_TYPE}`);
  if (page["text"].length > MAX_MCP_VIEW_BYTES) throw new LineUpError("message_too_large", `${uri} is over ${MAX_MCP_VIEW_BYTES} bytes`);
  const meta = isRecord(page["_meta"]) ? page["_meta"] : {};
  const ui = isRecord(meta["ui"]) ? meta["ui"] : {};
  const csp = isRecord(ui["csp"]) ? ui["csp"] : {};
  const declared = { connect_domains: strings(csp["connectDomains"]), resource_domains: strings(csp["resourceDomains"]) };
  const grant = isRecord(granted) ? granted : {};
  const kept = (kind: "connect_domains" | "resource_domains") => declared[kind].filter((origin) => strings(grant[kind]).includes(origin));
  return { tool, uri, html: page["text"], csp: declared, granted: { connect_domains: kept("connect_domains"), resource_domains: kept("resource_domains") } };
}
