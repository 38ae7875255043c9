// A tool call paired with its result: one line (an icon for its kind, the sidecar's summary,
// badges for exit status, duration, counts), expanding to what that kind shows — a shell's
// command and output, a diff, a checklist, the subagent it ran, a JSON input.
import type { DiffFile, SubagentRef, TodoItem, ToolCall } from "../protocol";
import { isRecord } from "../protocol/decoders";
import { linkTarget } from "../transcript/links";
import { renderDiffFile } from "./diff";
import { count, durationLabel, el, fold, lineCount, oneLine, plural, spaced } from "./dom";
import { highlightHtml, knownLanguage } from "./highlight";
import { renderMarkdown } from "./markdown";
import { sanitizeCode } from "./sanitize";

export interface ToolContext {
  /** Asked when the user opens a subagent inline: fill `into` with its messages. */
  loadSubagent?(into: HTMLElement, ref: SubagentRef): void;
}

type Kind = NonNullable<ToolCall["kind"]>;

export const TOOL_ICONS: Readonly<Record<Kind, string>> = {
  shell: "❯",
  read: "▤",
  edit: "✎",
  write: "✚",
  search: "⌕",
  todo: "☑",
  web: "◍",
  task: "⧉",
  mcp: "⚙",
  plan: "☰",
  other: "•",
};

const TODO_MARKS: Readonly<Record<string, string>> = { completed: "☑", in_progress: "◐", pending: "☐" };

/** Checklists up to this long are shown open. */
const OPEN_TODOS = 12;

function badge(doc: Document, cls: string, text: string): HTMLElement {
  return el(doc, "span", `badge ${cls}`, text);
}

function str(v: unknown): string {
  return typeof v === "string" ? v : "";
}

function input(t: ToolCall): Record<string, unknown> {
  return isRecord(t.input) ? t.input : {};
}

/** The command a shell call ran, in full (the summary is cut to one line). */
export function shellCommand(t: ToolCall): string {
  const v = input(t);
  const cmd = v.command ?? v.cmd;
  if (Array.isArray(cmd)) {
    const words = cmd.map((w) => String(w));
    // Codex: ["bash", "-lc", "the script"]
    if (words.length === 3 && /^(ba|z)?sh$/.test(words[0] ?? "") && words[1] === "-lc") return words[2] ?? "";
    return words.join(" ");
  }
  return str(cmd) || t.summary.replace(/^\$ /, "");
}

/** How many results a search printed: its output's non-empty lines. */
function summaryNodes(doc: Document, t: ToolCall): Node[] {
  const kind = t.kind ?? "other";
  const icon = el(doc, "span", "tool-icon", TOOL_ICONS[kind]);
  icon.setAttribute("aria-hidden", "true");
  const nodes: Node[] = [icon, el(doc, "span", "tool-summary", oneLine(t.summary, 300))];
  if (t.exit_code !== null && t.exit_code !== undefined) {
    nodes.push(badge(doc, t.exit_code === 0 ? "exit ok" : "exit bad", `exit ${t.exit_code}`));
  } else if (t.is_error) {
    nodes.push(badge(doc, "exit bad", "error"));
  }
  if (t.duration_ms !== null && t.duration_ms !== undefined) nodes.push(badge(doc, "duration", durationLabel(t.duration_ms)));
  // how many, as the sidecar counted them (the header's count, else the lines printed)
  if (kind === "search" && t.matches !== null && t.matches !== undefined) {
    const n = t.matches;
    nodes.push(badge(doc, "count", n === 1 ? "1 match" : `${count(n)} matches`));
  }
  if (kind === "task" && t.subagent) nodes.push(badge(doc, "count", plural(t.subagent.message_count ?? 0, "message")));
  if (t.output === null || t.output === undefined) nodes.push(badge(doc, "pending", "no result"));
  return nodes;
}

/** The call's output, monospace; an error's in error colours; a kept head said so. */
export function outputBlock(doc: Document, t: ToolCall, label = "Output"): HTMLElement {
  const box = el(doc, "div", "tool-output");
  if (t.output === null || t.output === undefined) {
    box.append(el(doc, "div", "tool-note", "No result was recorded."));
    return box;
  }
  if (t.output === "") {
    box.append(el(doc, "div", "tool-note", "No output."));
    return box;
  }
  const n = lineCount(t.output);
  box.append(el(doc, "div", "tool-label", `${label}${n > 1 ? ` (${plural(n, "line")})` : ""}`));
  box.append(el(doc, "pre", `output${t.is_error ? " error" : ""}`, t.output));
  if (t.output_chars !== null && t.output_chars !== undefined) {
    box.append(el(doc, "div", "tool-note", `(${count(t.output_chars)} characters in all, the head kept)`));
  }
  return box;
}

