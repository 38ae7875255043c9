// A tool call's changed files as unified diffs: the path and its +/− counts, then each line
// coloured by what it is (added, removed, context, hunk header), the code in it highlighted by
// the file's language, a line at a time, and within a changed line the characters that changed.
import type { DiffFile } from "../protocol";
import { el, shownText, spaced } from "./dom";
import { highlightHtml, knownLanguage } from "./highlight";
import { markRanges } from "./marks";
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
  if (body.length <= HIGHLIGHT_LINES) markChanges(pre);
  return pre;
}

/** Of a removed line and the added line that replaced it, the characters each has between
 * what they share at their start and at their end: [removed, added] ranges; undefined unless
 * they share at least half of the shorter one (else they are not one line changed). */
export function changedRanges(removed: string, added: string): [[number, number], [number, number]] | undefined {
  const max = Math.min(removed.length, added.length);
  let head = 0;
  while (head < max && removed[head] === added[head]) head++;
  let tail = 0;
  while (tail < max - head && removed[removed.length - 1 - tail] === added[added.length - 1 - tail]) tail++;
  // whole words: 50 → 100 is the number changed, not "5" → "10" before a shared 0
  const word = (c: string | undefined): boolean => c !== undefined && /\w/.test(c);
  if (word(removed[head]) || word(added[head])) while (head > 0 && word(removed[head - 1])) head--;
  if (word(removed[removed.length - tail - 1]) || word(added[added.length - tail - 1])) {
    while (tail > 0 && word(removed[removed.length - tail])) tail--;
  }
  // mostly the same line, or the marks are noise
  const shared = head + tail;
  if (shared < Math.max(2, Math.min(removed.length, added.length) / 2)) return undefined;
  if (shared === Math.max(removed.length, added.length)) return undefined;
  return [
    [head, removed.length - tail],
    [head, added.length - tail],
  ];
}

/** Mark, in each run of removed lines followed by added ones, what changed within each pair
 * of lines in the same place of their runs (span.dl-chg), across the highlighter's spans. */
function markChanges(pre: HTMLElement): void {
  const lines = Array.from(pre.querySelectorAll<HTMLElement>(":scope > .dl"));
  const is = (i: number, kind: DiffLineKind): boolean => lines[i]?.classList.contains(`dl-${kind}`) ?? false;
  for (let i = 0; i < lines.length; i++) {
    if (!is(i, "del")) continue;
    let j = i;
    while (is(j, "del")) j++;
    let k = j;
    while (is(k, "add")) k++;
    for (let n = 0; n < Math.min(j - i, k - j); n++) {
      const del = lines[i + n];
      const add = lines[j + n];
      if (del && add) markPair(del, add);
    }
    i = k - 1;
  }
}

function markPair(del: HTMLElement, add: HTMLElement): void {
  const code = (line: HTMLElement): string => line.textContent.slice(line.querySelector(".dl-sign") ? 1 : 0);
  const ranges = changedRanges(code(del), code(add));
  if (!ranges) return;
  for (const [line, [a, b]] of [[del, ranges[0]], [add, ranges[1]]] as const) {
    if (b > a) markRanges(line, () => [[a, b]], "dl-chg", "span");
  }
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
