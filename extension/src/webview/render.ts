// Building the transcript's DOM. Every piece of transcript text reaches the page through
// textContent or a Text node, after plainText(): never innerHTML, never an attribute that
// the browser would interpret (href, src, style). Kept free of globals so tests run it on a
// fake document that refuses innerHTML.
import type { BuilderInfo, MessageView } from "../protocol";
import { findAll, isCompaction, plainText } from "../text";

export const ROLE_LABELS: Readonly<Record<string, string>> = {
  user: "User",
  assistant: "Assistant",
  reasoning: "Reasoning",
  tool_call: "Tool call",
  tool_result: "Tool result",
  system: "System",
};

/** Roles whose body is folded by default; a tool call only when it is long (a short one,
 * such as Read(path), says more unfolded than its summary would). */
const FOLDED = new Set(["reasoning", "tool_result"]);
const SHORT_CALL = { chars: 240, lines: 4 };

function folded(m: MessageView): boolean {
  if (FOLDED.has(m.role)) return true;
  if (m.role !== "tool_call") return false;
  return m.text.length > SHORT_CALL.chars || m.text.split("\n").length > SHORT_CALL.lines;
}

function lineCount(s: string): number {
  return s ? s.split("\n").length : 0;
}

export function el<K extends keyof HTMLElementTagNameMap>(
  doc: Document,
  tag: K,
  className?: string,
  text?: string,
): HTMLElementTagNameMap[K] {
  const e = doc.createElement(tag);
  if (className) e.className = className;
  if (text !== undefined) e.textContent = plainText(text);
  return e;
}

/** A CSS class name from a role: only [a-z_-], so a strange role cannot smuggle anything. */
export function roleClass(role: string): string {
  return `role-${role.toLowerCase().replace(/[^a-z_-]/g, "") || "unknown"}`;
}

/** Fills target with text, each occurrence of query in a <mark>; returns how many. */
export function setHighlighted(doc: Document, target: HTMLElement, raw: string, query: string): number {
  const text = plainText(raw);
  const ranges = findAll(text, query);
  const parts: Node[] = [];
  let at = 0;
  for (const [a, b] of ranges) {
    if (a > at) parts.push(doc.createTextNode(text.slice(at, a)));
    const mark = doc.createElement("mark");
    mark.textContent = text.slice(a, b);
    parts.push(mark);
    at = b;
  }
  if (at < text.length || parts.length === 0) parts.push(doc.createTextNode(text.slice(at)));
  target.replaceChildren(...parts);
  return ranges.length;
}

function firstLine(s: string, max = 90): string {
  const line = plainText(s).split("\n").find((l) => l.trim()) ?? "";
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

export interface RenderOptions {
  query: string;
  /** The message before this one in the line, to mark session boundaries. */
  previous?: MessageView;
  formatTime: (iso: string | null) => string;
}

export interface Rendered {
  entry: HTMLElement;
  matches: number;
}

/** One message (with the boundary markers before it) as a self-contained entry. */
export function renderMessage(doc: Document, m: MessageView, opts: RenderOptions): Rendered {
  const entry = el(doc, "div", "entry");
  entry.dataset.number = String(m.number);
  let matches = 0;

  if (opts.previous && opts.previous.session_id !== m.session_id) {
    entry.append(el(doc, "div", "divider session", `continued in session ${m.session_id}`));
  }
  const compaction = isCompaction(m.role, m.kinds, m.text);
  if (compaction) entry.append(el(doc, "div", "divider compaction", "context compacted"));

  const article = el(doc, "article", `msg ${roleClass(m.role)}${compaction ? " compaction" : ""}`);
  article.id = `m-${m.number}`;
  const head = el(doc, "header", "head");
  const parts = [el(doc, "span", "num", `#${m.number}`), el(doc, "span", "role", ROLE_LABELS[m.role] ?? m.role)];
  if (m.tool_name) parts.push(el(doc, "span", "tool", m.tool_name));
  if (m.model) parts.push(el(doc, "span", "model", m.model));
  const when = opts.formatTime(m.timestamp);
  if (when) parts.push(el(doc, "span", "time", when));
  // real spaces between the parts, so the text reads "#3 User …" when copied or read aloud
  parts.forEach((p, i) => {
    if (i > 0) head.append(doc.createTextNode(" "));
    head.append(p);
  });
  article.append(head);

  const body = el(doc, "div", "body");
  matches += setHighlighted(doc, body, m.text, opts.query);
  if (folded(m)) {
    const details = el(doc, "details", "fold");
    const summaryText = m.role === "reasoning" ? "Reasoning" : `${ROLE_LABELS[m.role] ?? m.role}${m.tool_name ? `: ${m.tool_name}` : ""}`;
    const summary = el(doc, "summary", undefined, summaryText);
    // a call previews its first line; output only says its size (it stays folded until asked)
    const preview = m.role === "tool_call" ? firstLine(m.text) : "";
    if (preview) summary.append(el(doc, "span", "preview", ` — ${preview}`));
    else if (m.role === "tool_result") summary.append(el(doc, "span", "preview", ` (${lineCount(plainText(m.text))} lines)`));
    details.append(summary, body);
    article.append(details);
  } else if (m.text) {
    article.append(body);
  }

  const calls = (m.parts ?? []).flatMap((p) => (p.tool ? [p.tool.summary] : []));
  if (calls.length > 0) {
    const details = el(doc, "details", "fold calls");
    details.append(el(doc, "summary", undefined, `${calls.length} tool call${calls.length === 1 ? "" : "s"}`));
    for (const call of calls) {
      const pre = el(doc, "pre", "call");
      matches += setHighlighted(doc, pre, call, opts.query);
      details.append(pre);
    }
    article.append(details);
  }
  entry.append(article);
  entry.dataset.matches = String(matches);
  return { entry, matches };
}

/** The header's description of a Builder: agent, project, start, size. */
export function builderMeta(b: BuilderInfo, formatTime: (iso: string | null) => string): string {
  return [b.tool, b.project ?? "", formatTime(b.started_at), `${b.message_count} messages`, b.short_id]
    .filter(Boolean)
    .join(" · ");
}
