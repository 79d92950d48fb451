/**
 * An MCP Apps view (issue 22 §3, the `ui://` extension) in a LineUp sandboxed surface, unmodified.
 *
 * The view's page (the Runtime's `AppPort.readMcpView`) runs in the same frame as an installed app's page
 * (`createSandboxedFrame`: `sandbox="allow-scripts"`, never `allow-same-origin`; `surface-frame.html` writes the page
 * into itself under its CSP: inline code only, no network, no nested frames). The host speaks the MCP Apps protocol
 * with it through ext-apps' own `AppBridge` over a `PostMessageTransport` bound to that frame's window (by identity:
 * its origin is `"null"`), and turns each request into LineUp's:
 *
 * | MCP Apps | LineUp |
 * | --- | --- |
 * | `ui/initialize` | host context from the Host Bridge snapshot: theme, locale, display mode and the modes on offer, the tool |
 * | `ui/notifications/tool-input`, `tool-input-partial`, `tool-result`, `tool-cancelled` | `toolInput`, `toolInputPartial`, `toolResult`, `toolCancelled`: the agent's call as the Runtime follows it |
 * | `tools/call` (the view's own) | `host.callTool`: the app's back-end, through the back-end service's checks |
 * | `ui/message` | `host.message`: a message into the conversation's chat, at most `MCP_VIEW_MESSAGE_LIMIT` (past it the view's request fails `rate_limited`) |
 * | `ui/open-link` | `host.openLink`: the app's `link.open` through the Capability Gateway; `isError` when refused |
 * | `ui/request-display-mode` | `host.requestDisplayMode`: `inline` → `inline_card`, `fullscreen` → `foreground`, `pip` → `pip` |
 * | `ui/notifications/size-changed` | the frame's height (clamped) |
 * | `ui/resource-teardown` | `close()`: asked before the frame goes |
 * | `_meta.ui.csp` (`connectDomains`, `resourceDomains`) | none, unless `options.grant` holds the ones the person granted: the frame page is served with them in its CSP |
 * | `localStorage` (not MCP, but what views use) | with `options.storage`: a Storage-like object in the frame over the items kept (`sessionDataStorage`: the app's session data), each change saved |
 *
 * Anything else the view asks (`resources/read`, `sampling/createMessage`, `ui/download-file`) is refused: the
 * host does not declare those capabilities.
 */
import { AppBridge, PostMessageTransport, type McpUiDisplayMode, type McpUiHostContext } from "@modelcontextprotocol/ext-apps/app-bridge";
import { createTokenBucket, ERROR_CODES, type BridgeTheme, type DisplayMode, type RateLimit } from "@lineup/protocol";
import { createSandboxedFrame, PAGE_REFUSALS } from "../surface-host/index.js";
import { viewFramePath, type ViewCspGrant } from "../surface-host/view-csp.js";
import { isViewStorageItems, MCP_VIEW_STORAGE_LIMIT, viewStorageSize, type McpViewStorage } from "./mcp-view-storage.js";

/** What the embedding host does for the view. Each rejects with an `Error` whose message the view is told. */
export interface McpViewHost {
  /** The view's own `tools/call`: resolves with the MCP `CallToolResult` (`{content, structuredContent?, isError?}`). */
  callTool(name: string, args: Record<string, unknown>): Promise<{ content: unknown[]; structuredContent?: Record<string, unknown>; isError?: boolean }>;
  /** `ui/message`: the text goes into the conversation's chat. */
  message(text: string): Promise<void>;
  /** `ui/open-link`: resolves `true` once it opened, `false` when it was refused (the person declined, not declared, policy…). */
  openLink(url: string): Promise<boolean>;
  /** `ui/request-display-mode`: moves the view to the LineUp placement; resolves with the mode now in effect. */
  requestDisplayMode(mode: DisplayMode): Promise<DisplayMode>;
}

export interface McpViewContext {
  readonly app_scope: string;
  /** The MCP tool the view shows, as its server lists it (name, input schema…). */
  readonly tool: { readonly name: string; readonly inputSchema: Record<string, unknown>; readonly [key: string]: unknown };
  readonly theme: BridgeTheme;
  readonly locale: string;
  readonly display_mode: DisplayMode;
  readonly display_modes: readonly DisplayMode[];
}

