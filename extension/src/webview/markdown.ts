// Markdown as the transcript shows it: markdown-it with raw HTML off (an agent's <script> is
// text), fenced code highlighted by highlight.js, images as a labelled placeholder (nothing is
// loaded), links only http(s) (opened by the extension, which asks) and file paths (opened in
// an editor when inside the workspace), any other scheme shown as inert text with its target.
// The HTML goes through sanitize.ts; links become data attributes the page's click handler
// reads, never an href the webview would follow.
import MarkdownIt from "markdown-it";
import { linkTarget } from "../transcript/links";
import { el, shownText } from "./dom";
import { highlightHtml, knownLanguage } from "./highlight";
import { sanitizeMarkdown } from "./sanitize";

/** Past this a text is shown as plain preformatted text, not parsed. */
export const MARKDOWN_LIMIT = 200_000;

type Token = MarkdownIt.Token;

/** A link_open's "was it inert", for its link_close (links do not nest). */
function inertStack(env: MarkdownIt.Env | undefined): boolean[] {
  const e = (env ?? {}) as { inert?: boolean[] };
  return (e.inert ??= []);
}

const md: MarkdownIt.MarkdownIt = new MarkdownIt({
  html: false,
  linkify: true,
  typographer: false,
  highlight: (code, lang) => {
    const language = knownLanguage(lang);
    const html = highlightHtml(code, language);
    if (html === undefined) return "";
    return `<pre class="md-code"><code class="hljs language-${language ?? ""}">${html}</code></pre>`;
  },
});
md.linkify.set({ fuzzyEmail: false });
// a table column's alignment as a class, not markdown-it's style="text-align:…": the page's CSP
// refuses style attributes (even in the sanitiser's inert parse, where each one was reported)
md.core.ruler.push("align_as_class", (state) => {
  for (const t of state.tokens) {
    if (t.type !== "th_open" && t.type !== "td_open") continue;
    const align = /^text-align:(left|right|center)$/.exec(String(t.attrGet("style") ?? ""))?.[1];
    t.attrs = (t.attrs ?? []).filter(([name]) => name !== "style");
    if (align) t.attrJoin("class", `md-align-${align}`);
  }
});
// every link becomes a token, so an unsafe one is shown inert (with its target) rather than
// as its Markdown source; what a link may do is decided below and again by the extension
md.validateLink = () => true;

const esc = (s: string): string => md.utils.escapeHtml(s);

function cut(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
}

const rules = md.renderer.rules;
const attr = (t: Token | undefined, name: string): string => String(t?.attrGet(name) ?? "");

rules.image = (tokens, idx) => {
  const t = tokens[idx];
  const src = attr(t, "src");
  const alt = t?.content ?? "";
  const what = [alt ? `“${alt}”` : "", src ? cut(src, 120) : ""].filter(Boolean).join(" ");
  return `<span class="md-image">[image${what ? ` ${esc(what)}` : ""} — not loaded]</span>`;
};

rules.link_open = (tokens, idx, _options, env) => {
  const href = attr(tokens[idx], "href");
  const target = linkTarget(href);
  inertStack(env).push(target.kind === "inert");
  if (target.kind === "inert") return `<span class="md-inert-link" title="${esc(`Not opened: ${cut(href, 200)}`)}">`;
  return `<a href="${esc(href)}">`;
};

rules.link_close = (tokens, idx, _options, env) => {
  const inert = inertStack(env).pop() ?? false;
  if (!inert) return "</a>";
  // show where it pointed, unless the text already is the address (an autolink)
  const open = tokens.slice(0, idx).reverse().find((x) => x.type === "link_open");
  const auto = open?.markup === "linkify" || open?.markup === "autolink";
  const href = attr(open, "href");
  return auto || !href ? "</span>" : `</span><span class="md-inert-url"> (${esc(cut(href, 200))})</span>`;
};

/** The page's own links: an http(s) address or a file path in a data attribute, no href. */
function wireLinks(fragment: DocumentFragment): void {
  for (const a of Array.from(fragment.querySelectorAll("a"))) {
    const target = linkTarget(a.getAttribute("href") ?? "");
    a.removeAttribute("href");
    a.tabIndex = -1;
    a.setAttribute("role", "link");
    if (target.kind === "web") {
      a.className = "md-link web";
      a.dataset.href = target.url;
      a.title = target.url;
    } else if (target.kind === "file") {
      a.className = "md-link file";
      a.dataset.file = target.path;
      if (target.line) a.dataset.line = String(target.line);
      a.title = `Open ${target.path}${target.line ? `:${target.line}` : ""}`;
    } else {
      const span = a.ownerDocument.createElement("span");
      span.className = "md-inert-link";
      span.append(...Array.from(a.childNodes));
      a.replaceWith(span);
    }
  }
}

/** Paragraphs of plain text (most messages): built as Text nodes directly, without the
 * round trip through HTML and the sanitiser; undefined when there is any markup. */
function plainParagraphs(doc: Document, tokens: Token[]): HTMLElement[] | undefined {
  const out: HTMLElement[] = [];
  for (const t of tokens) {
    if (t.type === "paragraph_open" || t.type === "paragraph_close") continue;
    if (t.type !== "inline") return undefined;
    const parts: string[] = [];
    for (const c of t.children ?? []) {
      if (c.type === "text") parts.push(c.content);
      else if (c.type === "softbreak") parts.push("\n");
      else return undefined;
    }
    const p = doc.createElement("p");
    p.textContent = parts.join("");
    out.push(p);
  }
  return out;
}

/** Markdown source as sanitised nodes, in a <div class="md">. */
export function renderMarkdown(doc: Document, source: string): HTMLElement {
  const box = el(doc, "div", "md");
  const text = shownText(source);
  if (text.length > MARKDOWN_LIMIT) {
    box.append(el(doc, "pre", "md-plain", text));
    return box;
  }
  const env = { inert: [] };
  const tokens = md.parse(text, env);
  const plain = plainParagraphs(doc, tokens);
  if (plain) {
    box.append(...plain);
    return box;
  }
  const fragment = sanitizeMarkdown(doc, md.renderer.render(tokens, md.options, env));
  wireLinks(fragment);
  box.append(fragment);
  return box;
}
