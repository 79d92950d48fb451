/**
 * What the suites that measure in real Chromium share: page code under bench/surface/ bundled with esbuild, and a
 * server on 127.0.0.1 (an ephemeral port) that serves the built pages by path.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const pagesDir = join(dirname(fileURLToPath(import.meta.url)), "surface");

/** One page entry of bench/surface/, bundled for the browser (the workspace's TypeScript sources, minified). */
export async function bundlePage(entry: string, format: "esm" | "iife"): Promise<string> {
  const result = await build({
    entryPoints: [join(pagesDir, entry)],
    bundle: true,
    write: false,
    format,
    platform: "browser",
    target: "es2022",
    conditions: ["source"],
    minify: true,
    logLevel: "silent",
  });
  return result.outputFiles[0]!.text;
}

/** An empty page that runs one module script. */
export const modulePage = (script: string): string => `<!doctype html><html><head><meta charset="utf-8"></head><body style="margin:0"><script type="module" src="${script}"></script></body></html>`;

export interface ServedFile {
  readonly type: string;
  readonly body: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/** Serves `files` by exact path (anything else is 404) until `close()`. */
export async function servePages(files: Readonly<Record<string, ServedFile>>): Promise<{ origin: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const file = Object.prototype.hasOwnProperty.call(files, req.url ?? "/") ? files[req.url ?? "/"] : undefined;
    if (file === undefined) return void res.writeHead(404).end();
    res.writeHead(200, { "content-type": file.type, ...file.headers }).end(file.body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
