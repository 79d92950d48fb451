/**
 * The Markdown sanitiser against an XSS corpus, in real Chromium (DOMPurify needs a real DOM): the
 * sanitiser module is bundled with esbuild and run in a blank page; each case's HTML is attached to the
 * document, so anything that would execute gets its chance to.
 */
import { resolve } from "node:path";
import { build } from "esbuild";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../../../test/support/chromium.js";

let browser: Browser;
let page: Page;

beforeAll(async () => {
  const bundle = await build({
    entryPoints: [resolve(import.meta.dirname, "../src/core-apps/chat/markdown.ts")],
    bundle: true,
    write: false,
    format: "iife",
    globalName: "LineUpMarkdown",
    platform: "browser",
    target: "es2022",
    conditions: ["source"],
  });
  browser = await launchChromium();
  page = await browser.newPage();
  await page.setContent("<!doctype html><html><body><div id=out></div></body></html>");
  await page.addScriptTag({ content: bundle.outputFiles[0]!.text });
}, 60_000);

afterAll(async () => browser?.close());

interface Rendered {
  html: string;
  text: string;
  dangerous: number;
  links: { href: string | null; target: string | null; rel: string | null }[];
  images: string[];
  pwned: unknown;
}

async function render(markdown: string): Promise<Rendered> {
  return page.evaluate(async (md) => {
    const w = window as unknown as { LineUpMarkdown: { renderMarkdown(text: string): string }; __pwned?: unknown };
    const out = document.getElementById("out")!;
    out.innerHTML = w.LineUpMarkdown.renderMarkdown(md);
    await new Promise((r) => setTimeout(r, 50));
    return {
      html: out.innerHTML,
      text: out.textContent ?? "",
      dangerous: out.querySelectorAll("script, iframe, object, embed, svg, math, style, form, input, button, base, meta, link, [onerror], [onload], [onclick], [style], [srcdoc]").length,
      links: [...out.querySelectorAll("a")].map((a) => ({ href: a.getAttribute("href"), target: a.getAttribute("target"), rel: a.getAttribute("rel") })),
      images: [...out.querySelectorAll("img")].map((img) => img.getAttribute("src") ?? ""),
      pwned: w.__pwned,
    };
  }, markdown);
}

const SAFE_HREF = /^(https?:|mailto:)/;

describe("Markdown sanitiser (XSS corpus, real Chromium)", () => {
  const hostile: [string, string][] = [
    ["script tag", "<script>window.__pwned = 1</script>"],
    ["img onerror (raw HTML)", '<img src=x onerror="window.__pwned = 2">'],
    ["svg onload", '<svg onload="window.__pwned = 3"></svg>'],
    ["iframe srcdoc", '<iframe srcdoc="<script>parent.__pwned = 4</script>"></iframe>'],
    ["raw anchor with javascript:", '<a href="javascript:window.__pwned = 5">x</a>'],
    ["javascript: link", "[click](javascript:window.__pwned=6)"],
    ["JavaScript: mixed case", "[click](JaVaScRiPt:window.__pwned=7)"],
    ["javascript: with entity", "[click](&#106;avascript:window.__pwned=8)"],
    ["javascript: with tab", "[click](java\tscript:window.__pwned=9)"],
    ["vbscript: link", "[click](vbscript:msgbox)"],
    ["data: URL in a link", "[click](data:text/html;base64,PHNjcmlwdD5wYXJlbnQuX19wd25lZD0xMDwvc2NyaXB0Pg==)"],
    ["file: link", "[secrets](file:///etc/passwd)"],
    ["image with onerror in the URL", '![a](x" onerror="window.__pwned=11)'],
    ["remote image (tracking pixel)", "![pixel](https://tracker.example/p.png)"],
    ["svg data image", "![a](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9ImFsZXJ0KDEpIi8+)"],
    ["style tag", "<style>body{display:none}</style>"],
    ["reference-style javascript link", "[x][1]\n\n[1]: javascript:window.__pwned=12"],
    ["autolink javascript", "<javascript:window.__pwned=13>"],
    ["html comment smuggling", "<!-- --><script>window.__pwned=14</script>"],
    ["form and input", '<form action="https://evil.example"><input name=x></form>'],
  ];

  for (const [name, markdown] of hostile) {
    it(`neutralises: ${name}`, async () => {
      const r = await render(markdown);
      expect(r.dangerous, r.html).toBe(0);
      expect(r.pwned).toBeUndefined();
      for (const link of r.links) if (link.href !== null) expect(link.href).toMatch(SAFE_HREF);
      for (const src of r.images) expect(src).toMatch(/^(data:image\/(png|jpeg|gif|webp);base64,|blob:)/);
    });
  }

  it("shows raw HTML as text rather than dropping what the agent wrote", async () => {
    const r = await render("Use <b>bold</b> tags");
    expect(r.text).toContain("<b>bold</b>");
    expect(r.html).not.toContain("<b>");
  });

  it("keeps safe links, opening them in a new context with no opener and no referrer", async () => {
    const r = await render("[docs](https://example.com/a?b=1) and <https://example.org> and [mail](mailto:someone@example.com)");
    expect(r.links.map((l) => l.href)).toEqual(["https://example.com/a?b=1", "https://example.org", "mailto:someone@example.com"]);
    for (const link of r.links) {
      expect(link.target).toBe("_blank");
      expect(link.rel).toBe("noopener noreferrer");
    }
  });

  it("renders Markdown structure: headings, emphasis, lists, code, quotes, tables", async () => {
    const r = await render("## Title\n\n**bold** *em* `code`\n\n- one\n- two\n\n> quoted\n\n```\nblock\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |");
    for (const tag of ["<h2>", "<strong>", "<em>", "<code>", "<ul>", "<blockquote>", "<pre>", "<table>"]) expect(r.html).toContain(tag);
  });

  it("shows inline images only from local bytes (data: raster or blob:)", async () => {
    const png = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
    const r = await render(`![dot](${png})`);
    expect(r.images).toEqual([png]);
  });
});
