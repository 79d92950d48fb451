/**
 * The desktop's local back-end service as its Node side starts it (`startDesktopBackends`), over real WebSockets:
 * the desktop's page (origin `lineup://app`, with this start's secret) is let in; a web page of any other origin, a
 * client without the secret, and a request naming a host other than the loopback one are refused.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import type { LocalBackendServer } from "@lineup/host-web/node";
import { startDesktopBackends } from "../src/node/backends.js";

let root: string;
let backends: LocalBackendServer;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "lineup-desktop-backends-"));
  backends = await startDesktopBackends(join(root, "backends"));
});

afterAll(async () => {
  await backends?.close();
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
});

/** Opens the service as a client with `origin` and the subprotocols the page's client offers; "open", or the refusal's HTTP status. */
function open(options: { origin: string; secret?: string; host?: string }): Promise<string> {
  return new Promise((resolve) => {
    const protocols = ["lineup.local-backends.v1", ...(options.secret === undefined ? [] : [`secret.${options.secret}`])];
    const socket = new WebSocket(`${backends.config.url}?profile=test`, protocols, { origin: options.origin, ...(options.host === undefined ? {} : { headers: { host: options.host } }) });
    socket.on("unexpected-response", (_request, response) => resolve(`refused ${response.statusCode}`));
    socket.on("error", (error) => resolve(`error ${error.message}`));
    socket.on("open", () => {
      socket.close();
      resolve("open");
    });
  });
}

describe("the desktop's local back-end service", () => {
  it("is on a loopback port, and lets in the desktop's page with this start's secret", async () => {
    expect(backends.config.url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/local-backends$/);
    expect(backends.config.secret).toMatch(/^[0-9a-f]{64}$/);
    expect(await open({ origin: "lineup://app", secret: backends.config.secret })).toBe("open");
  });

  it("refuses another origin even with the secret, the desktop's origin without it or with another, and a foreign Host", async () => {
    const port = new URL(backends.config.url).port;
    expect(await open({ origin: `http://127.0.0.1:${port}`, secret: backends.config.secret })).toBe("refused 403");
    expect(await open({ origin: "https://evil.example", secret: backends.config.secret })).toBe("refused 403");
    expect(await open({ origin: "lineup://app" })).toBe("refused 401");
    expect(await open({ origin: "lineup://app", secret: "0".repeat(64) })).toBe("refused 401");
    expect(await open({ origin: "lineup://app", secret: backends.config.secret, host: `rebound.example:${port}` })).toBe("refused 404");
  });
});
