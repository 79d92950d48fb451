/**
 * The built page and its server: a strict CSP (no eval, no inline script, connect-src only the AppServer),
 * no eval or `new Function` in any bundled script, and a static server that serves the config only to
 * the loopback host and never outside dist/.
 */
import { readdirSync, readFileSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CONFIG_ELEMENT_ID } from "../src/bootstrap/config.js";
import { policyFor, startHostServer, type HostServer } from "../src/node/serve.js";
import { configInPage, createSite } from "../src/serving/site.js";
import { buildOnce } from "./support.js";

let distDir: string;
let server: HostServer;
const CONFIG = { server_url: "ws://127.0.0.1:48111/rpc", device_token: "dev-device-token" };

beforeAll(async () => {
  distDir = await buildOnce();
  server = await startHostServer({ distDir, config: CONFIG });
}, 60_000);
afterAll(async () => server?.close());

function directives(policy: string): Map<string, string[]> {
  return new Map(
    policy
      .split(";")
      .map((d) => d.trim().split(/\s+/))
      .filter((parts) => parts[0] !== "")
      .map((parts) => [parts[0]!, parts.slice(1)]),
  );
}

function get(path: string, host?: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port: server.port, path, headers: host === undefined ? {} : { host } }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("the built host page", () => {
  it("carries a strict CSP: scripts only from itself, no eval, no inline code, no plugins; wasm only for apps' back-ends in blob: workers", () => {
    const html = readFileSync(join(distDir, "index.html"), "utf8");
    const policy = /http-equiv="Content-Security-Policy"\s+content="([^"]+)"/.exec(html)?.[1];
    expect(policy).toBeDefined();
    const csp = directives(policy!);
    expect(csp.get("default-src")).toEqual(["'none'"]);
    // 'wasm-unsafe-eval' lets the page compile WebAssembly (apps' wasm back-ends, run in workers made from blob: URLs);
    // it allows no JavaScript eval.
    expect(csp.get("script-src")).toEqual(["'self'", "'wasm-unsafe-eval'"]);
    expect(csp.get("worker-src")).toEqual(["blob:"]);
    expect(csp.get("style-src")).toEqual(["'self'"]);
    expect(csp.get("object-src")).toEqual(["'none'"]);
    expect(csp.get("base-uri")).toEqual(["'none'"]);
    expect(policy!.replace("'wasm-unsafe-eval'", "")).not.toMatch(/unsafe-eval|unsafe-inline|\*(?!:)/);
    // Every script is an external module file; no inline script at all.
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.length).toBeGreaterThan(0);
    for (const [, attributes, body] of scripts) {
      expect(attributes).toMatch(/src="\.\/assets\/[^"]+\.js"/);
      expect(body!.trim()).toBe("");
    }
  });

  it("loads the Runtime, the protocol's validators and schema ids and the app-schema engine after its first paint, as chunks of their own", () => {
    const html = readFileSync(join(distDir, "index.html"), "utf8");
    // What the page loads before it paints: its entry and the modules it preloads (as the weight bench counts them).
    const initial = new Set([...html.matchAll(/(?:src|href)="\.\/(assets\/[^"]+\.js)"/g)].map((m) => m[1]!));
    const later = readdirSync(join(distDir, "assets"))
      .map((f) => `assets/${f}`)
      .filter((f) => f.endsWith(".js") && !initial.has(f));
    expect(initial.size).toBeGreaterThan(0);
    const text = (files: Iterable<string>) => [...files].map((f) => readFileSync(join(distDir, f), "utf8")).join("\n");
    const firstPaint = text(initial);
    const lazy = text(later);
    const markers: Record<string, string> = {
      "the Runtime": "the Runtime was already started",
      "generated validators and schema ids": "urn:lineup:",
      "RE2 (re2js)": "RE2JS",
      "@cfworker/json-schema": "github.com/cfworker",
      "the JSON Schema meta-schema check": "json-schema.org/draft/2020-12/schema",
    };
    for (const [what, marker] of Object.entries(markers)) {
      expect(firstPaint.includes(marker), `${what} is in the first-paint scripts`).toBe(false);
      // The marker still stands for what it names: the build carries it, later.
      expect(lazy.includes(marker), `${what} (${marker}) is in no chunk at all`).toBe(true);
    }
  });

  /** The scripts that load before the Runtime is online: the entry, its preloads, the Runtime's chunks and the chunks they import. */
  const scriptsBeforeOnline = () => {
    const html = readFileSync(join(distDir, "index.html"), "utf8");
    const assets = readdirSync(join(distDir, "assets")).filter((f) => f.endsWith(".js"));
    const read = (file: string) => readFileSync(join(distDir, "assets", file), "utf8");
    // A chunk with the chunks it imports statically: what loads when it does.
    const closure = (roots: readonly string[]): Set<string> => {
      const seen = new Set<string>();
      const queue = [...roots];
      while (queue.length > 0) {
        const file = queue.pop()!;
        if (seen.has(file)) continue;
        seen.add(file);
        for (const m of read(file).matchAll(/(?:\bimport|\bfrom)\s*["']\.\/([^"']+\.js)["']/g)) queue.push(m[1]!);
      }
      return seen;
    };
    const entry = [...html.matchAll(/(?:src|href)="\.\/assets\/([^"]+\.js)"/g)].map((m) => m[1]!);
    // The Runtime's chunk (bootstrap/start-runtime.ts); a new profile's start loads no other (the app-schema engine waits for the first app).
    const runtime = assets.filter((f) => f.startsWith("start-runtime-"));
    expect(entry.length).toBeGreaterThan(0);
    expect(runtime.filter((f) => f.startsWith("start-runtime-"))).toHaveLength(1);
    const beforeOnline = closure([...entry, ...runtime]);
    return { assets, read, beforeOnline };
  };

  it("holds no schema builder: no script loaded before the Runtime is online, no chunk of the Runtime, holds TypeBox", () => {
    const { assets, read, beforeOnline } = scriptsBeforeOnline();
    // The generated validators are what the Runtime checks with: they are there, the schemas they came from are not.
    expect([...beforeOnline].some((f) => read(f).includes("urn:lineup:runtime-envelope.v1"))).toBe(true);
    for (const file of beforeOnline) expect(read(file).includes("TypeBox.Kind"), `${file} holds TypeBox`).toBe(false);
    // Nor does any later chunk: every check at run time reads generated validators by id.
    for (const file of assets) expect(read(file).includes("TypeBox.Kind"), `${file} holds TypeBox`).toBe(false);
  });

  it("fetches six scripts before the Runtime is online: the small modules several chunks share come as two chunks, not a request each", () => {
    const { beforeOnline } = scriptsBeforeOnline();
    // The entry, the first paint's catalogue with Preact, what the first paint shares with later chunks, the Runtime's
    // chunk, what it shares with later chunks, and the bundler's own runtime. A new small module that several chunks
    // share belongs in one of the two groups (vite.config.ts), not in a chunk and a request of its own.
    expect([...beforeOnline].map((f) => f.replace(/-[\w-]{8}\.js$/, "")).sort()).toEqual(["i18n", "index", "rolldown-runtime", "runtime-shared", "shared", "start-runtime"]);
  });

  it("loads fflate (bundle archives) only when a bundle is read or written: no script loaded before the Runtime is online holds it", () => {
    const { assets, read, beforeOnline } = scriptsBeforeOnline();
    // One of fflate's error messages, kept by the minifier.
    const marker = "invalid length/literal";
    for (const file of beforeOnline) expect(read(file).includes(marker), `${file} holds fflate`).toBe(false);
    expect(assets.some((file) => read(file).includes(marker))).toBe(true);
  });

  it("bundles no eval or new Function (validators are precompiled; CSP would refuse them anyway)", () => {
    const assets = readdirSync(join(distDir, "assets")).filter((f) => f.endsWith(".js"));
    expect(assets.length).toBeGreaterThan(0);
    for (const file of assets) {
      const code = readFileSync(join(distDir, "assets", file), "utf8");
      // The global eval, not a method that happens to be named so (the RE2 engine's `eval(input, pos) { … }` and
      // its calls `prefilter.eval(input, pos)`).
      expect(code, file).not.toMatch(/(?<![.\w$])eval\s*\((?![^()]*\)\s*\{)|new\s+Function\s*\(|(?<![.\w$])Function\s*\(\s*["'`]/);
    }
  });
});

describe("the host's static server", () => {
  it("sends the page's CSP as its header, connect-src cut to exactly the configured AppServer origin, and no meta policy in the page", async () => {
    const res = await get("/");
    expect(res.status).toBe(200);
    const header = String(res.headers["content-security-policy"]);
    expect(directives(header).get("connect-src")).toEqual(["'self'", "ws://127.0.0.1:48111"]);
    expect(directives(header).get("frame-ancestors")).toEqual(["'none'"]);
    // Every other directive is the built page's own.
    const built = /http-equiv="Content-Security-Policy"\s+content="([^"]+)"/.exec(readFileSync(join(distDir, "index.html"), "utf8"))![1]!;
    for (const [name, value] of directives(built)) if (name !== "connect-src") expect(directives(header).get(name), name).toEqual(value);
    // A meta policy holds back the browser's preload scanner; the header is the page's policy.
    expect(res.body).not.toMatch(/http-equiv="Content-Security-Policy"/i);
    expect(res.headers["x-content-type-options"]).toBe("nosniff");
  });

  it("writes the sign-in config into the page, which the browser may not store, only for the loopback host", async () => {
    const res = await get("/");
    expect(res.status).toBe(200);
    expect(configInPage(res.body)).toEqual(CONFIG);
    expect(res.headers["cache-control"]).toBe("no-store");
    // The page asks for it nowhere else.
    expect((await get("/lineup-config.json")).status).toBe(404);
    expect((await get("/", "attacker.example:80")).status).toBe(421);
    expect(configInPage((await get("/", `localhost:${server.port}`)).body)).toEqual(CONFIG);
  });

  it("keeps any text in the config inside its data block", async () => {
    const label = '</script><script>alert(1)</script><!-- </SCRIPT x>';
    const config = { ...CONFIG, trusted_publishers: [{ key_id: "k", public_key: "p", label }] };
    const site = createSite({ indexHtml: readFileSync(join(distDir, "index.html"), "utf8"), frameHtml: readFileSync(join(distDir, "surface-frame.html"), "utf8"), readFile: () => Promise.resolve(undefined), config });
    const html = new TextDecoder().decode((await site("/")).body);
    expect(html.match(/<script/gi)?.length).toBe(readFileSync(join(distDir, "index.html"), "utf8").match(/<script/gi)!.length + 1);
    expect(configInPage(html)).toEqual(config);
  });

  it("serves assets and nothing outside dist/", async () => {
    const asset = readdirSync(join(distDir, "assets")).find((f) => f.endsWith(".js"))!;
    const res = await get(`/assets/${asset}`);
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toMatch(/^text\/javascript/);
    expect((await get("/../package.json")).status).toBe(404);
    expect((await get("/%2e%2e/%2e%2e/package.json")).status).toBe(404);
    expect((await get("/assets/missing.js")).status).toBe(404);
    // The page names its icon, and it is there (no 404 in the browser's console).
    const icon = await get("/favicon.svg");
    expect(icon.status).toBe(200);
    expect(icon.headers["content-type"]).toBe("image/svg+xml");
  });

  it("serves the sandboxed apps' frame document, with its own no-network policy", async () => {
    const res = await get("/surface-frame.html");
    expect(res.status).toBe(200);
    const policy = /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(res.body)?.[1] ?? "";
    expect(directives(policy).get("default-src")).toEqual(["'none'"]);
    expect(directives(policy).get("connect-src")).toEqual(["'none'"]);
    expect(directives(policy).get("script-src")).toEqual(["'unsafe-inline'"]);
    // No nested frame, no worker, and every HTML string through the frame's own Trusted Types policies.
    for (const directive of ["frame-src", "child-src", "worker-src", "object-src"]) expect(directives(policy).get(directive)).toEqual(["'none'"]);
    expect(directives(policy).get("require-trusted-types-for")).toEqual(["'script'"]);
    expect(directives(policy).get("trusted-types")).toEqual(["default", "lineup-frame"]);
    // The same policy as a header, before a byte is parsed; every powerful feature off; no DNS prefetch.
    expect(res.headers["content-security-policy"]).toBe(policy);
    const features = new Map(String(res.headers["permissions-policy"]).split(", ").map((entry) => entry.split("=") as [string, string]));
    for (const feature of ["camera", "microphone", "clipboard-write", "clipboard-read", "geolocation", "display-capture", "fullscreen"]) expect(features.get(feature)).toBe("()");
    expect(new Set(features.values())).toEqual(new Set(["()"]));
    expect(res.headers["x-dns-prefetch-control"]).toBe("off");
  });

  it("without a config: no config in the page, and connect-src allows loopback only (for the sign-in form)", async () => {
    const bare = await startHostServer({ distDir });
    try {
      const res = await new Promise<{ status: number; caching: string | undefined; body: string }>((resolve, reject) => {
        request({ host: "127.0.0.1", port: bare.port, path: "/" }, (r) => {
          let body = "";
          r.setEncoding("utf8");
          r.on("data", (chunk: string) => (body += chunk));
          r.on("end", () => resolve({ status: r.statusCode ?? 0, caching: r.headers["cache-control"], body }));
        })
          .on("error", reject)
          .end();
      });
      expect(res.status).toBe(200);
      expect(res.body).not.toContain(`id="${CONFIG_ELEMENT_ID}"`);
      expect(res.caching).toBe("no-cache");
    } finally {
      await bare.close();
    }
    expect(directives(policyFor("default-src 'none'; connect-src 'self'", undefined)).get("connect-src")).toEqual(["'self'", "ws://127.0.0.1:*", "ws://localhost:*", "http://127.0.0.1:*", "http://localhost:*"]);
    expect(directives(policyFor("connect-src 'self'", "wss://lineup.example:9443/rpc")).get("connect-src")).toEqual(["'self'", "wss://lineup.example:9443"]);
    // With the host's local back-end service, its origin too.
    expect(directives(policyFor("connect-src 'self'", "ws://127.0.0.1:8787/rpc", "ws://127.0.0.1:8788/local-backends")).get("connect-src")).toEqual(["'self'", "ws://127.0.0.1:8787", "ws://127.0.0.1:8788"]);
  });
});