/** A file's text as a read returned it (the sidecar took its line numbers out): the
 * numbers in a gutter beside it, the text highlighted by the file's language. */
function fileBlock(doc: Document, t: ToolCall, first: number): HTMLElement {
  const text = (t.output ?? "").replace(/\n$/, "");
  const n = text.split("\n").length;
  const box = el(doc, "div", "tool-output");
  box.append(el(doc, "div", "tool-label", n > 1 ? `Lines ${first}–${first + n - 1}` : `Line ${first}`));
  const view = el(doc, "div", "file-view");
  const gutter = el(doc, "pre", "file-gutter", Array.from({ length: n }, (_, i) => String(first + i)).join("\n"));
  gutter.setAttribute("aria-hidden", "true");
  const code = el(doc, "pre", "file-code");
  const html = highlightHtml(text, knownLanguage(t.language));
  if (html === undefined) code.textContent = text;
  else code.append(sanitizeCode(doc, html));
  view.append(gutter, code);
  box.append(view);
  if (t.output_chars !== null && t.output_chars !== undefined) {
    box.append(el(doc, "div", "tool-note", `(${count(t.output_chars)} characters in all, the head kept)`));
  }
  return box;
}

function jsonBlock(doc: Document, value: unknown): HTMLElement {
  const pre = el(doc, "pre", "json");
  const text = JSON.stringify(value ?? null, null, 2);
  const html = highlightHtml(text, "json");
  if (html === undefined) pre.textContent = text;
  else pre.append(sanitizeCode(doc, html));
  return pre;
}

function labelled(doc: Document, label: string, value: string, cls = "tool-field"): HTMLElement {
  const row = el(doc, "div", cls);
  spaced(doc, row, [el(doc, "span", "tool-label", label), el(doc, "span", "tool-value", value)]);
  return row;
}

/** An http(s) address as a link the click rule opens; anything else as text. */
function addressNode(doc: Document, url: string): HTMLElement {
  const target = linkTarget(url);
  if (target.kind !== "web") return el(doc, "span", "tool-value", url);
  const a = el(doc, "a", "md-link web", url);
  a.dataset.href = target.url;
  a.title = target.url;
  a.tabIndex = -1;
  a.setAttribute("role", "link");
  return a;
}

export function todoList(doc: Document, todos: readonly TodoItem[]): HTMLElement {
  const ul = el(doc, "ul", "todos");
  for (const t of todos) {
    const status = t.status ?? "pending";
    const li = el(doc, "li", `todo status-${status.replace(/[^a-z_]/g, "")}`);
    const mark = el(doc, "span", "todo-mark", TODO_MARKS[status] ?? TODO_MARKS.pending);
    mark.setAttribute("aria-label", status.replace("_", " "));
    spaced(doc, li, [mark, el(doc, "span", "todo-text", t.text)]);
    ul.append(li);
  }
  return ul;
}

/** What an edit's tool said back (often the file around the change), folded under its diff. */
function resultFold(doc: Document, t: ToolCall): HTMLElement {
  if (!t.output) return outputBlock(doc, t);
  const title = `Result${lineCount(t.output) > 1 ? ` (${plural(lineCount(t.output), "line")})` : ""}`;
  return fold(doc, "tool-result", [el(doc, "span", "fold-title", title)], () => [outputBlock(doc, t)], t.output);
}

function diffs(doc: Document, files: readonly DiffFile[]): HTMLElement {
  const box = el(doc, "div", "diffs");
  box.append(...files.map((d) => renderDiffFile(doc, d)));
  return box;
}

/** The subagent a task call ran: what it was asked, its type, size and outcome; its messages
 * inline on request (numbered in its own line) and a button opening it on its own panel. */
