/** `lineup agent demo|llm --url … --token …`: a remote agent (the demo agent or the LLM adapter). */
import { AGENT_CLI_USAGE, serveAgentCli } from "@lineup/agent-sdk/node";
import type { Command, LoadedCommand } from "../io.js";

export const agentCommand: Command = (argv, io) => serveAgentCli(argv, process.env, { log: io.out, error: io.err });

export const agentCli: LoadedCommand = { run: agentCommand, usage: AGENT_CLI_USAGE };
