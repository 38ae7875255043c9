// A tool call's changed files as unified diffs: the path and its +/− counts, then each line
// coloured by what it is (added, removed, context, hunk header), the code in it highlighted by
// the file's language, a line at a time.
import type { DiffFile } from "../protocol";
import { el, shownText, spaced } from "./dom";
import { highlightHtml, knownLanguage } from "./highlight";
import { sanitizeCode } from "./sanitize";

export type DiffLineKind = "add" | "del" | "ctx" | "hunk" | "meta";

export function diffLineKind(line: string): DiffLineKind {
  if (line.startsWith("+++ ") || line.startsWith("--- ") || line.startsWith("\\")) return "meta";
  if (line.startsWith("@@")) return "hunk";
  if (line.startsWith("+")) return "add";
  if (line.startsWith("-")) return "del";
  return "ctx";
}

/** Past this many lines a diff is shown without highlighting (still coloured). */
const HIGHLIGHT_LINES = 4000;

const SIGN: Record<DiffLineKind, string> = { add: "+", del: "-", ctx: " ", hunk: "", meta: "" };

function lineHtml(kind: DiffLineKind, content: string, language: string | undefined, esc: (s: string) => string): string {
  const code = kind === "add" || kind === "del" || kind === "ctx" ? content.slice(1) : content;
  const body = kind === "hunk" || kind === "meta" ? esc(code) : (highlightHtml(code, language) ?? esc(code));
  const sign = SIGN[kind] ? `<span class="dl-sign">${SIGN[kind]}</span>` : "";
  return `<span class="dl dl-${kind}">${sign}${body}</span>`;
}

function escapeText(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** One file's diff lines: spans of class "dl dl-add|dl-del|dl-ctx|dl-hunk|dl-meta", one a line. */
export function renderDiffLines(doc: Document, d: DiffFile): HTMLElement {
  const pre = el(doc, "pre", "diff");
  const lines = shownText(d.diff).split("\n");
  // the ---/+++ header says the path, which the file's head shows already
  const body = lines.filter((l, i) => !(i < 2 && diffLineKind(l) === "meta"));
  const language = body.length <= HIGHLIGHT_LINES ? knownLanguage(d.language) : undefined;
  const html = body.map((l) => lineHtml(diffLineKind(l), l, language, escapeText)).join("\n");
  pre.append(sanitizeCode(doc, html));
  return pre;
}

export function renderDiffFile(doc: Document, d: DiffFile): HTMLElement {
  const box = el(doc, "div", "diff-file");
  const head = el(doc, "div", "diff-head");
  const parts: Node[] = [el(doc, "span", "diff-path", d.path)];
  if (d.added) parts.push(el(doc, "span", "diff-added", `+${d.added}`));
  if (d.removed) parts.push(el(doc, "span", "diff-removed", `−${d.removed}`));
  spaced(doc, head, parts);
  box.append(head, renderDiffLines(doc, d));
  return box;
}
