/**
 * mcp: `tools/call` from the MCP SDK's `Client` through `lineup mcp` (a child process on stdio, as an MCP
 * client starts it) to an app's tool, beside LineUp's own agent path to the same tool and the SDK's
 * in-memory `tools/call`, in the same run (issue 22, PERFORMANCE.md).
 *
 * On loopback, sequential calls:
 * - ours (`mcp_tools_call`): Client → stdio → `lineup mcp` → its agent connection → the reference AppServer
 *   (SQLite FULL) → a Node Runtime (SQLite) with the signed bench app → its handler → the result back the
 *   same way, as `structuredContent`.
 * - floor (`lineup_agent_tool_call`): LineUp's own agent path in a process of its own, driven over a pipe
 *   (`bench/agent-over-pipe.ts`: one line in, `invokeTool`, one line out) → the same server, Runtime, app
 *   and tool. A stdio MCP server is a process on a pipe, so this is the least it must do; what the MCP path
 *   adds is the MCP SDK's framing and the mapping. Target: ≤ 1.3× the time.
 * - beside them: the same `invokeTool` in this process (`in_process_agent_ms`: no pipe, no second process)
 *   and the SDK alone (`sdk_in_memory_ms`: `McpServer` + `Client` over `InMemoryTransport`).
 * The two compared paths take turns call by call (this machine's slow phases last seconds, so each pair of
 * calls meets the same one); the ratio is the median over rounds of the two paths' median call times in the
 * round. The two paths beside them run a short round of their own after each.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { connectAgent } from "@lineup/agent-sdk/node";
import { silentLogger, startAppServer } from "@lineup/app-server";
import { generatePublisherKey } from "@lineup/runtime";
import type { NodeRuntime } from "@lineup/runtime/node";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { machine, median, percentile, round, type SuiteResult } from "../lib.js";
import { until } from "../link-proxy.js";
import { APP, METHOD, startToolDevice } from "../tool-app.js";
import { mcpCaller } from "./tools.js";

const ROUND_CALLS = Number(process.env["LINEUP_BENCH_MCP_ROUND_CALLS"] ?? 40);
const ROUNDS = Number(process.env["LINEUP_BENCH_MCP_ROUNDS"] ?? 15);
const SIDE_ROUND_MS = 200;
const WARMUP_CALLS = 100;
const CLI_BIN = resolve(import.meta.dirname, "..", "..", "packages", "cli", "src", "bin.ts");
const PIPE_AGENT = resolve(import.meta.dirname, "..", "agent-over-pipe.ts");

/** Starts `agent-over-pipe.ts`; resolves once it sees the tool, with a call that writes one line and waits for its answer. */
async function agentOverPipe(url: string, token: string, sessionId: string): Promise<{ call: () => Promise<void>; close: () => Promise<void> }> {
  const child = spawn(process.execPath, ["--conditions=source", "--import", "tsx", PIPE_AGENT, url, token, sessionId], { stdio: ["pipe", "pipe", "inherit"] });
  // Raw "data" events, as the MCP SDK's stdio client reads: each line is one answer.
  const waiting: ((line: string) => void)[] = [];
  let buffered = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    buffered += chunk;
    for (let i = buffered.indexOf("\n"); i !== -1; i = buffered.indexOf("\n")) {
      const line = buffered.slice(0, i);
      buffered = buffered.slice(i + 1);
      waiting.shift()?.(line);
    }
  });
  const next = (): Promise<string> => new Promise((resolve) => waiting.push(resolve));
  if ((await next()) !== "ready") throw new Error("the pipe agent did not start");
  return {
    async call() {
      child.stdin.write("call\n");
      const answer = await next();
      if (answer !== "ok") throw new Error(`pipe agent: ${answer}`);
    },
    async close() {
      child.stdin.end();
      await new Promise((r) => child.once("exit", r));
    },
  };
}

/** Calls `first` and `second` in turn, `calls` times each; returns each one's latencies (ms). */
async function inTurn(first: () => Promise<void>, second: () => Promise<void>, calls: number): Promise<[number[], number[]]> {
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < calls; i++) {
    let t = performance.now();
    await first();
    a.push(performance.now() - t);
    t = performance.now();
    await second();
    b.push(performance.now() - t);
  }
  return [a, b];
}

