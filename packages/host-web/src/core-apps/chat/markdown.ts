/**
 * Agent Markdown → safe HTML (spec 8.1: trusted renderers sanitise Markdown and protect external links).
 * Two layers, so one bug is not enough: markdown-it with raw HTML off and its own URL check, then DOMPurify
 * over the result with a short tag allow-list. Links may be http, https or mailto and always open in a new
 * browsing context with no opener and no referrer; images may only be `data:image/*` or `blob:` URLs
 * (artifact previews are blob URLs), never a remote fetch. Needs a DOM (DOMPurify).
 */
import DOMPurify from "dompurify";
import MarkdownIt from "markdown-it";

const LINK_PROTOCOLS = new Set(["http:", "https:", "mailto:"]);
const DATA_IMAGE = /^data:image\/(png|jpeg|gif|webp);base64,[a-z0-9+/=\s]+$/i;

/** True for a URL a rendered link may point at. */
export function isSafeLinkUrl(href: string): boolean {
  try {
    return LINK_PROTOCOLS.has(new URL(href).protocol);
  } catch {
    return false;
  }
}

/** True for a URL an inline image may load: local bytes only, never the network. */
export function isSafeImageUrl(src: string): boolean {
  if (DATA_IMAGE.test(src)) return true;
  try {
    return new URL(src).protocol === "blob:";
  } catch {
    return false;
  }
}

const markdown = new MarkdownIt({ html: false, linkify: true, breaks: true, typographer: false });
// markdown-it's check covers links and images alike; the finer split happens after DOMPurify below.
markdown.validateLink = (url: string): boolean => isSafeLinkUrl(url) || isSafeImageUrl(url);

const ALLOWED_TAGS = [
  "p", "br", "hr", "strong", "em", "s", "del", "code", "pre", "blockquote",
  "ul", "ol", "li", "a", "img", "h1", "h2", "h3", "h4", "h5", "h6",
  "table", "thead", "tbody", "tr", "th", "td",
];
const ALLOWED_ATTR = ["href", "src", "alt", "title", "start", "target", "rel"];

type Purifier = ReturnType<typeof DOMPurify>;
let purifier: Purifier | undefined;

function getPurifier(): Purifier {
  if (purifier !== undefined) return purifier;
  // A private instance: its hooks never touch another user of DOMPurify on the page.
  const instance = DOMPurify(window);
  instance.addHook("afterSanitizeAttributes", (node) => {
    if (node.tagName === "A") {
      const href = node.getAttribute("href");
      if (href === null || !isSafeLinkUrl(href)) node.removeAttribute("href");
      node.setAttribute("target", "_blank");
      node.setAttribute("rel", "noopener noreferrer");
    } else if (node.tagName === "IMG") {
      const src = node.getAttribute("src");
      if (src === null || !isSafeImageUrl(src)) node.remove();
      else node.setAttribute("loading", "lazy");
    }
  });
  purifier = instance;
  return instance;
}

/** Renders untrusted Markdown to HTML that is safe to assign to `innerHTML`. */
export function renderMarkdown(text: string): string {
  const html = markdown.render(text);
  return getPurifier().sanitize(html, { ALLOWED_TAGS, ALLOWED_ATTR, ADD_ATTR: ["loading"], ALLOW_DATA_ATTR: false, ALLOW_ARIA_ATTR: false });
}

/** Plain text shown as-is (no Markdown): escaped by the renderer, kept here for one entry point. */
export function renderPlainText(text: string): string {
  return markdown.utils.escapeHtml(text).replace(/\n/g, "<br>");
}
