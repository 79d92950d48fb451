// A page that shows MCP Apps views through the host's `mountMcpView`, under the host page's own CSP. What the view asks
// of LineUp goes to the test through functions it exposes on the page (`lineupCallTool`, …), which answer from a real
// Runtime in Node. The test drives the page through window.__mcp.
import type { DisplayMode } from "@lineup/protocol";
import { mountMcpView, type McpViewContext, type MountedMcpView } from "../../src/apps-host/mcp-view.js";
import type { ViewCspGrant } from "../../src/surface-host/view-csp.js";

type CallToolResult = { content: unknown[]; structuredContent?: Record<string, unknown>; isError?: boolean };
interface Exposed {
  lineupCallTool(id: string, name: string, args: Record<string, unknown>): Promise<CallToolResult>;
  lineupMessage(id: string, text: string): Promise<void>;
  lineupOpenLink(id: string, url: string): Promise<boolean>;
  lineupStorageSave(id: string, items: Record<string, string>): Promise<void>;
}
const exposed = window as unknown as Exposed;
const views = new Map<string, MountedMcpView>();
const modes: Record<string, DisplayMode[]> = {};

(window as unknown as { __mcp: unknown }).__mcp = {
  /** `storage`: the items the view's `localStorage` starts with, kept by the test; without it the sandbox's own throws. */
  /** `grant`: the origins of the view's CSP the person granted. */
  mount(id: string, html: string, context: McpViewContext, storage?: Record<string, string>, grant?: ViewCspGrant): void {
    const container = document.createElement("div");
    container.id = id;
    container.style.width = "760px";
    container.style.margin = "12px";
    container.style.border = "1px solid #8886";
    document.body.append(container);
    modes[id] = [];
    const view = mountMcpView(
      container,
      html,
      context,
      {
        callTool: (name, args) => exposed.lineupCallTool(id, name, args),
        message: (text) => exposed.lineupMessage(id, text),
        openLink: (url) => exposed.lineupOpenLink(id, url),
        requestDisplayMode: async (mode) => {
          modes[id]!.push(mode);
          return mode;
        },
      },
      {
        frameUrl: "/surface-frame.html",
        minHeight: 200,
        ...(storage === undefined ? {} : { storage: { items: storage, save: (items) => void exposed.lineupStorageSave(id, items) } }),
        ...(grant === undefined ? {} : { grant }),
      },
    );
    views.set(id, view);
  },
  ready: (id: string) => views.get(id)!.ready.then(() => "ready", (error: Error) => error.message),
  toolInput: (id: string, args: Record<string, unknown>) => views.get(id)!.toolInput(args),
  toolInputPartial: (id: string, args: Record<string, unknown>) => views.get(id)!.toolInputPartial(args),
  toolResult: (id: string, result: CallToolResult) => views.get(id)!.toolResult(result),
  toolCancelled: (id: string, reason: string) => views.get(id)!.toolCancelled(reason),
  displayMode: (id: string) => document.getElementById(id)?.dataset["displayMode"] ?? "",
  setDisplayMode: (id: string, mode: DisplayMode) => views.get(id)!.setDisplayMode(mode),
  close: (id: string) => views.get(id)!.close(),
  state: (id: string) => ({ sandbox: views.get(id)?.frame.getAttribute("sandbox") ?? null, modes: modes[id] ?? [], height: views.get(id)?.frame.style.height ?? "" }),
};
