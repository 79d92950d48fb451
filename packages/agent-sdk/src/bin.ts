/**
 * Runs an agent from the command line:
 *   node --conditions=source --import tsx packages/agent-sdk/src/bin.ts demo|llm --url ws://… --token …
 */
import { runAgentCli } from "./node/cli.js";

process.exitCode = await runAgentCli(process.argv.slice(2), process.env, undefined, "lineup-agent");
