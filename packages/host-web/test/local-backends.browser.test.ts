/**
 * Issue 22 item 3's missing path in real Chromium, through the real shell as `npm start` runs it: the real AppServer,
 * the host server with its local back-end service, the built host. An MCP server from npm that nobody here wrote
 * (`@modelcontextprotocol/server-budget-allocator`) is a signed LineUp app the person installs from Apps; the page's
 * Runtime cannot run a process, so the host's Node process runs the server for it. The agent (the agent SDK with the
 * dev agent token) calls its tool and gets the server's own result; a hostile MCP server's faults come back to the
 * agent as typed errors and the budget app goes on answering; the page's config names no secret; and a page of another origin
 * cannot open the service.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Page } from "playwright-core";
import type { AgentClient } from "@lineup/agent-sdk";
import { connectAgent } from "@lineup/agent-sdk/node";
import { generatePublisherKey } from "@lineup/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signedBundle } from "../../runtime/test/helpers/apps-harness.js";
import { BUDGET_ALLOCATOR, HOSTILE, HOSTILE_LOADED_TIMEOUT_MS, hostileManifest, npmServerFiles, npmServerManifest } from "../../runtime/test/helpers/mcp-servers.js";
import { installFromApps, startSignedAppHost, type SignedAppHost } from "./signed-app.js";
import { slack } from "../../../test/support/soak.js";
import { buildOnce, say, servedConfig } from "./support.js";


let world: SignedAppHost;
let page: Page;
let agent: AgentClient;
let budgetName: string;
/** What the agent's calls ended with, per turn: the tool's result or the refusal's code. */
const outcomes: { method: string; ok: boolean; value: unknown }[][] = [];
/** The calls the agent makes in each turn, in order. */
const script: [app: string, method: string][][] = [
  [["budget", "budget.get_budget_data"]],
  [
    ["hostile", "hostile.garbage"],
    ["hostile", "hostile.hang"],
    ["hostile", "hostile.ok"],
    ["budget", "budget.get_budget_data"],
  ],
];

beforeAll(async () => {
  const publisher = await generatePublisherKey();
  const budget = await npmServerManifest(BUDGET_ALLOCATOR, "budget");
  budgetName = budget.manifest.name!;
  const hostile = hostileManifest(HOSTILE_LOADED_TIMEOUT_MS);
  const bundles = new Map([
    ["budget.lineup", await signedBundle(budget.manifest, publisher, undefined, npmServerFiles(BUDGET_ALLOCATOR))],
    ["hostile.lineup", await signedBundle(hostile, publisher, undefined, { "server/index.mjs": HOSTILE })],
  ]);
  world = await startSignedAppHost({
    distDir: await buildOnce(),
    dataDirPrefix: "lineup-local-backends-",
    publisher,
    publisherLabel: "Local back-ends test publisher",
    builtinApps: [
      { name: budgetName, file: "budget.lineup" },
      { name: hostile.name!, file: "hostile.lineup" },
    ],
    bundles,
    localBackends: true,
  });
  page = world.page;
  agent = await connectAgent({ url: world.server.url, token: world.server.devCredentials!.agent_token, sessionPollMs: 50, reconnect: { initialMs: 20, maxMs: 200 } });
  agent.onTurn((turn) => {
    const calls = script[outcomes.length];
    if (calls === undefined) return void agent.completeTurn(turn.sessionId, turn.turnId, { text: "nothing more to do" }).catch(() => undefined);
    const seen: { method: string; ok: boolean; value: unknown }[] = [];
    outcomes.push(seen);
    void (async () => {
      for (const [appScope, method] of calls) {
        try {
          seen.push({ method, ok: true, value: await agent.invokeTool(turn.sessionId, method, {}, { appScope }).result });
        } catch (error) {
          seen.push({ method, ok: false, value: (error as { code?: unknown }).code });
        }
      }
      await agent.completeTurn(turn.sessionId, turn.turnId, { text: `done: ${seen.map((s) => `${s.method} ${s.ok ? "answered" : String(s.value)}`).join(", ")}` });
    })().catch((error: unknown) => void agent.failTurn(turn.sessionId, turn.turnId, { code: "handler_failed", message: String(error) }).catch(() => undefined));
  });
}, 180_000);

