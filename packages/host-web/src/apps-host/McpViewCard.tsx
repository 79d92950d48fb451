/**
 * An agent's call of a tool whose MCP back-end names an MCP Apps view (`_meta.ui.resourceUri`, the manifest tool's
 * `view`), shown in the chat's row for that call (issue 22 §3). Everything comes from the Runtime: the call
 * (`AppPort.toolCall`: its tool, input, status, one result) and the view (`readMcpView`), so after a reload the card
 * is rebuilt and the view fed the same input and result. `mountMcpView` speaks MCP Apps with it; this card answers for
 * LineUp:
 *
 * - the view's own `tools/call`: the app's back-end through `AppPort.callBackend` (the back-end service's checks);
 * - `ui/message`: the person's message in the call's conversation (`conversation.send_text` through the chat's port),
 *   without a second question: the view is on screen in that conversation, and MCP Apps means it as the person
 *   speaking (docs/mcp.md);
 * - `ui/open-link`: the app's `link.open` through the Capability Gateway (`AppPort.requestCapability` with the view's
 *   `ui://` address: declared in the manifest, policy, the person's confirmation as the capability's rules have it,
 *   audited), then a new browser tab (https only);
 * - `ui/request-display-mode` and the card's own buttons: `inline_card` in the chat, `foreground` over the app area,
 *   `pip` in a corner. The frame never moves in the DOM (a moved iframe reloads): the card's class places it;
 * - the CSP origins the view declares: none until the person allows them here (`RuntimeSettings.setViewGrant`); the
 *   view is then mounted again with them, and Settings can revoke them (the next mount has none).
 *
 * The view is torn down (`ui/resource-teardown`) when the row goes (another conversation, the chat scrolled far) and
 * when its app is disabled or removed.
 */
import { useContext, useEffect, useRef, useState } from "preact/hooks";
import { dropOldest, type DisplayMode, type JsonObject } from "@lineup/protocol";
import type { McpView, ToolCallView } from "@lineup/runtime";
import { ResultCardContext } from "./ResultCard.js";
import type { MountedMcpView } from "./mcp-view.js";
import { sessionDataStorage } from "./mcp-view-storage.js";
import { currentTheme } from "../surface-host/theme-tokens.js";
import { appLocale } from "./locale.js";
import { t } from "../i18n/index.js";

const MODES: readonly DisplayMode[] = ["inline_card", "foreground", "pip"];

/**
 * The height each call's view last reported, so a view mounted again — the windowed log unmounts rows far from
 * the screen and brings them back — starts at it and the rows below stay where they are. Bounded: the oldest
 * entries go first.
 */
const viewHeights = new Map<string, number>();
const MAX_REMEMBERED_HEIGHTS = 500;
function rememberHeight(callId: string, height: number): void {
  viewHeights.delete(callId);
  viewHeights.set(callId, height);
  dropOldest(viewHeights, MAX_REMEMBERED_HEIGHTS);
}
type CallToolResult = { content: unknown[]; structuredContent?: Record<string, unknown>; isError?: boolean };

/** The MCP `CallToolResult` the view is told: the tool's result as the Runtime recorded it, or the error as MCP words one. */
function viewResultOf(call: ToolCallView): CallToolResult | undefined {
  if (call.status === "succeeded") {
    const r = call.result;
    if (typeof r === "object" && r !== null && !Array.isArray(r) && Array.isArray((r as { content?: unknown }).content)) return r as unknown as CallToolResult;
    return { content: [{ type: "text", text: JSON.stringify(r) }], ...(typeof r === "object" && r !== null && !Array.isArray(r) ? { structuredContent: r as Record<string, unknown> } : {}) };
  }
  if (call.status === "failed" && call.error !== undefined && call.error.code !== "cancelled_by_user") return { content: [{ type: "text", text: `${call.error.code}: ${call.error.message}` }], isError: true };
  return undefined;
}

