/**
 * The single-file page of an app bundle: inline script and style, nothing fetched, and a meta CSP
 * that admits exactly this script (by hash) — defence in depth under the host's own CSP.
 */
import { createHash } from "node:crypto";

export interface PageParts {
  readonly title: string;
  readonly lang: string;
  readonly script: string;
  readonly style: string;
}

const escapeText = (text: string): string => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/** Inline code must not end its own element early. */
const guardScript = (code: string): string => code.replace(/<\/(script)/gi, "<\\/$1").replace(/<!--/g, "<\\!--");
const guardStyle = (css: string): string => css.replace(/<\/(style)/gi, "<\\/$1");

export function sha256Base64(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("base64");
}

export function composePage(parts: PageParts): string {
  const script = guardScript(parts.script);
  const style = guardStyle(parts.style);
  const csp = [
    "default-src 'none'",
    `script-src 'sha256-${sha256Base64(script)}'`,
    // Inline style attributes (set by UI code) need 'unsafe-inline'; styles cannot reach the network under default-src 'none'.
    "style-src 'unsafe-inline'",
    "img-src data: blob:",
    "font-src data:",
    // Sound and video the app made or read itself (an artifact's bytes as a blob), never from the network.
    "media-src data: blob:",
    "base-uri 'none'",
    "form-action 'none'",
  ].join("; ");
  return [
    "<!doctype html>",
    `<html lang="${escapeText(parts.lang)}">`,
    "<head>",
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${csp}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeText(parts.title)}</title>`,
    style.length > 0 ? `<style>${style}</style>` : "",
    "</head>",
    "<body>",
    '<div id="app"></div>',
    `<script>${script}</script>`,
    "</body>",
    "</html>",
    "",
  ]
    .filter((line) => line !== "")
    .join("\n");
}

/**
 * References to anything outside the page: `src`/`href` attributes on tags, CSS `url(...)` and
 * `@import` that are not `data:`. An app bundle must have none (the sandbox could not load them).
 */
export function findExternalReferences(html: string): string[] {
  const found: string[] = [];
  const markup = html.replace(/<script>[\s\S]*?<\/script>/gi, "<script></script>");
  for (const m of markup.matchAll(/<[a-z][^>]*\s(?:src|href|srcset|action|data)\s*=\s*["']?([^"'\s>]*)/gi)) found.push(m[0].slice(0, 120));
  for (const m of markup.matchAll(/url\(\s*["']?(?!data:)([^"')]+)/gi)) found.push(`url(${m[1]!.slice(0, 100)})`);
  for (const m of markup.matchAll(/@import\s+[^;]+/gi)) found.push(m[0].slice(0, 120));
  return found;
}
