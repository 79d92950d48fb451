/** `lineup mcp --session <id|new> --url … --token …`: one session as an MCP server on stdio. */
import { runMcpStdio } from "@lineup/mcp-server/node";
import type { Command } from "../io.js";

export const mcpCommand: Command = (argv, io) => runMcpStdio(argv, process.env, { error: io.err });
