/**
 * The floor of the mcp suite: LineUp's own agent path driven over a pipe, in a process of its own, as
 * `lineup mcp` is. Each line on stdin is one call of the bench app's tool through the agent SDK's
 * `invokeTool`; each answer is one line on stdout (`ok`, or `error <code>`). What the MCP path adds over
 * this is the MCP SDK's framing and the mapping.
 *
 *   node --conditions=source --import tsx bench/agent-over-pipe.ts URL TOKEN SESSION_ID
 */
import { connectAgent } from "@lineup/agent-sdk/node";
import { APP, METHOD } from "./tool-app.js";

const [url, token, sessionId] = process.argv.slice(2) as [string, string, string];
const agent = await connectAgent({ url, token });
while (agent.inventory(sessionId)?.tools.some((t) => t.method === METHOD) !== true) await new Promise((r) => setTimeout(r, 20));
process.stdout.write("ready\n");
// Raw "data" events, as the MCP SDK's stdio transport reads: one line in, one call.
const call = async (): Promise<void> => {
  try {
    await agent.invokeTool(sessionId, METHOD, {}, { appScope: APP }).result;
    process.stdout.write("ok\n");
  } catch (error) {
    process.stdout.write(`error ${(error as { code?: string }).code ?? String(error)}\n`);
  }
};
process.stdin.on("data", (chunk: Buffer) => {
  for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) void call();
});
process.stdin.on("end", () => void agent.close());