export function subagentBlock(doc: Document, ref: SubagentRef, ctx: ToolContext): HTMLElement {
  const box = el(doc, "div", "subagent");
  box.dataset.session = ref.session_id;
  const head = el(doc, "div", "subagent-head");
  const parts: Node[] = [el(doc, "span", "subagent-title", ref.description || `Subagent ${ref.agent_id ?? ""}`.trim())];
  if (ref.agent_type) parts.push(badge(doc, "agent-type", ref.agent_type));
  parts.push(badge(doc, "count", plural(ref.message_count ?? 0, "message")));
  const open = el(doc, "button", "subagent-open", "Open");
  open.type = "button";
  open.tabIndex = -1;
  open.dataset.action = "open-subagent";
  open.dataset.session = ref.session_id;
  open.title = "Open this subagent's conversation on its own panel";
  parts.push(open);
  spaced(doc, head, parts);
  box.append(head);
  if (ref.outcome) {
    box.append(el(doc, "div", "tool-label", "Outcome"), renderMarkdown(doc, ref.outcome));
  }
  const inline = fold(
    doc,
    "subagent-inline",
    [el(doc, "span", undefined, `Its ${plural(ref.message_count ?? 0, "message")}`)],
    () => {
      const into = el(doc, "div", "subagent-messages");
      into.dataset.session = ref.session_id;
      into.append(el(doc, "div", "tool-note", ctx.loadSubagent ? "Loading…" : "Open it to read its messages."));
      ctx.loadSubagent?.(into, ref);
      return [into];
    },
    "",
  );
  box.append(inline);
  return box;
}

function taskBody(doc: Document, t: ToolCall, ctx: ToolContext): Node[] {
  const out: Node[] = [];
  if (t.subagent) out.push(subagentBlock(doc, t.subagent, ctx));
  else {
    const prompt = str(input(t).prompt);
    if (prompt) out.push(el(doc, "div", "tool-label", "Prompt"), renderMarkdown(doc, prompt));
  }
  out.push(outputBlock(doc, t, "Result"));
  return out;
}

function bodyOf(doc: Document, t: ToolCall, ctx: ToolContext): Node[] {
  const v = input(t);
  switch (t.kind ?? "other") {
    case "shell":
      return [el(doc, "pre", "command", `$ ${shellCommand(t)}`), outputBlock(doc, t)];
    case "read":
      return [t.first_line !== null && t.first_line !== undefined && t.output ? fileBlock(doc, t, t.first_line) : outputBlock(doc, t)];
    case "edit":
    case "write": {
      const files = t.diff ?? [];
      if (files.length === 0) return [jsonBlock(doc, t.input), outputBlock(doc, t)];
      return t.is_error ? [diffs(doc, files), outputBlock(doc, t)] : [diffs(doc, files), resultFold(doc, t)];
    }
    case "search": {
      const pattern = str(v.pattern) || str(v.query);
      const where = str(v.path) || str(v.dir_path);
      const rows = [pattern ? labelled(doc, "Pattern", pattern) : null, where ? labelled(doc, "In", where) : null];
      return [...rows.filter((r): r is HTMLElement => r !== null), outputBlock(doc, t)];
    }
    case "todo":
      return [todoList(doc, t.todos ?? [])];
    case "web": {
      const url = str(v.url);
      const row = el(doc, "div", "tool-field");
      if (url) spaced(doc, row, [el(doc, "span", "tool-label", "URL"), addressNode(doc, url)]);
      else row.append(labelled(doc, "Query", str(v.query) || oneLine(t.summary)));
      return [row, outputBlock(doc, t)];
    }
    case "task":
      return taskBody(doc, t, ctx);
    case "plan":
      return [renderMarkdown(doc, str(v.plan) || t.summary), outputBlock(doc, t)];
    case "mcp":
      return [labelled(doc, "Server", t.mcp_server ?? ""), labelled(doc, "Tool", t.name), jsonBlock(doc, t.input), outputBlock(doc, t)];
    default:
      return [labelled(doc, "Tool", t.name), jsonBlock(doc, t.input), outputBlock(doc, t)];
  }
}

/** What find looks in for a call, as the sidecar does: summary, output, diffs, checklist. */
export function toolText(t: ToolCall): string {
  return [t.output ?? "", ...(t.diff ?? []).map((d) => d.diff), ...(t.todos ?? []).map((x) => x.text)].join("\n");
}

/** A checklist is open from the start (it is short, and what the call is for); everything
 * else, diffs included, is its one-line summary until opened, and built then. */
function openByDefault(t: ToolCall): boolean {
  return t.kind === "todo" && (t.todos ?? []).length <= OPEN_TODOS;
}

/** One call as a fold: its summary line, its body built when first opened. */
export function renderTool(doc: Document, t: ToolCall, ctx: ToolContext = {}): HTMLDetailsElement {
  const kind = (t.kind ?? "other").replace(/[^a-z]/g, "");
  const cls = `part tool kind-${kind}${t.is_error ? " is-error" : ""}`;
  const details = fold(doc, cls, summaryNodes(doc, t), () => bodyOf(doc, t, ctx), toolText(t), openByDefault(t));
  details.dataset.tool = t.name;
  return details;
}
