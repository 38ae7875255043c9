// The one way HTML made from transcript text (markdown-it's, highlight.js's) reaches the page:
// DOMPurify, with an allowlist of the few tags Markdown and highlighting make, no style, no
// event handlers, no data-/aria- attributes, classes only of the renderer's own shapes, and
// link targets only http(s), file: or a relative path (anything else loses its href).
import createDOMPurify, { type Config, type DOMPurify, type WindowLike } from "dompurify";

const MARKDOWN_TAGS = [
  "p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "strong", "em", "s", "del", "code", "pre",
  "blockquote", "ul", "ol", "li", "a", "table", "thead", "tbody", "tr", "th", "td", "span",
];

const BASE: Config = {
  ALLOWED_ATTR: ["href", "title", "class", "start"],
  ALLOW_DATA_ATTR: false,
  ALLOW_ARIA_ATTR: false,
  ALLOW_UNKNOWN_PROTOCOLS: false,
  // http(s), file:, or no scheme at all (a relative path)
  ALLOWED_URI_REGEXP: /^(?:https?:|file:|[^:]*$)/i,
  FORBID_TAGS: ["style", "img", "svg", "math", "iframe", "form", "input", "object", "embed", "video", "audio", "source", "link", "meta", "base"],
  FORBID_ATTR: ["style", "src", "srcset", "action", "formaction", "xlink:href"],
  KEEP_CONTENT: true,
  RETURN_DOM_FRAGMENT: true,
};

const MARKDOWN: Config = { ...BASE, ALLOWED_TAGS: MARKDOWN_TAGS };
const CODE: Config = { ...BASE, ALLOWED_TAGS: ["span"], ALLOWED_ATTR: ["class"] };

// the classes markdown-it and highlight.js write (hljs-keyword, function_, language-ts) and
// the renderer's own (md-*); anything else is dropped, so text cannot restyle the page
const CLASS = /^(?:hljs(?:-[a-z0-9_-]+)?|[a-z]+_+|language-[a-z0-9_+#.-]+|md-[a-z-]+|dl(?:-[a-z]+)?)$/i;

export function safeClasses(value: string): string {
  return value.split(/\s+/).filter((c) => c && CLASS.test(c)).join(" ");
}

const PURIFIERS = new WeakMap<object, DOMPurify>();

function purifier(win: Window): DOMPurify {
  let p = PURIFIERS.get(win);
  if (!p) {
    p = createDOMPurify(win as unknown as WindowLike);
    p.addHook("uponSanitizeAttribute", (_node, data) => {
      if (data.attrName !== "class") return;
      data.attrValue = safeClasses(data.attrValue);
      if (!data.attrValue) data.keepAttr = false;
    });
    PURIFIERS.set(win, p);
  }
  return p;
}

function windowOf(doc: Document): Window {
  const win = doc.defaultView;
  if (!win) throw new Error("a document without a window");
  return win;
}

/** Markdown's HTML as a fragment of the document: sanitised, never assigned as markup. */
export function sanitizeMarkdown(doc: Document, html: string): DocumentFragment {
  return purifier(windowOf(doc)).sanitize(html, { ...MARKDOWN, RETURN_DOM_FRAGMENT: true });
}

/** Highlighted code (spans with classes, escaped text) as a fragment. */
export function sanitizeCode(doc: Document, html: string): DocumentFragment {
  return purifier(windowOf(doc)).sanitize(html, { ...CODE, RETURN_DOM_FRAGMENT: true });
}
