/**
 * `lineup admin …`: the operator's client of a running AppServer's admin face (`POST /admin`, JSON-RPC with an
 * admin token; docs/app-server-protocol.md section 14). Each subcommand is one admin method; tokens and pairing
 * codes are printed once, here, and nowhere else. Exit 0 done, 1 refused or unreachable, 2 usage.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { decodeJson, UsageError } from "@lineup/protocol";
import { ADMIN_TOKEN_FILE, defaultDataDir } from "@lineup/app-server";
import type { CliIo, Command, LoadedCommand } from "../io.js";

export const ADMIN_USAGE = `usage: lineup admin [--server URL] [--admin-token TOKEN] [--data DIR] [--json] AREA VERB [ARGS]

  user add USER [--name NAME] [--tenant TENANT]   a new user
  user list
  user disable USER                              their devices and agents are closed and refused
  user tenant USER [TENANT]                      puts the user in TENANT (without: in none)
  device add USER [--id DEVICE] [--name NAME]    a device of USER; prints its token once
  device list [USER]
  device revoke DEVICE                           its connections are closed (4003) and its token refused
  device pair USER [--ttl SECONDS]               a single-use code (10 minutes) a sign-in page exchanges for a device
  agent add AGENT [--owner USER] [--name NAME]   prints its token once; with --owner only USER's sessions can bind it
  agent list [--owner USER]
  agent revoke AGENT
  agent rotate AGENT                             a new token; the old one's connections are closed
  tenant set TENANT [--name NAME] [--apps SCOPE,…] [--policy JSON]
                                                 the apps its users' devices may run (without --apps: any) and policy
                                                 defaults {blocked_capabilities, blocked_execution_modes,
                                                 denied_capabilities, require_confirmation}
  tenant list

The server: --server, else LINEUP_ADMIN_URL, else http://127.0.0.1:8787. The admin token: --admin-token, else
LINEUP_ADMIN_TOKEN, else the file admin-token in the data directory (--data, else LINEUP_DATA_DIR, else
$XDG_DATA_HOME/lineup), which the server writes when it makes the store's first admin token.`;

const OPTIONS = {
  server: { type: "string" },
  "admin-token": { type: "string" },
  data: { type: "string" },
  json: { type: "boolean" },
  name: { type: "string" },
  tenant: { type: "string" },
  id: { type: "string" },
  ttl: { type: "string" },
  owner: { type: "string" },
  apps: { type: "string" },
  policy: { type: "string" },
} as const;

type Flags = { readonly [K in keyof typeof OPTIONS]?: (typeof OPTIONS)[K]["type"] extends "boolean" ? boolean : string };

/** One line of a subcommand: the method it calls, its params from the arguments, and how its result is printed. */
interface Verb {
  readonly args: readonly string[];
  readonly flags: readonly (keyof typeof OPTIONS)[];
  readonly method: string;
  params(args: readonly (string | undefined)[], flags: Flags): Record<string, unknown>;
  print(result: Record<string, unknown>, io: CliIo): void;
}

const defined = (entries: Record<string, unknown>) => Object.fromEntries(Object.entries(entries).filter(([, v]) => v !== undefined));
const table = (rows: readonly Record<string, unknown>[], columns: readonly string[], io: CliIo) => {
  if (rows.length === 0) return io.out("(none)");
  for (const row of rows) io.out(columns.map((c) => `${c}=${row[c] === null || row[c] === undefined ? "-" : typeof row[c] === "object" ? JSON.stringify(row[c]) : String(row[c])}`).join("  "));
};
const closed = (what: string) => (r: Record<string, unknown>, io: CliIo) => io.out(`${what} ${String(r[Object.keys(r)[0]!])}: ${String(r["closed_connections"])} live connection(s) closed`);

