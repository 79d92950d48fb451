import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createMcpStdioRunner, readTrustedKeys } from "@lineup/runtime/node";
import { agentInvokes, onlineDevice, publishedInventories, toolOutputs } from "../../runtime/test/helpers/apps-harness.js";
import { npmServerDist } from "../../runtime/test/helpers/mcp-servers.js";
import { until } from "../../runtime/test/helpers/runtime-harness.js";
import { runCli, type CliIo } from "../src/index.js";

// Issue 22 §2: `lineup app from-mcp` wraps a real MCP server from npm into a signed bundle with a generated manifest,
// which a Runtime that trusts the publisher installs like any app; the agent then calls the server's tool.

function capture(): CliIo & { lines: string[]; errors: string[] } {
  const lines: string[] = [];
  const errors: string[] = [];
  return { lines, errors, out: (l) => lines.push(l), err: (l) => errors.push(l) };
}

/** An MCP server with one tool whose view declares the origins it would reach (`_meta.ui.csp`). */
const MAPS_SERVER = `
import { createInterface } from "node:readline";
const send = (m) => process.stdout.write(JSON.stringify(m) + "\\n");
const VIEW = "ui://maps/view.html";
const MIME = "text/html;profile=mcp-app";
createInterface({ input: process.stdin }).on("line", (line) => {
  const m = JSON.parse(line);
  if (m.id === undefined) return;
  const answer = (result) => send({ jsonrpc: "2.0", id: m.id, result });
  switch (m.method) {
    case "initialize": return answer({ protocolVersion: m.params.protocolVersion, capabilities: { tools: {}, resources: {} }, serverInfo: { name: "maps", version: "1.0.0" } });
    case "tools/list": return answer({ tools: [{ name: "show-map", inputSchema: { type: "object" }, _meta: { ui: { resourceUri: VIEW } } }] });
    case "resources/list": return answer({ resources: [{ uri: VIEW, name: "view", mimeType: MIME }] });
    case "resources/read": return answer({ contents: [{ uri: VIEW, mimeType: MIME, text: "<!doctype html><p>map</p>", _meta: { ui: { csp: { connectDomains: ["https://tiles.maps.example"], resourceDomains: ["https://cdn.maps.example"] } } } }] });
    default: return send({ jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "no such method" } });
  }
});
`;

const work = realpathSync(mkdtempSync(join(tmpdir(), "lineup-from-mcp-")));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("lineup app from-mcp", () => {
  it("makes a signed bundle of an npm MCP server that installs and answers the agent", async () => {
    expect(await runCli(["keygen", join(work, "keys")], capture())).toBe(0);
    const io = capture();
    const out = join(work, "budget.lineup");
    const entry = join(npmServerDist("@modelcontextprotocol/server-budget-allocator"), "index.js");
    expect(await runCli(["app", "from-mcp", "--scope", "budget", "--key", join(work, "keys", "publisher.key"), "--out", out, "--", "node", entry, "--stdio"], io)).toBe(0);
    expect(io.lines[0]).toMatch(/^wrote .*budget\.lineup: budget 1\.0\.0, 1 tools from .* \(1 with a view\), 1 resources, signed/);
    expect(io.lines[1]).toBe("  budget.get_budget_data ← get-budget-data (view ui://budget-allocator/mcp-app.html)");
    const verify = capture();
    expect(await runCli(["verify", out, join(work, "keys", "publisher.pub.json")], verify)).toBe(0);

    const trusted = await readTrustedKeys(join(work, "keys", "publisher.pub.json"));
    if (!trusted.ok) throw new Error(trusted.error.message);
    const { server, d } = await onlineDevice({ extra: { trustedPublishers: trusted.value, backends: { "mcp-stdio": (spec) => createMcpStdioRunner(spec, { dataDir: join(work, "device") }) } } });
    try {
      const installed = await d.runtime.appManager.install(new Uint8Array(readFileSync(out)), { approved: true });
      expect(installed).toMatchObject({ status: "succeeded" });
      expect(d.runtime.appManager.getApp("budget")?.projection.backends.map((b) => b.protocol)).toEqual(["mcp-stdio"]);
      await until(() => publishedInventories(server).some((i) => i.methods.includes("budget/budget.get_budget_data")), 5_000, "the inventory");
      agentInvokes(server, "b-1", "budget", "budget.get_budget_data", {}, publishedInventories(server).at(-1)!.revision);
      await until(() => toolOutputs(server, "b-1").some(([type]) => type === "lineup.tool.result" || type === "lineup.tool.error"), 30_000, "the result");
      const [type, payload] = toolOutputs(server, "b-1").at(-1)!;
      expect(type).toBe("lineup.tool.result");
      expect((payload["result"] as { structuredContent: { config: { currency: string } } }).structuredContent.config.currency).toBe("USD");
    } finally {
      await d.stop();
    }
  }, 90_000);

  it("records the origins each view's resource declares, and declares link.open for the views' open-link", async () => {
    // A server written here (plain JSON-RPC over stdio): one tool with a view whose resource declares two origins.
    const folder = join(work, "maps-server");
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, "index.mjs"), MAPS_SERVER);
    const io = capture();
    const out = join(work, "maps.lineup");
    expect(await runCli(["app", "from-mcp", "--scope", "maps", "--key", join(work, "keys", "publisher.key"), "--out", out, "--", "node", join(folder, "index.mjs")], io)).toBe(0);
    expect(io.lines[1]).toBe("  maps.show_map ← show-map (view ui://maps/view.html, may ask to reach https://tiles.maps.example https://cdn.maps.example)");
    const trusted = await readTrustedKeys(join(work, "keys", "publisher.pub.json"));
    if (!trusted.ok) throw new Error(trusted.error.message);
    const { d } = await onlineDevice({ extra: { trustedPublishers: trusted.value, backends: { "mcp-stdio": (spec) => createMcpStdioRunner(spec, { dataDir: join(work, "maps-device") }) } } });
    try {
      expect(await d.runtime.appManager.install(new Uint8Array(readFileSync(out)), { approved: true })).toMatchObject({ status: "succeeded" });
      const app = d.runtime.appManager.getApp("maps")!;
      expect(app.manifest.tools![0]!.view).toEqual({ resource_uri: "ui://maps/view.html", csp: { connect_domains: ["https://tiles.maps.example"], resource_domains: ["https://cdn.maps.example"] } });
      expect(app.manifest.capabilities).toEqual([{ name: "link.open", purpose: expect.any(String) as string }]);
      // What the install review shows.
      expect(app.projection.tools[0]).toMatchObject({ view: "ui://maps/view.html", view_origins: ["https://tiles.maps.example", "https://cdn.maps.example"] });
    } finally {
      await d.stop();
    }
  }, 90_000);

  it("refuses a command that is not node and a scope that is not one, with usage", async () => {
    const io = capture();
    expect(await runCli(["app", "from-mcp", "--scope", "x", "--key", "k", "--", "python", "server.py"], io)).toBe(2);
    expect(io.errors[0]).toContain("--scope names the app");
    expect(io.errors[1]).toMatch(/^usage: lineup app from-mcp/);
    const other = capture();
    expect(await runCli(["app", "from-mcp", "--scope", "tools", "--key", "k", "--", "python", "server.py"], other)).toBe(2);
    expect(other.errors[0]).toBe("lineup app: the server runs on Node: its command is node SERVER.js [ARGS…]");
  });
});