export interface McpViewOptions {
  /** The frame document (default `./surface-frame.html`, next to the host page). */
  readonly frameUrl?: string;
  readonly title?: string;
  readonly minHeight?: number;
  readonly maxHeight?: number;
  /**
   * The height the frame starts at (clamped), until the view reports its own: the height it last had, for a view
   * mounted again (a windowed log brings its row back), so the rows below do not move when it loads.
   */
  readonly initialHeight?: number;
  /** Each height the view reports, clamped (to remember for `initialHeight`). */
  readonly onHeight?: (height: number) => void;
  /** How long the view has to load and send `ui/initialize`. Default 15 s. */
  readonly readyTimeoutMs?: number;
  /**
   * Where the view's `localStorage` is kept (its frame's own throws: no `allow-same-origin`): the items it starts
   * with, and where each change goes. Without it, `localStorage` throws `SecurityError` as the sandbox has it.
   */
  readonly storage?: McpViewStorage;
  /**
   * The origins of the view's `_meta.ui.csp` (`McpView.csp`) the person granted, if any: the frame page is then the
   * one served with them in its policy (`surface-host/view-csp.ts`). Without it the frame reaches no network.
   */
  readonly grant?: ViewCspGrant;
  /** How many `ui/message`s the view may send (default `MCP_VIEW_MESSAGE_LIMIT`). */
  readonly messageLimit?: RateLimit;
}

/**
 * A view's `ui/message`s become the person's messages: a few at once (a person's clicks), then one every 2 s. Past it
 * the request fails with the JSON-RPC error of `rate_limited` (`data.code`), so the view knows it was not sent.
 */
export const MCP_VIEW_MESSAGE_LIMIT: RateLimit = { burst: 5, perSecond: 0.5 };


export interface MountedMcpView {
  readonly frame: HTMLIFrameElement;
  /** The view said `ui/notifications/initialized`; rejects when it did not start. */
  readonly ready: Promise<void>;
  toolInput(args: Record<string, unknown>): Promise<void>;
  toolInputPartial(args: Record<string, unknown>): Promise<void>;
  toolResult(result: { content: unknown[]; structuredContent?: Record<string, unknown>; isError?: boolean }): Promise<void>;
  toolCancelled(reason: string): Promise<void>;
  /** The LineUp placement changed (the shell moved it): the view hears its new display mode. */
  setDisplayMode(mode: DisplayMode): void;
  /** `ui/resource-teardown` (waited for at most 2 s), then the frame goes. */
  close(): Promise<void>;
}

const TO_MCP: Record<DisplayMode, McpUiDisplayMode> = { foreground: "fullscreen", pip: "pip", inline_card: "inline" };
const FROM_MCP: Record<McpUiDisplayMode, DisplayMode> = { fullscreen: "foreground", pip: "pip", inline: "inline_card" };
const TEARDOWN_MS = 2_000;

/** An error the bridge answers as this JSON-RPC error: the LineUp code's number, and the code in `data` (as `lineup mcp` does). */
function typedError(code: "rate_limited", message: string): Error {
  return Object.assign(new Error(message), { code: ERROR_CODES[code].rpc, data: { code, retryable: ERROR_CODES[code].retryable } });
}

const textOf = (content: readonly unknown[]): string =>
  content
    .map((block) => (typeof block === "object" && block !== null && (block as { type?: unknown }).type === "text" ? String((block as { text?: unknown }).text ?? "") : ""))
    .filter((t) => t !== "")
    .join("\n");

