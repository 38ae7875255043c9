// Transcript text is untrusted (invariant 8): agents print HTML, Markdown and terminal
// escapes. It is only ever shown as text; these helpers make it plain text first.

// CSI (ESC [ ... final), OSC (ESC ] ... BEL or ST), and two-byte escapes (ESC + one char)
// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|\u001b[@-_]|\u009b[0-?]*[ -/]*[@-~]/g;
// other C0/C1 controls except tab and newline
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g;

/** Terminal escape sequences removed and other control characters shown escaped (\xNN):
 * the text an agent meant, without anything a terminal or the page would act on. */
export function plainText(s: string): string {
  return s.replace(/\r\n?/g, "\n").replace(ANSI, "").replace(CONTROL, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`);
}

/** HTML-escaped text, for the one place a string goes into markup we build ourselves (the
 * webview's shell, which holds no transcript text). */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The ranges of every case-insensitive occurrence of needle in haystack. */
export function findAll(haystack: string, needle: string): [number, number][] {
  if (!needle) return [];
  const h = haystack.toLowerCase();
  const n = needle.toLowerCase();
  const out: [number, number][] = [];
  for (let i = h.indexOf(n); i >= 0; i = h.indexOf(n, i + n.length)) out.push([i, i + n.length]);
  return out;
}

/** Whether a message is a compaction boundary (best effort across the agents' formats). */
export function isCompaction(role: string, kinds: readonly string[], text: string): boolean {
  if (kinds.some((k) => k.toLowerCase().includes("compaction") || k.toLowerCase().includes("compact_boundary"))) return true;
  return role === "system" && /\b(compact(ed|ion)?|context (was )?(summari[sz]ed|compressed))\b/i.test(text.slice(0, 400));
}

/** The words a search hit matched: its snippet's highlighted ranges (offsets in code points,
 * as the sidecar counts them), each once, case ignored; what the transcript highlights when it
 * opens at the hit. */
export function hitTerms(snippet: string, highlights: readonly (readonly [number, number])[] | undefined): string[] {
  const chars = Array.from(snippet);
  const seen = new Set<string>();
  const out: string[] = [];
  for (const [a, b] of highlights ?? []) {
    const term = chars.slice(a, b).join("").trim();
    const key = term.toLowerCase();
    if (!term || term.length > 200 || seen.has(key)) continue;
    seen.add(key);
    out.push(term);
    if (out.length === 32) break;
  }
  return out;
}

/** Terms handed to a command (lazy.openTranscript's fourth argument): strings only, bounded. */
export function termsArg(v: unknown): string[] {
  if (!Array.isArray(v)) return [];
  return v.filter((t): t is string => typeof t === "string" && t.length > 0 && t.length <= 200).slice(0, 32);
}
