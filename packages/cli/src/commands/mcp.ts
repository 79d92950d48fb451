/** `lineup mcp --session <id|new> --url … --token …`: one session as an MCP server on stdio. */
import { MCP_CLI_USAGE, serveMcpStdio } from "@lineup/mcp-server/node";
import type { Command, LoadedCommand } from "../io.js";

export const mcpCommand: Command = (argv, io) => serveMcpStdio(argv, process.env, { error: io.err });

export const mcpCli: LoadedCommand = { run: mcpCommand, usage: MCP_CLI_USAGE };
