// One message of the view model (MessageView.parts, in order) as a self-contained entry: text as
// Markdown, thinking and harness text folded, tool calls as one-line summaries that expand,
// attachments as labelled placeholders. All text goes in as Text nodes or through the
// sanitiser (dom.ts, sanitize.ts); this module sets no attribute from transcript text but
// data-* and title.
import { tokensSpan } from "./usage";
import type { BuilderInfo, MessageView, Part } from "../protocol";
import { isCompaction } from "../text";
import { announceBuilt, bytesLabel, el, fold, oneLine, shownText, spaced } from "./dom";
import { renderMarkdown } from "./markdown";
import { renderTool, type ToolContext } from "./tools";

export const ROLE_LABELS: Readonly<Record<string, string>> = {
  user: "User",
  assistant: "Assistant",
  system: "Harness",
  tool_result: "Tool result",
  reasoning: "Reasoning",
  tool_call: "Tool call",
};

/** A CSS class name from a role: only [a-z_-], so a strange role cannot smuggle anything. */
export function roleClass(role: string): string {
  return `role-${role.toLowerCase().replace(/[^a-z_-]/g, "") || "unknown"}`;
}

export interface RenderOptions extends ToolContext {
  /** The message before this one in the line, to mark session boundaries. */
  previous?: MessageView;
  formatTime: (iso: string | null) => string;
  /** Inside another message (a subagent shown inline): no id, not a Tab stop. */
  nested?: boolean;
}

function labelBadge(doc: Document, label: string, cls = "label"): HTMLElement {
  return el(doc, "span", `badge ${cls}`, label);
}

function thinkingPart(doc: Document, p: Part): HTMLElement {
  if (!p.text) {
    return el(doc, "div", "part thinking redacted", `Thinking${p.label ? ` (${p.label})` : ""}`);
  }
  const summary = [el(doc, "span", "fold-title", "Thinking"), el(doc, "span", "preview", oneLine(p.text, 120))];
  return fold(doc, "part thinking", summary, () => [renderMarkdown(doc, p.text ?? "")], p.text);
}

function harnessPart(doc: Document, p: Part): HTMLElement {
  const label = p.label ?? "Harness";
  const text = p.text ?? "";
  const summary = [labelBadge(doc, label, "harness-label"), el(doc, "span", "preview", oneLine(text, 120))];
  return fold(doc, "part harness", summary, () => [el(doc, "pre", "harness-text", text)], `${label}\n${text}`);
}

function noticePart(doc: Document, p: Part): HTMLElement {
  const box = el(doc, "div", "part notice");
  const parts: Node[] = [];
  if (p.label) parts.push(labelBadge(doc, p.label));
  if (p.text) parts.push(el(doc, "span", "notice-text", p.text));
  spaced(doc, box, parts);
  return box;
}

/** An image or file: what it is and its size, and a button asking the extension to open it
 * (lazy keeps an image's size and digest, not its bytes: said here). */
function mediaPart(doc: Document, p: Part, index: number, sessionId: string): HTMLElement {
  const box = el(doc, "div", `part media kind-${p.kind === "image" ? "image" : "file"}`);
  const what = [p.kind === "image" ? "Image" : "File", p.name ?? "", p.media_type ?? "", p.bytes ? bytesLabel(p.bytes) : ""].filter(Boolean);
  const label = el(doc, "span", "media-label", what.join(" · "));
  const note = el(
    doc,
    "span",
    "media-note",
    p.kind === "image" ? "not kept by lazy (only its size and digest)" : "its content is in the session's source file",
  );
  const open = el(doc, "button", "media-open", "Open source");
  open.type = "button";
  open.tabIndex = -1;
  open.dataset.action = "open-media";
  open.dataset.part = String(index);
  open.dataset.session = sessionId;
  open.title = "Open the session's source file, where the agent recorded it";
  spaced(doc, box, [labelBadge(doc, p.kind === "image" ? "image" : "file", "media-kind"), label, note, open]);
  return box;
}

function renderPart(doc: Document, m: MessageView, p: Part, index: number, opts: RenderOptions): HTMLElement {
  switch (p.kind) {
    case "text": {
      const box = el(doc, "div", "part text");
      box.append(renderMarkdown(doc, p.text ?? ""));
      return box;
    }
    case "thinking":
      return thinkingPart(doc, p);
    case "harness":
      return harnessPart(doc, p);
    case "notice":
      return noticePart(doc, p);
    case "image":
    case "file":
      return mediaPart(doc, p, index, m.session_id);
    case "tool":
      return p.tool ? renderTool(doc, p.tool, opts) : noticePart(doc, { kind: "notice", label: "Tool call" });
  }
}