/** The view of `call` (the chat row's, as last read: `mcp-view-row.tsx` reads it and loads this card when its tool names a view). */
export function McpViewCard({ call, appName }: { call: ToolCallView; appName: string }) {
  const runtime = useContext(ResultCardContext);
  const [view, setView] = useState<McpView | undefined>(undefined);
  const [failure, setFailure] = useState<string | undefined>(undefined);
  const [mode, setMode] = useState<DisplayMode>("inline_card");
  const [enabled, setEnabled] = useState(true);
  const [askDismissed, setAskDismissed] = useState(false);
  const [generation, setGeneration] = useState(0);
  const container = useRef<HTMLDivElement>(null);
  const mounted = useRef<MountedMcpView | undefined>(undefined);
  const fed = useRef<{ input?: true; result?: true }>({});
  // The call as last read: a view that finishes mounting after the result came is fed the result, not the call it started with.
  const latest = useRef<ToolCallView | undefined>(undefined);
  latest.current = call;
  const hasView = call?.view !== undefined;
  const appScope = call?.app_scope;

  // Its app disabled or removed: the view goes.
  useEffect(() => {
    if (runtime === undefined || appScope === undefined) return;
    const check = () => setEnabled(runtime.appManager.getApp(appScope)?.record.enabled === true);
    check();
    return runtime.appManager.subscribe(check);
  }, [runtime, appScope]);

  // Read the view (again after a grant changed).
  useEffect(() => {
    if (runtime === undefined || call === undefined || !hasView || !enabled) return;
    let live = true;
    const abort = new AbortController();
    void runtime
      .appPort(call.app_scope)
      .readMcpView(call.method, { signal: abort.signal })
      .then(
        (read) => live && setView(read),
        (error: unknown) => live && setFailure(error instanceof Error ? error.message : String(error)),
      );
    return () => {
      live = false;
      abort.abort();
    };
  }, [runtime, call?.call_id, hasView, enabled, generation]);

  // Mount it; tear it down when the card goes.
  useEffect(() => {
    const element = container.current;
    if (runtime === undefined || call === undefined || view === undefined || element === null || !enabled) return;
    const port = runtime.appPort(call.app_scope);
    const tool = runtime.appManager.getApp(call.app_scope)?.manifest.tools?.find((x) => x.method === call.method);
    if (tool?.backend === undefined) return;
    const backendId = tool.backend.id;
    let gone = false;
    let view_: MountedMcpView | undefined;
    fed.current = {};
    // The MCP Apps bridge (ext-apps and the MCP SDK) loads with the first view, not with the shell.
    void Promise.all([import("./mcp-view.js"), sessionDataStorage(port.sessionData(), "local_storage")]).then(([{ mountMcpView }, storage]) => {
      if (gone) return;
      const granted = view.granted.connect_domains.length + view.granted.resource_domains.length > 0 ? view.granted : undefined;
      view_ = mountMcpView(
        element,
        view.html,
        { app_scope: call.app_scope, tool: { name: view.tool, inputSchema: tool.input_schema as Record<string, unknown> }, theme: currentTheme(), locale: appLocale(), display_mode: "inline_card", display_modes: MODES },
        {
          callTool: async (name, args) => (await port.callBackend(backendId, name, args as JsonObject)) as unknown as CallToolResult,
          async message(text) {
            await runtime.appPort("chat").dispatch({ type: "conversation.send_text", conversation_id: call.conversation_id, text: text.slice(0, 8_000) });
          },
          async openLink(url) {
            const result = await port.requestCapability({ capability: "link.open", purpose: t("mcpView.openLinkPurpose", { url: url.slice(0, 300) }), input: { url }, view: view.uri });
            return result.status === "completed";
          },
          async requestDisplayMode(next) {
            setMode(next);
            return next;
          },
        },
        {
          title: t("mcpView.title", { name: appName }),
          minHeight: 160,
          maxHeight: 900,
          storage,
          ...(granted === undefined ? {} : { grant: granted }),
          ...(viewHeights.has(call.call_id) ? { initialHeight: viewHeights.get(call.call_id)! } : {}),
          onHeight: (height) => rememberHeight(call.call_id, height),
        },
      );
      mounted.current = view_;
      view_.ready.catch((error: unknown) => !gone && setFailure(error instanceof Error ? error.message : String(error)));
      feed(view_, latest.current ?? call);
    }, (error: unknown) => !gone && setFailure(error instanceof Error ? error.message : String(error)));
    return () => {
      gone = true;
      mounted.current = undefined;
      void view_?.close();
    };
  }, [runtime, view, enabled]);

  const feed = (target: MountedMcpView, current: ToolCallView): void => {
    if (fed.current.input === undefined) {
      fed.current.input = true;
      void target.toolInput(current.arguments as Record<string, unknown>).catch(() => undefined);
    }
    if (fed.current.result !== undefined) return;
    if (current.status === "failed" && current.error?.code === "cancelled_by_user") {
      fed.current.result = true;
      void target.toolCancelled(current.error.message).catch(() => undefined);
      return;
    }
    const result = viewResultOf(current);
    if (result === undefined) return;
    fed.current.result = true;
    void target.toolResult(result).catch(() => undefined);
  };

  // The call moved on (its result came): tell the view.
  useEffect(() => {
    if (mounted.current !== undefined && call !== undefined) feed(mounted.current, call);
  }, [call]);

  useEffect(() => mounted.current?.setDisplayMode(mode), [mode]);

  if (call === undefined || !hasView) return null;
  if (!enabled) return <p class="mcp-view-gone muted" data-app={call.app_scope}>{t("mcpView.appGone")}</p>;
  const asked = view === undefined ? [] : [...view.csp.connect_domains, ...view.csp.resource_domains].filter((o) => !view.granted.connect_domains.includes(o) && !view.granted.resource_domains.includes(o));
  const allow = async (): Promise<void> => {
    if (runtime === undefined || view === undefined) return;
    await runtime.settings.setViewGrant(call.app_scope, view.uri, { connect_domains: view.csp.connect_domains, resource_domains: view.csp.resource_domains });
    setView(undefined);
    setGeneration((g) => g + 1);
  };
  return (
    <section class={`mcp-view-card mcp-view-${mode}`} data-call={call.call_id} data-app={call.app_scope} data-display-mode={mode} aria-label={t("mcpView.title", { name: appName })}>
      <div class="mcp-view-bar">
        <span class="mcp-view-name">{appName}</span>
        {mode === "inline_card" ? null : (
          <button type="button" class="secondary" onClick={() => setMode("inline_card")}>
            {t("mcpView.backToChat")}
          </button>
        )}
        {mode === "foreground" ? null : (
          <button type="button" class="secondary" onClick={() => setMode("foreground")}>
            {t("mcpView.expand")}
          </button>
        )}
        {mode === "pip" ? null : (
          <button type="button" class="secondary" onClick={() => setMode("pip")}>
            {t("mcpView.pip")}
          </button>
        )}
      </div>
      {asked.length === 0 || askDismissed ? null : (
        <div class="mcp-view-csp" role="group" aria-label={t("mcpView.cspAllow")}>
          <p>{t("mcpView.cspAsk", { origins: asked.join(", ") })}</p>
          <button type="button" class="primary" onClick={() => void allow().catch((error: unknown) => setFailure(error instanceof Error ? error.message : String(error)))}>
            {t("mcpView.cspAllow")}
          </button>
          <button type="button" class="secondary" onClick={() => setAskDismissed(true)}>
            {t("mcpView.cspNotNow")}
          </button>
        </div>
      )}
      <div class="mcp-view-frame" ref={container} />
      {failure === undefined ? null : <p class="result-card-gone">{t("mcpView.failed", { reason: failure })}</p>}
    </section>
  );
}
