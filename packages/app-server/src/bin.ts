#!/usr/bin/env node
/**
 * `lineup-app-server [--config FILE] [--SETTING VALUE …]`: the AppServer (`--help` lists every setting).
 * In the repository: `node --conditions=source --import tsx packages/app-server/src/bin.ts --help`.
 */
import { runServerCli } from "./cli.js";

const io = { out: (line: string) => void process.stdout.write(`${line}\n`), err: (line: string) => void process.stderr.write(`${line}\n`) };
process.exitCode = await runServerCli(process.argv.slice(2), process.env, io, "lineup-app-server");
