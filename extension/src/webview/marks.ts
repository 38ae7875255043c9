// Highlighting found text: each occurrence of a term in a message's text wrapped in <mark>
// elements, made by splitting Text nodes (never by writing markup), across node boundaries
// (highlighted code splits a word into spans). Folds whose text holds a term are opened
// first, so a hit in thinking or in a tool's output is shown.
import { foldText, openFold } from "./dom";

/** Lower case with the length kept, so offsets in it are offsets in s. */
export function lowerSameLength(s: string): string {
  const l = s.toLowerCase();
  if (l.length === s.length) return l;
  return s.replace(/[\s\S]/g, (c) => {
    const x = c.toLowerCase();
    return x.length === 1 ? x : c;
  });
}

/** The [start, end) ranges of every term in text, case ignored, merged where they overlap. */
export function termRanges(text: string, terms: readonly string[]): [number, number][] {
  const hay = lowerSameLength(text);
  const found: [number, number][] = [];
  for (const raw of terms) {
    const term = lowerSameLength(raw);
    if (!term) continue;
    for (let i = hay.indexOf(term); i >= 0; i = hay.indexOf(term, i + term.length)) found.push([i, i + term.length]);
  }
  found.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  const merged: [number, number][] = [];
  for (const r of found) {
    const last = merged[merged.length - 1];
    if (last && r[0] < last[1]) last[1] = Math.max(last[1], r[1]);
    else merged.push([r[0], r[1]]);
  }
  return merged;
}

/** Text that is chrome, not the message: its number and time, buttons, icons, a fold's preview
 * (the start of the text it folds, which is marked inside). */
const CHROME = ".head, button, .tool-icon, .range-actions, .media-open, .preview, .dl-sign";

/** Open the folds in root whose text holds a term (and those that opening reveals). */
export function openFoldsWith(root: HTMLElement, terms: readonly string[]): number {
  const wanted = terms.map(lowerSameLength).filter(Boolean);
  if (wanted.length === 0) return 0;
  let opened = 0;
  const seen = new Set<HTMLDetailsElement>();
  for (let again = true; again; ) {
    again = false;
    for (const d of Array.from(root.querySelectorAll("details"))) {
      if (seen.has(d)) continue;
      seen.add(d);
      const text = foldText(d);
      if (text === undefined || d.open) continue;
      const hay = lowerSameLength(text);
      if (!wanted.some((t) => hay.includes(t))) continue;
      openFold(d);
      opened++;
      again = true;
    }
  }
  return opened;
}

function textNodes(root: HTMLElement): Text[] {
  const doc = root.ownerDocument;
  const out: Text[] = [];
  const walker = doc.createTreeWalker(root, 4 /* NodeFilter.SHOW_TEXT */);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const parent = n.parentElement;
    if (!parent || parent.closest(CHROME) || parent.closest("mark")) continue;
    if (n.nodeValue) out.push(n as Text);
  }
  return out;
}

/** Wrap [a, b) of one node's text (offsets in the node) in marks; returns them in order. */
function wrapNode(node: Text, segments: [number, number, number][], cls: string, groups: HTMLElement[][], tag: string): void {
  const doc = node.ownerDocument;
  const text = node.nodeValue ?? "";
  const pieces: Node[] = [];
  let at = 0;
  for (const [a, b, hit] of segments) {
    if (a > at) pieces.push(doc.createTextNode(text.slice(at, a)));
    const mark = doc.createElement(tag);
    mark.className = cls;
    mark.textContent = text.slice(a, b);
    pieces.push(mark);
    (groups[hit] ??= []).push(mark);
    at = b;
  }
  if (at < text.length) pieces.push(doc.createTextNode(text.slice(at)));
  node.replaceWith(...pieces);
}

/** Marks every occurrence of the terms in root's text; with `open`, opens the folds holding
 * one first. Returns each occurrence's marks (one or more elements), in document order. */
export function markTerms(root: HTMLElement, terms: readonly string[], opts: { open?: boolean; cls?: string } = {}): HTMLElement[][] {
  if (opts.open) openFoldsWith(root, terms);
  return markRanges(root, (all) => termRanges(all, terms), opts.cls ?? "hit");
}

/** Wrap the [start, end) ranges `find` gives of root's text (its text nodes run together,
 * chrome left out) in `tag` elements of class cls, splitting nodes where a range crosses
 * them. Returns each range's elements, in document order. */
export function markRanges(root: HTMLElement, find: (text: string) => [number, number][], cls: string, tag = "mark"): HTMLElement[][] {
  const nodes = textNodes(root);
  const starts: number[] = [];
  let all = "";
  for (const n of nodes) {
    starts.push(all.length);
    all += n.nodeValue ?? "";
  }
  const ranges = find(all);
  const groups: HTMLElement[][] = [];
  if (ranges.length === 0) return groups;
  const perNode = new Map<number, [number, number, number][]>();
  let r = 0;
  nodes.forEach((n, i) => {
    const start = starts[i] ?? 0;
    const end = start + (n.nodeValue ?? "").length;
    while (r < ranges.length && (ranges[r]?.[1] ?? 0) <= start) r++;
    for (let k = r; k < ranges.length; k++) {
      const [a, b] = ranges[k] ?? [0, 0];
      if (a >= end) break;
      const seg: [number, number, number] = [Math.max(a, start) - start, Math.min(b, end) - start, k];
      perNode.set(i, [...(perNode.get(i) ?? []), seg]);
    }
  });
  for (const [i, segs] of perNode) {
    const node = nodes[i];
    if (node) wrapNode(node, segs, cls, groups, tag);
  }
  return groups.filter((g) => g.length > 0);
}

/** Take the marks of class cls out of root, leaving their text. */
export function clearMarks(root: HTMLElement, cls = "hit"): void {
  for (const m of Array.from(root.querySelectorAll(`mark.${cls}`))) {
    const parent = m.parentNode;
    m.replaceWith(m.ownerDocument.createTextNode(m.textContent));
    parent?.normalize();
  }
}
