/** `lineup server [--config FILE] [--SETTING VALUE …]`: the reference AppServer on SQLite. */
import { serveAppServer, serverHelp } from "@lineup/app-server";
import type { Command, LoadedCommand } from "../io.js";

export const serverCommand: Command = (argv, io) => serveAppServer(argv, process.env, io);

export const serverCli: LoadedCommand = { run: serverCommand, usage: serverHelp() };
