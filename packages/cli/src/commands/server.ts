/** `lineup server [--config FILE] [--SETTING VALUE …]`: the reference AppServer on SQLite. */
import { serveAppServer } from "@lineup/app-server";
import type { Command } from "../io.js";

export const serverCommand: Command = (argv, io) => serveAppServer(argv, process.env, io);
