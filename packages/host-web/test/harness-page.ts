/**
 * A page for testing host UI code in real Chromium: one entry bundled with esbuild (Preact JSX, the
 * `source` condition) and served from 127.0.0.1 on an ephemeral port — the bundle at /harness.js and
 * /harness.css, the page under the given CSP at every other path.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { build } from "esbuild";

export interface HarnessPage {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  readonly origin: string;
  close(): Promise<void>;
}

export interface HarnessPageOptions {
  /** Absolute path of the page's entry module. */
  readonly entry: string;
  /** The Content-Security-Policy the page is served under. */
  readonly csp: string;
  readonly title: string;
  /** Markup placed in `<body>` before the script. */
  readonly body?: string;
}

export async function serveHarnessPage(options: HarnessPageOptions): Promise<HarnessPage> {
  const built = await build({
    entryPoints: { harness: options.entry },
    bundle: true,
    write: false,
    outdir: "/out",
    format: "esm",
    platform: "browser",
    target: "es2022",
    conditions: ["source"],
    jsx: "automatic",
    jsxImportSource: "preact",
    logLevel: "silent",
  });
  const js = built.outputFiles.find((f) => f.path.endsWith(".js"))?.text;
  if (js === undefined) throw new Error(`esbuild wrote no script for ${options.entry}`);
  const css = built.outputFiles.find((f) => f.path.endsWith(".css"))?.text ?? "";
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${options.title}</title><link rel="stylesheet" href="/harness.css"></head><body>${options.body ?? ""}<script type="module" src="/harness.js"></script></body></html>`;
  const server = createServer((req, res) => {
    if (req.url === "/harness.js") return void res.writeHead(200, { "content-type": "text/javascript" }).end(js);
    if (req.url === "/harness.css") return void res.writeHead(200, { "content-type": "text/css" }).end(css);
    res.writeHead(200, { "content-type": "text/html", "content-security-policy": options.csp });
    res.end(html);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
