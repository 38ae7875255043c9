// Code highlighting: highlight.js (core and its common languages, bundled), by the language a
// fence or a diff names; never guessed (auto-detection runs every grammar on the text). The
// HTML it returns is escaped text in <span class="hljs-…">, and still goes through sanitize.ts.
import hljs from "highlight.js/lib/common";
import dockerfile from "highlight.js/lib/languages/dockerfile";

hljs.registerLanguage("dockerfile", dockerfile);
hljs.configure({ ignoreUnescapedHTML: true });

/** Past this, code is shown plain: highlighting a huge blob would hold the page up. */
export const HIGHLIGHT_LIMIT = 100_000;

/** The language highlight.js knows by this name or alias (a fence's first word), if any. */
export function knownLanguage(name: string | null | undefined): string | undefined {
  const word = (name ?? "").trim().split(/[\s{]/)[0]?.toLowerCase() ?? "";
  if (!word || word === "plaintext" || word === "text") return undefined;
  return hljs.getLanguage(word) ? word : undefined;
}

/** Highlighted HTML for code in a known language; undefined when it is to be shown plain. */
export function highlightHtml(code: string, language: string | undefined): string | undefined {
  if (!language || code.length > HIGHLIGHT_LIMIT) return undefined;
  try {
    return hljs.highlight(code, { language, ignoreIllegals: true }).value;
  } catch {
    return undefined;
  }
}