afterAll(async () => {
  await agent?.close();
  await world?.close();
});

describe("MCP back-ends of a web host's apps run in the host's local back-end service (Chromium, real host and AppServer)", () => {
  it("the person installs the budget allocator from Apps; the agent's call gets the real server's result", async () => {
    await page.goto(world.host.url);
    await expect.poll(() => page.locator(".connection").getAttribute("data-lifecycle"), { timeout: 20_000 }).toBe("online");
    await page.getByRole("tab", { name: "Apps" }).click();
    await installFromApps(page, budgetName);
    await installFromApps(page, "Hostile");
    await page.getByRole("tab", { name: "Chat" }).click();
    await page.getByRole("button", { name: "New conversation with the demo agent" }).click();
    await page.getByRole("log").waitFor();
    await say(page, "what is my budget?");
    await expect.poll(() => outcomes[0]?.length, { timeout: 60_000 }).toBe(1);
    // The chat shows the call and its one outcome.
    await expect.poll(() => page.getByRole("log").textContent(), { timeout: 10_000 }).toContain("Get Budget DataDone");
    const [call] = outcomes[0]!;
    const result = call!.value as { structuredContent: { config: { categories: { name?: string }[] } } };
    expect(result.structuredContent.config.categories.length).toBeGreaterThan(0);
    expect(JSON.stringify(result.structuredContent)).toContain("Marketing");
    expect(world.pageErrors).toEqual([]);
  }, 120_000);

  it("a hostile MCP server's faults reach the agent typed, one result per call, and the budget app goes on", async () => {
    await say(page, "now try the hostile one");
    await expect.poll(() => outcomes[1]?.length, { timeout: 60_000 }).toBe(4);
    expect(outcomes[1]!.map((o) => [o.method, o.ok ? "answered" : o.value])).toEqual([
      ["hostile.garbage", "handler_failed"],
      ["hostile.hang", "operation_expired"],
      ["hostile.ok", "answered"],
      ["budget.get_budget_data", "answered"],
    ]);
    // What the person sees: each call once, with its outcome.
    const log = await page.getByRole("log").textContent();
    expect(log).toContain("not a JSON-RPC 2.0 message");
    // The manifest gives the call its limit with the soak's slack (hostileManifest), and that is the limit it names.
    expect(log).toContain(`ran hang past ${slack(HOSTILE_LOADED_TIMEOUT_MS)} ms and was killed`);
  }, 120_000);

  it("the page's config holds no secret, and a page of another origin cannot open the service", async () => {
    const config = (await servedConfig(world.host.url)) as { local_backends: { url: string } };
    expect(config.local_backends).toEqual({ url: `ws://127.0.0.1:${world.host.port}/local-backends` });
    const stranger: Server = createServer((_req, res) => res.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><title>elsewhere</title>"));
    await new Promise<void>((resolve) => stranger.listen(0, "127.0.0.1", resolve));
    const other = await world.browser.context.newPage();
    try {
      await other.goto(`http://127.0.0.1:${(stranger.address() as AddressInfo).port}/`);
      const outcome = await other.evaluate(
        ({ url }) =>
          new Promise<string>((resolve) => {
            const socket = new WebSocket(`${url}?profile=x`, ["lineup.local-backends.v1"]);
            socket.onopen = () => resolve("opened");
            socket.onclose = (event) => resolve(`closed ${event.code}`);
            setTimeout(() => resolve("no answer"), 10_000);
          }),
        config.local_backends,
      );
      expect(outcome).toBe("closed 1006");
    } finally {
      await other.close();
      stranger.closeAllConnections();
      await new Promise<void>((resolve) => stranger.close(() => resolve()));
    }
  }, 30_000);
});
