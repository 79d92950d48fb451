/**
 * The floor of the mcp suite: LineUp's own agent path driven over a pipe, in a process of its own, as
 * `lineup mcp` is. Each line on stdin is one call of the bench app's tool through the agent SDK's
 * `invokeTool`; each answer is one line on stdout (`ok`, or `error <code>`). What the MCP path adds over
 * this is the MCP SDK's framing and the mapping.
 *
 *   node --conditions=source --import tsx bench/agent-over-pipe.ts URL TOKEN SESSION_ID
 */
import { createInterface } from "node:readline";
import { connectAgent } from "@lineup/agent-sdk/node";
import { APP, METHOD } from "./tool-app.js";

const [url, token, sessionId] = process.argv.slice(2) as [string, string, string];
const agent = await connectAgent({ url, token });
while (agent.inventory(sessionId)?.tools.some((t) => t.method === METHOD) !== true) await new Promise((r) => setTimeout(r, 20));
process.stdout.write("ready\n");
for await (const _line of createInterface({ input: process.stdin })) {
  try {
    await agent.invokeTool(sessionId, METHOD, {}, { appScope: APP }).result;
    process.stdout.write("ok\n");
  } catch (error) {
    process.stdout.write(`error ${(error as { code?: string }).code ?? String(error)}\n`);
  }
}
await agent.close();
