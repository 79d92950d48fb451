/**
 * `npm start`: the product on its embedded defaults — the AppServer on SQLite in `.lineup-data/`,
 * the demo agent connected to it, and the Web Reference Host (built with Vite when `dist/` is missing
 * or older than its sources), served on 127.0.0.1 with the dev credentials as its sign-in config.
 * Prints one URL to open.
 *
 * Environment: LINEUP_DATA_DIR (default: the clone's .lineup-data/, so a fresh clone runs as it is; the
 * installed `lineup server` defaults to the per-user $XDG_DATA_HOME/lineup instead), LINEUP_PORT (AppServer, default 8787; 0 = any
 * free port), LINEUP_WEB_PORT (the host, default 8788; 0 = any free port), LINEUP_AGENT=demo|llm
 * (default demo; llm needs LINEUP_LLM_BASE_URL, else OPENAI_BASE_URL).
 */
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { DEV_CREDENTIALS_FILE, startAppServer, stderrLogger } from "@lineup/app-server";
import { failureLine } from "@lineup/protocol";
import { startAgentCli } from "@lineup/agent-sdk/node";
import { ensureHostBuilt, startHostServer } from "@lineup/host-web/node";
import { prepareBuiltinApps } from "./builtin-apps.js";

// A failure to start (a busy port, a missing file) is one line and exit 1, as for every LineUp command.
process.once("uncaughtException", (error) => {
  console.error(`npm start: ${failureLine(error)}`);
  process.exit(1);
});

const root = resolve(import.meta.dirname, "..");
const dataDir = resolve(root, process.env["LINEUP_DATA_DIR"] ?? ".lineup-data");
const port = Number(process.env["LINEUP_PORT"] ?? 8787);
const webPort = Number(process.env["LINEUP_WEB_PORT"] ?? 8788);
const agentMode = process.env["LINEUP_AGENT"] ?? "demo";

// Build first, so the URL printed below is ready to open.
const host = await ensureHostBuilt(undefined, (message) => console.log(message));

mkdirSync(dataDir, { recursive: true });
const server = await startAppServer({ dataDir, port, logger: stderrLogger });
const credentialsFile = join(dataDir, DEV_CREDENTIALS_FILE);
if (!existsSync(credentialsFile)) throw new Error(`${credentialsFile} is missing: remove ${dataDir} to provision fresh dev credentials`);
const credentials = JSON.parse(readFileSync(credentialsFile, "utf8")) as { device_token: string; agent_token: string };
const agent = await startAgentCli([agentMode, "--url", server.url, "--credentials", credentialsFile]);
const builtin = await prepareBuiltinApps(root, dataDir);
const web = await startHostServer({
  distDir: host.distDir,
  port: webPort,
  config: { server_url: server.url, device_token: credentials.device_token, trusted_publishers: [builtin.trusted], builtin_apps: builtin.apps },
  bundles: builtin.bundles,
  // Apps' MCP servers and stdio programs run in this process for the page (the local back-end service).
  localBackends: { dataDir: join(dataDir, "local-backends"), diagnostics: (error, context) => console.error(`npm start: ${context}: ${failureLine(error)}`) },
});

console.log(`
LineUp is running on its embedded defaults.
  AppServer      ${server.url}   (health: ${server.httpUrl}/healthz, data: ${dataDir})
  ${agentMode === "llm" ? "LLM agent " : "Demo agent"}     connected as ${agent.client.agentId}
  Built-in apps  ${builtin.apps.map((a) => a.name).join(", ")} (signed with the dev key ${builtin.trusted.key_id.slice(0, 12)}…; install them from Apps)
  Dev tokens     device ${credentials.device_token}
                 agent  ${credentials.agent_token}
                 (also in ${credentialsFile})

Open LineUp:  ${web.url}
(press Ctrl+C here to stop)
`);

const stop = async (): Promise<void> => {
  await web.close();
  await agent.stop();
  await server.close();
  process.exit(0);
};
process.once("SIGINT", () => void stop());
process.once("SIGTERM", () => void stop());