const VERBS: Readonly<Record<string, Verb>> = {
  "user add": { args: ["USER"], flags: ["name", "tenant"], method: "admin/user/add", params: ([u], f) => defined({ user_id: u, display_name: f.name, tenant_id: f.tenant }), print: (r, io) => io.out(`added user ${(r["user"] as { user_id: string }).user_id}`) },
  "user list": { args: [], flags: [], method: "admin/user/list", params: () => ({}), print: (r, io) => table(r["users"] as Record<string, unknown>[], ["user_id", "display_name", "tenant_id", "devices", "disabled_at"], io) },
  "user disable": { args: ["USER"], flags: [], method: "admin/user/disable", params: ([u]) => ({ user_id: u }), print: closed("disabled user") },
  "user tenant": { args: ["USER", "TENANT?"], flags: [], method: "admin/user/tenant", params: ([u, t]) => defined({ user_id: u, tenant_id: t }), print: (r, io) => io.out(`user ${(r["user"] as { user_id: string }).user_id} is in tenant ${(r["user"] as { tenant_id: string | null }).tenant_id ?? "(none)"}`) },
  "device add": {
    args: ["USER"],
    flags: ["id", "name"],
    method: "admin/device/add",
    params: ([u], f) => defined({ user_id: u, device_id: f.id, name: f.name }),
    print: (r, io) => {
      io.out(`added device ${(r["device"] as { device_id: string }).device_id}; its token (shown once):`);
      io.out(String(r["token"]));
    },
  },
  "device list": { args: ["USER?"], flags: [], method: "admin/device/list", params: ([u]) => defined({ user_id: u }), print: (r, io) => table(r["devices"] as Record<string, unknown>[], ["device_id", "user_id", "name", "revoked_at"], io) },
  "device revoke": { args: ["DEVICE"], flags: [], method: "admin/device/revoke", params: ([d]) => ({ device_id: d }), print: closed("revoked device") },
  "device pair": {
    args: ["USER"],
    flags: ["ttl"],
    method: "admin/device/pair",
    params: ([u], f) => defined({ user_id: u, ttl_seconds: f.ttl === undefined ? undefined : positive(f.ttl, "--ttl") }),
    print: (r, io) => {
      io.out(`pairing code for ${String(r["user_id"])} (single use, until ${String(r["expires_at"])}):`);
      io.out(String(r["code"]));
    },
  },
  "agent add": {
    args: ["AGENT"],
    flags: ["owner", "name"],
    method: "admin/agent/add",
    params: ([a], f) => defined({ agent_id: a, owner_user_id: f.owner, name: f.name }),
    print: (r, io) => {
      io.out(`added agent ${(r["agent"] as { agent_id: string }).agent_id}; its token (shown once):`);
      io.out(String(r["token"]));
    },
  },
  "agent list": { args: [], flags: ["owner"], method: "admin/agent/list", params: (_, f) => defined({ owner_user_id: f.owner }), print: (r, io) => table(r["agents"] as Record<string, unknown>[], ["agent_id", "owner_user_id", "name", "revoked_at"], io) },
  "agent revoke": { args: ["AGENT"], flags: [], method: "admin/agent/revoke", params: ([a]) => ({ agent_id: a }), print: closed("revoked agent") },
  "agent rotate": {
    args: ["AGENT"],
    flags: [],
    method: "admin/agent/rotate",
    params: ([a]) => ({ agent_id: a }),
    print: (r, io) => {
      io.out(`rotated agent ${String(r["agent_id"])}: ${String(r["closed_connections"])} live connection(s) closed; its new token (shown once):`);
      io.out(String(r["token"]));
    },
  },
  "tenant set": {
    args: ["TENANT"],
    flags: ["name", "apps", "policy"],
    method: "admin/tenant/set",
    params: ([t], f) =>
      defined({
        tenant_id: t,
        name: f.name,
        app_allowlist: f.apps === undefined ? undefined : f.apps.split(",").map((s) => s.trim()).filter((s) => s !== ""),
        policy: f.policy === undefined ? undefined : jsonFlag(f.policy, "--policy"),
      }),
    print: (r, io) => io.out(`tenant ${JSON.stringify(r["tenant"])}`),
  },
  "tenant list": { args: [], flags: [], method: "admin/tenant/list", params: () => ({}), print: (r, io) => table(r["tenants"] as Record<string, unknown>[], ["tenant_id", "name", "app_allowlist", "policy"], io) },
};

