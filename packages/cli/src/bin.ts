#!/usr/bin/env node
import { processIo, runCli } from "./index.js";

process.exitCode = await runCli(process.argv.slice(2), processIo);