/** A message's parts; one of an older sidecar (no parts) reads as its text. */
export function partsOf(m: MessageView): Part[] {
  if (m.parts && m.parts.length > 0) return m.parts;
  if (!m.text) return [];
  return [{ kind: m.role === "system" ? "harness" : "text", text: m.text, label: m.role === "system" ? "System" : null }];
}

function compacted(m: MessageView): boolean {
  return (m.parts ?? []).some((p) => p.kind === "harness" && /^compaction/i.test(p.label ?? "")) || isCompaction(m.role, m.kinds, m.text);
}

function header(doc: Document, m: MessageView, opts: RenderOptions): HTMLElement {
  const head = el(doc, "header", "head");
  const parts: Node[] = [el(doc, "span", "num", `#${m.number}`), el(doc, "span", "role", ROLE_LABELS[m.role] ?? m.role)];
  if (m.model) parts.push(el(doc, "span", "model", m.model));
  const spent = tokensSpan(doc, m);
  if (spent) parts.push(spent);
  const when = opts.formatTime(m.timestamp);
  if (when) parts.push(el(doc, "span", "time", when));
  spaced(doc, head, parts);
  return head;
}

/** One message (with the boundary markers before it) as a self-contained entry. */
export function renderMessage(doc: Document, m: MessageView, opts: RenderOptions): HTMLElement {
  const { entry, body } = shell(doc, m, opts);
  fill(doc, body, m, opts);
  return entry;
}

/** One message whose head is built now and whose parts are built by `build()` (once): a page
 * of 200 messages builds the few on screen, the rest as they near it (transcript.ts). Until
 * then it holds its estimated height, on screen and (as the size content-visibility gives an
 * entry it skips) off it. */
export function renderDeferred(doc: Document, m: MessageView, opts: RenderOptions): { entry: HTMLElement; build: () => void } {
  const { entry, body } = shell(doc, m, opts);
  const estimate = `${estimatedHeight(m)}px`;
  body.style.minHeight = estimate;
  entry.style.containIntrinsicSize = `auto ${estimate}`;
  let built = false;
  const build = (): void => {
    if (built) return;
    built = true;
    fill(doc, body, m, opts);
    body.removeAttribute("style");
    announceBuilt(body);
  };
  return { entry, build };
}

/** A rough height for a message's parts before they are built (text wraps at ~110 characters
 * a line; every other part starts folded to one line). */
export function estimatedHeight(m: MessageView): number {
  let px = 0;
  for (const p of partsOf(m)) {
    if (p.kind !== "text") {
      px += 28;
      continue;
    }
    let lines = 0;
    for (const line of (p.text ?? "").split("\n", 400)) lines += 1 + Math.floor(line.length / 110);
    px += Math.min(lines, 400) * 19 + 12;
  }
  return px;
}

/** The entry: boundary markers, the article with its head, and an empty body for the parts. */
function shell(doc: Document, m: MessageView, opts: RenderOptions): { entry: HTMLElement; body: HTMLElement } {
  const entry = el(doc, "div", opts.nested ? "entry nested" : "entry");
  entry.dataset.number = String(m.number);
  if (opts.previous && opts.previous.session_id !== m.session_id) {
    entry.append(el(doc, "div", "divider session", `continued in session ${m.session_id}`));
  }
  const compaction = compacted(m);
  if (compaction) entry.append(el(doc, "div", "divider compaction", "context compacted"));

  const harness = m.harness || m.role === "system";
  const article = el(doc, "article", `msg ${roleClass(m.role)}${harness ? " harness" : ""}${compaction ? " compaction" : ""}`);
  if (!opts.nested) {
    article.id = `m-${m.number}`;
    article.tabIndex = -1;
  }
  article.setAttribute("aria-label", `#${m.number} ${ROLE_LABELS[m.role] ?? shownText(m.role)}`);
  article.append(header(doc, m, opts));
  const body = el(doc, "div", "parts");
  article.append(body);
  entry.append(article);
  return { entry, body };
}

function fill(doc: Document, body: HTMLElement, m: MessageView, opts: RenderOptions): void {
  body.append(...partsOf(m).map((p, i) => renderPart(doc, m, p, i, opts)));
}

/** The header's title: the Builder's title, else its summary's first line, cut to one line. */
export function builderTitle(b: BuilderInfo): string {
  return oneLine(b.title || b.summary || b.short_id, 120) || b.short_id;
}

/** The header's description of a Builder: agent, project, start, size. */
export function builderMeta(b: BuilderInfo, formatTime: (iso: string | null) => string): string {
  return [b.tool, b.project ?? "", formatTime(b.started_at), `${b.message_count} messages`, b.alias ?? "", b.short_id]
    .filter(Boolean)
    .join(" · ");
}
