/** `lineup agent demo|llm --url … --token …`: a remote agent (the demo agent or the LLM adapter). */
import { serveAgentCli } from "@lineup/agent-sdk/node";
import type { Command } from "../io.js";

export const agentCommand: Command = (argv, io) => serveAgentCli(argv, process.env, { log: io.out, error: io.err });