export async function run(): Promise<SuiteResult> {
  const dir = mkdtempSync(join(tmpdir(), "lineup-bench-mcp-"));
  const server = await startAppServer({ dataDir: join(dir, "server"), port: 0, logger: silentLogger });
  const credentials = server.devCredentials!;
  const publisher = await generatePublisherKey();
  const closers: (() => Promise<void>)[] = [];
  let runtime: NodeRuntime | undefined;
  try {
    const device = await startToolDevice({ serverUrl: server.url, token: credentials.device_token, dataDir: join(dir, "device"), publisher, title: "MCP" });
    runtime = device.runtime;
    const sessionId = device.sessionId;

    const agent = await connectAgent({ url: server.url, token: credentials.agent_token });
    closers.push(() => agent.close());
    await until(() => agent.inventory(sessionId)?.tools.some((t) => t.method === METHOD) === true, "the inventory at the agent");
    const lineup = async (): Promise<void> => void (await agent.invokeTool(sessionId, METHOD, {}, { appScope: APP }).result);

    const client = new Client({ name: "bench-mcp-client", version: "1.0.0" });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: ["--conditions=source", "--import", "tsx", CLI_BIN, "mcp", "--session", sessionId, "--url", server.url, "--token", credentials.agent_token], stderr: "ignore" }));
    closers.push(() => client.close());
    const name = `${APP}.${METHOD}`;
    for (let i = 0; i < 400 && !(await client.listTools()).tools.some((t) => t.name === name); i++) await new Promise((r) => setTimeout(r, 25));
    const mcp = async (): Promise<void> => {
      const result = await client.callTool({ name, arguments: {} });
      if (result.isError === true) throw new Error(`MCP tools/call failed: ${JSON.stringify(result.content)}`);
    };

    const memory = await mcpCaller();
    closers.push(() => memory.close());
    const pipe = await agentOverPipe(server.url, credentials.agent_token, sessionId);
    closers.push(() => pipe.close());

    for (let i = 0; i < WARMUP_CALLS; i++) for (const call of [mcp, pipe.call, lineup, memory.call]) await call();
    const latencies = { mcp: [] as number[], pipe: [] as number[], lineup: [] as number[], memory: [] as number[] };
    const ratios: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      // Which of the two goes first alternates, so neither always follows the other's wake-ups.
      const [first, second] = i % 2 === 0 ? await inTurn(mcp, pipe.call, ROUND_CALLS) : (await inTurn(pipe.call, mcp, ROUND_CALLS)).reverse();
      latencies.mcp.push(...first!);
      latencies.pipe.push(...second!);
      ratios.push(median(first!) / median(second!));
      await round(lineup, SIDE_ROUND_MS, latencies.lineup);
      await round(memory.call, SIDE_ROUND_MS / 2, latencies.memory);
    }
    const ours = median(latencies.mcp);
    const floor = median(latencies.pipe);
    const inMemory = median(latencies.memory);
    return {
      suite: "mcp",
      machine: machine(),
      results: [
        {
          metric: "mcp_tools_call",
          unit: "ms/call (p50)",
          value: ours,
          baseline: "lineup_agent_tool_call_over_pipe",
          baseline_value: floor,
          ratio: median(ratios),
          target_ratio: 1.3,
          higher_is_better: false,
          p99_ms: percentile(latencies.mcp, 99),
          baseline_p99_ms: percentile(latencies.pipe, 99),
          in_process_agent_ms: median(latencies.lineup),
          sdk_in_memory_ms: inMemory,
          calls: latencies.mcp.length,
          round_ratios: ratios,
          notes: `ratio: median over ${ROUNDS} rounds of ${ROUND_CALLS} calls of each path taking turns, of the two paths' median call time; beside them, the same invokeTool in the bench's own process takes ${median(latencies.lineup).toFixed(3)} ms and the SDK's in-memory tools/call (no LineUp, no process, no store) ${inMemory.toFixed(3)} ms`,
        },
      ],
    };
  } finally {
    for (const close of closers.reverse()) await close().catch(() => undefined);
    await runtime?.stop();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
