// The transcript page's DOM helpers. Every piece of transcript text reaches the page through
// textContent or a Text node (after shownText), or as a fragment DOMPurify returned
// (sanitize.ts): never innerHTML. Kept free of globals so tests run them on a jsdom document.

// C0/C1 controls but tab and newline, and DEL: shown, never acted on
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/** Transcript text as the page shows it: line ends made \n, ESC shown as ␛ (so a colour
 * code reads as text, `␛[31m`), every other control character as \xNN. */
export function shownText(s: string): string {
  return s.replace(/\r\n?/g, "\n").replace(CONTROL, (c) => (c === "\u001b" ? "␛" : `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`));
}

export function el<K extends keyof HTMLElementTagNameMap>(
  doc: Document,
  tag: K,
  className?: string,
  text?: string,
): HTMLElementTagNameMap[K] {
  const e = doc.createElement(tag);
  if (className) e.className = className;
  if (text !== undefined) e.textContent = shownText(text);
  return e;
}

/** Children separated by real spaces, so the text reads "#3 User …" when copied or read aloud. */
export function spaced(doc: Document, parent: HTMLElement, parts: Node[]): void {
  parts.forEach((p, i) => {
    if (i > 0) parent.append(doc.createTextNode(" "));
    parent.append(p);
  });
}

/** The first non-blank line of s, cut to max characters. */
export function oneLine(s: string, max = 160): string {
  const line = shownText(s).split("\n").find((l) => l.trim())?.trim() ?? "";
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

export function lineCount(s: string): number {
  if (!s) return 0;
  return s.replace(/\n$/, "").split("\n").length;
}

// one formatter for every count: Number#toLocaleString builds a new one on each call, and a
// page of 200 messages asks for hundreds
const COUNT = new Intl.NumberFormat("en-US");

/** 12,345 */
export function count(n: number): string {
  return COUNT.format(n);
}

export function plural(n: number, word: string): string {
  return `${count(n)} ${word}${n === 1 ? "" : "s"}`;
}

export function bytesLabel(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MB`;
}

export function durationLabel(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** An event target as an element, when it is one (no global Element: tests use jsdom's). */
export function asElement(t: EventTarget | null | undefined): Element | null {
  return t && (t as Node).nodeType === 1 ? (t as Element) : null;
}

/** Tell the page (nav.ts) that new controls were built inside node. */
export function announceBuilt(node: Element): void {
  const win = node.ownerDocument.defaultView;
  if (win) node.dispatchEvent(new win.Event("lazy-built", { bubbles: true }));
}

// ---- folds built when first opened --------------------------------------------------------

interface Fold {
  /** What find looks in: the text the body shows, before it is built. */
  text: string;
  build: (() => Node[]) | null;
}

const FOLDS = new WeakMap<HTMLDetailsElement, Fold>();

/** A <details> whose body is built the first time it opens (a page of 200 messages does not
 * build every tool output it folds). `text` is what find matches against while it is not. */
export function fold(
  doc: Document,
  className: string,
  summary: Node[],
  build: () => Node[],
  text: string,
  open = false,
): HTMLDetailsElement {
  const details = el(doc, "details", className);
  const head = el(doc, "summary");
  head.tabIndex = -1;
  spaced(doc, head, summary);
  details.append(head);
  FOLDS.set(details, { text, build });
  details.addEventListener("toggle", () => {
    if (details.open) buildFold(details);
  });
  if (open) openFold(details);
  return details;
}

function buildFold(details: HTMLDetailsElement): void {
  const f = FOLDS.get(details);
  if (!f?.build) return;
  const build = f.build;
  f.build = null;
  const body = details.ownerDocument.createElement("div");
  body.className = "fold-body";
  body.append(...build());
  details.append(body);
  announceBuilt(details);
}

/** Open a fold and build its body now (not on the toggle event, which comes later). */
export function openFold(details: HTMLDetailsElement): void {
  buildFold(details);
  details.open = true;
}

/** The text find matches in a fold (its body's source, built or not). */
export function foldText(details: HTMLDetailsElement): string | undefined {
  return FOLDS.get(details)?.text;
}