function positive(text: string, flag: string): number {
  if (!/^\d{1,6}$/.test(text) || Number(text) < 1) throw new UsageError(`${flag} takes a number of seconds`);
  return Number(text);
}

function jsonFlag(text: string, flag: string): unknown {
  const decoded = decodeJson(text, { maxBytes: 16 * 1024, maxDepth: 8 });
  if (!decoded.ok) throw new UsageError(`${flag} takes JSON: ${decoded.error.message}`);
  return decoded.value;
}

function adminToken(flags: Flags, env: Readonly<Record<string, string | undefined>>): string {
  const given = flags["admin-token"] ?? env["LINEUP_ADMIN_TOKEN"];
  if (given !== undefined && given !== "") return given;
  const dataDir = flags.data ?? defaultDataDir(env);
  const file = join(dataDir, ADMIN_TOKEN_FILE);
  try {
    return readFileSync(file, "utf8").trim();
  } catch (error) {
    throw new Error(`no admin token: give --admin-token or LINEUP_ADMIN_TOKEN, or --data for the server's data directory (cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`, { cause: error });
  }
}

export function adminCommandWith(env: Readonly<Record<string, string | undefined>>): Command {
  return async (argv, io) => {
    const { values, positionals } = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true });
    const flags = values as Flags;
    const [area, verb, ...args] = positionals;
    const name = `${area ?? ""} ${verb ?? ""}`;
    const spec = Object.hasOwn(VERBS, name) ? VERBS[name] : undefined;
    if (spec === undefined) throw new UsageError(area === undefined ? "name what to manage: user, device, agent or tenant" : `unknown subcommand "${name.trim()}"`);
    const required = spec.args.filter((a) => !a.endsWith("?")).length;
    if (args.length < required || args.length > spec.args.length) throw new UsageError(`${name} takes ${spec.args.join(" ") || "no arguments"}`);
    const stray = (Object.keys(flags) as (keyof typeof OPTIONS)[]).find((f) => !["server", "admin-token", "data", "json"].includes(f) && !spec.flags.includes(f));
    if (stray !== undefined) throw new UsageError(`${name} does not take --${stray}`);
    const params = spec.params(args, flags);
    const server = (flags.server ?? env["LINEUP_ADMIN_URL"] ?? "http://127.0.0.1:8787").replace(/\/+$/, "");
    const token = adminToken(flags, env);
    let response: Response;
    try {
      response = await fetch(`${server}/admin`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: spec.method, params }),
      });
    } catch (error) {
      throw new Error(`cannot reach the AppServer at ${server}: ${((error as Error).cause as Error | undefined)?.message ?? (error as Error).message}`, { cause: error });
    }
    const reply = (await response.json().catch(() => undefined)) as { result?: Record<string, unknown>; error?: { data?: { code?: string; message?: string; path?: string }; message?: string } } | undefined;
    if (reply?.error !== undefined || reply?.result === undefined) {
      const data = reply?.error?.data;
      if (flags.json === true) io.out(JSON.stringify({ ok: false, error: data ?? { code: "internal_error", message: `HTTP ${response.status}` } }));
      else io.err(`refused: ${data?.code ?? `HTTP ${response.status}`}${data?.path === undefined ? "" : ` at ${data.path}`}: ${data?.message ?? reply?.error?.message ?? "the server did not answer with JSON-RPC"}`);
      return 1;
    }
    if (flags.json === true) io.out(JSON.stringify(reply.result));
    else spec.print(reply.result, io);
    return 0;
  };
}

export const adminCommand: Command = (argv, io) => adminCommandWith(process.env)(argv, io);

export const adminCli: LoadedCommand = { run: adminCommand, usage: ADMIN_USAGE };