export function mountMcpView(container: HTMLElement, html: string, context: McpViewContext, host: McpViewHost, options: McpViewOptions = {}): MountedMcpView {
  const minHeight = options.minHeight ?? 120;
  const maxHeight = options.maxHeight ?? 4_000;
  const frame = createSandboxedFrame(options.title ?? `View of ${context.tool.name}`);
  const storage = options.storage;
  let displayMode = context.display_mode;
  let contentHeight = Math.max(minHeight, Math.min(maxHeight, options.initialHeight ?? minHeight));
  const applyHeight = (): void => {
    frame.style.height = displayMode === "foreground" ? "100%" : `${contentHeight}px`;
  };
  applyHeight();
  container.dataset["displayMode"] = displayMode;

  const hostContext = (): McpUiHostContext => ({
    toolInfo: { tool: context.tool as never },
    theme: context.theme.effective_mode,
    displayMode: TO_MCP[displayMode],
    availableDisplayModes: context.display_modes.map((m) => TO_MCP[m]),
    locale: context.locale,
    platform: "web",
  });
  const bridge = new AppBridge(null, { name: "LineUp", version: "1.0.0" }, { openLinks: {}, serverTools: {}, logging: {}, message: { text: {} } }, { hostContext: hostContext() });
  const fail = (error: unknown): never => {
    throw new Error(error instanceof Error ? error.message : String(error));
  };
  bridge.oncalltool = async (params) => {
    const args = (params.arguments ?? {}) as Record<string, unknown>;
    try {
      return (await host.callTool(params.name, args)) as never;
    } catch (error) {
      // A refusal is the tool's error, as MCP has it: the view reads `isError` and the text.
      return { content: [{ type: "text", text: error instanceof Error ? error.message : String(error) }], isError: true } as never;
    }
  };
  const messages = createTokenBucket(options.messageLimit ?? MCP_VIEW_MESSAGE_LIMIT, () => Date.now());
  bridge.onmessage = async (params) => {
    const text = textOf(params.content as unknown[]);
    if (text === "") return { isError: true };
    if (!messages.take()) throw typedError("rate_limited", `too many messages from the view of ${context.tool.name}: try again in ${Math.ceil(messages.waitMs() / 1000)} s`);
    try {
      await host.message(text);
      return {};
    } catch {
      return { isError: true };
    }
  };
  bridge.onopenlink = async (params) => ({ isError: !(await host.openLink(params.url).catch(() => false)) });
  bridge.onrequestdisplaymode = async (params) => {
    const next = await host.requestDisplayMode(FROM_MCP[params.mode] ?? displayMode).catch(fail);
    setDisplayMode(next);
    return { mode: TO_MCP[next] };
  };
  bridge.onsizechange = (params) => {
    if (typeof params.height !== "number" || !Number.isFinite(params.height)) return;
    contentHeight = Math.max(minHeight, Math.min(maxHeight, Math.ceil(params.height)));
    applyHeight();
    options.onHeight?.(contentHeight);
  };

  let resolveReady!: () => void;
  let rejectReady!: (error: Error) => void;
  const ready = new Promise<void>((resolve, reject) => {
    resolveReady = resolve;
    rejectReady = reject;
  });
  ready.catch(() => undefined);
  const timer = setTimeout(() => rejectReady(new Error(`the view of ${context.tool.name} did not start within ${Math.round((options.readyTimeoutMs ?? 15_000) / 1000)} s`)), options.readyTimeoutMs ?? 15_000);
  bridge.oninitialized = () => {
    clearTimeout(timer);
    resolveReady();
  };

  // The frame page's own handshake (surface-frame.html): "ready" → the view's page → "loaded" or "refused".
  let connected: Promise<void> | undefined;
  const onWindowMessage = (event: MessageEvent): void => {
    if (event.source !== frame.contentWindow || frame.contentWindow === null) return;
    const type = (event.data as { type?: unknown } | null)?.type;
    if (type === "lineup.surface-frame.ready" && connected === undefined) {
      // The bridge listens before the view's code runs: its `ui/initialize` comes as the page is written.
      connected = bridge.connect(new PostMessageTransport(frame.contentWindow, frame.contentWindow));
      const load = { type: "lineup.surface-frame.load", html, inert_links: true, ...(storage === undefined ? {} : { storage: storage.items }) };
      void connected.then(() => frame.contentWindow?.postMessage(load, "*"), (error: unknown) => rejectReady(error instanceof Error ? error : new Error(String(error))));
    } else if (type === "lineup.surface-frame.storage" && storage !== undefined) {
      const items = (event.data as { items?: unknown }).items;
      if (isViewStorageItems(items) && viewStorageSize(items) <= MCP_VIEW_STORAGE_LIMIT) storage.save({ ...items });
    } else if (type === "lineup.surface-frame.refused") {
      const code = (event.data as { code?: unknown }).code;
      clearTimeout(timer);
      rejectReady(new Error(`the view of ${context.tool.name} did not start: its page ${PAGE_REFUSALS[code as keyof typeof PAGE_REFUSALS] ?? "was refused"}`));
    }
  };
  window.addEventListener("message", onWindowMessage);
  const frameUrl = options.frameUrl ?? "./surface-frame.html";
  const granted = options.grant === undefined ? undefined : viewFramePath(options.grant);
  frame.src = granted === undefined ? frameUrl : new URL(granted, new URL(frameUrl, location.href)).href;
  container.append(frame);

  const setDisplayMode = (mode: DisplayMode): void => {
    if (mode === displayMode) return;
    displayMode = mode;
    container.dataset["displayMode"] = mode;
    applyHeight();
    void Promise.resolve(bridge.sendHostContextChange({ displayMode: TO_MCP[mode] })).catch(() => undefined);
  };
  let closing: Promise<void> | undefined;
  return {
    frame,
    ready,
    toolInput: (args) => ready.then(() => bridge.sendToolInput({ arguments: args })),
    toolInputPartial: (args) => ready.then(() => bridge.sendToolInputPartial({ arguments: args })),
    toolResult: (result) => ready.then(() => bridge.sendToolResult(result as never)),
    toolCancelled: (reason) => ready.then(() => bridge.sendToolCancelled({ reason })),
    setDisplayMode,
    close() {
      closing ??= (async () => {
        clearTimeout(timer);
        rejectReady(new Error("the view was closed"));
        let waited: ReturnType<typeof setTimeout> | undefined;
        await Promise.race([bridge.teardownResource({}).catch(() => undefined), new Promise<void>((resolve) => (waited = setTimeout(resolve, TEARDOWN_MS)))]);
        clearTimeout(waited);
        window.removeEventListener("message", onWindowMessage);
        await bridge.close().catch(() => undefined);
        frame.remove();
      })();
      return closing;
    },
  };
}
