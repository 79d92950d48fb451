/**
 * `lineup admin` against a running AppServer: the admin token read from the server's data directory, users and
 * devices added and listed, a token printed once that signs in, a revocation that closes the device's live
 * connection with 4003, pairing codes, and refusals as one line with exit 1.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { APP_SERVER_PROTOCOL_VERSION, CLOSE_CODES } from "@lineup/protocol";
import { silentLogger, startAppServer, type AppServerHandle } from "@lineup/app-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { runCli, type CliIo } from "../src/index.js";

function capture(): CliIo & { lines: string[]; errors: string[] } {
  const lines: string[] = [];
  const errors: string[] = [];
  return { lines, errors, out: (l) => lines.push(...l.split("\n")), err: (l) => errors.push(...l.split("\n")) };
}

const data = mkdtempSync(join(tmpdir(), "lineup-admin-cli-"));
let server: AppServerHandle;
beforeAll(async () => {
  server = await startAppServer({ dataDir: data, logger: silentLogger });
});
afterAll(async () => {
  await server.close();
  rmSync(data, { recursive: true, force: true });
});

async function admin(...args: string[]): Promise<{ code: number; lines: string[]; errors: string[] }> {
  const io = capture();
  const code = await runCli(["admin", "--server", server.httpUrl, "--data", data, ...args], io);
  return { code, lines: io.lines, errors: io.errors };
}

/** Opens a socket and initializes with the token; resolves once it is signed in, with how it later closes. */
async function signIn(token: string): Promise<{ role: string; closed: Promise<number> }> {
  const ws = new WebSocket(server.url);
  const closed = new Promise<number>((resolve) => ws.on("close", (code) => resolve(code)));
  await new Promise((resolve, reject) => ws.once("open", resolve).once("error", reject));
  ws.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocol_version: APP_SERVER_PROTOCOL_VERSION, client_info: { name: "t" }, token } }));
  const reply = await new Promise<{ result?: { role: string } }>((resolve) => ws.once("message", (m) => resolve(JSON.parse(String(m)))));
  if (reply.result === undefined) ws.close();
  return { role: reply.result?.role ?? "refused", closed };
}

describe("lineup admin", () => {
  it("adds a user and a device whose token signs in, and revoking it closes that connection with 4003", async () => {
    expect(await admin("user", "add", "zoe", "--name", "Zoe")).toMatchObject({ code: 0, lines: ["added user zoe"] });
    const added = await admin("device", "add", "zoe", "--id", "zoe-laptop");
    expect(added.code).toBe(0);
    expect(added.lines[0]).toBe("added device zoe-laptop; its token (shown once):");
    const session = await signIn(added.lines[1]!);
    expect(session.role).toBe("device");
    expect((await admin("user", "list")).lines).toEqual(["user_id=dev-user  display_name=Dev user  tenant_id=-  devices=1  disabled_at=-", "user_id=zoe  display_name=Zoe  tenant_id=-  devices=1  disabled_at=-"]);
    expect((await admin("device", "revoke", "zoe-laptop")).lines).toEqual(["revoked device zoe-laptop: 1 live connection(s) closed"]);
    expect(await session.closed).toBe(CLOSE_CODES.revoked);
    expect((await signIn(added.lines[1]!)).role).toBe("refused");
  });

  it("prints a pairing code, rotates an agent's token and answers JSON with --json", async () => {
    const pair = await admin("device", "pair", "zoe");
    expect(pair.lines[1]).toMatch(/^[0-9A-Z]{4}-[0-9A-Z]{4}$/);
    const agent = await admin("--json", "agent", "add", "zoe-agent", "--owner", "zoe");
    const { token } = JSON.parse(agent.lines[0]!) as { token: string };
    const live = await signIn(token);
    expect(live.role).toBe("agent");
    const rotated = await admin("agent", "rotate", "zoe-agent");
    expect(rotated.lines[0]).toBe("rotated agent zoe-agent: 1 live connection(s) closed; its new token (shown once):");
    expect(await live.closed).toBe(CLOSE_CODES.revoked);
    expect((await signIn(rotated.lines[1]!)).role).toBe("agent");
  });

  it("refuses with the code on one line and exit 1, and a bad command line with exit 2", async () => {
    expect(await admin("user", "add", "zoe")).toMatchObject({ code: 1, errors: ["refused: invalid_state: user zoe exists already"] });
    expect(await admin("device", "add", "nobody")).toMatchObject({ code: 1, errors: ["refused: not_found at /user_id: no user nobody"] });
    expect((await admin("user", "frobnicate")).code).toBe(2);
    expect((await admin("user", "list", "--owner", "x")).code).toBe(2);
    const wrongToken = capture();
    expect(await runCli(["admin", "--server", server.httpUrl, "--admin-token", "nope", "user", "list"], wrongToken)).toBe(1);
    expect(wrongToken.errors[0]).toMatch(/^refused: unauthorized: /);
  });
});
