// What a link in a transcript may do, decided once for both sides: the webview only makes
// http(s) links and workspace file links clickable, and the extension checks again before it
// opens anything (a page could post any string).

export type LinkTarget =
  | { kind: "web"; url: string }
  | { kind: "file"; path: string; line: number | null }
  | { kind: "inert" };

const SCHEME = /^([a-z][a-z0-9+.-]*):/i;

function lineOf(fragment: string): number | null {
  const m = /^#?L(\d+)/i.exec(fragment);
  const n = m ? Number(m[1]) : NaN;
  return Number.isInteger(n) && n >= 1 ? n : null;
}

function decoded(s: string): string | null {
  try {
    return decodeURIComponent(s);
  } catch {
    return null;
  }
}

function fileLink(href: string): LinkTarget {
  // file:///abs/path#L3
  try {
    const u = new URL(href);
    if (u.host && u.host !== "localhost") return { kind: "inert" }; // a file on another machine
    const p = decoded(u.pathname);
    return p ? { kind: "file", path: p, line: lineOf(u.hash) } : { kind: "inert" };
  } catch {
    return { kind: "inert" };
  }
}

function relativeLink(href: string): LinkTarget {
  // src/a.ts, ./a.ts#L10, /abs/b.py; not //host/x (a scheme-relative address) nor #anchor
  if (href.startsWith("//") || href.startsWith("#") || href.startsWith("?")) return { kind: "inert" };
  const hash = href.indexOf("#");
  const beforeHash = hash >= 0 ? href.slice(0, hash) : href;
  const q = beforeHash.indexOf("?");
  const p = decoded(q >= 0 ? beforeHash.slice(0, q) : beforeHash);
  if (!p || p.includes("\0")) return { kind: "inert" };
  return { kind: "file", path: p, line: hash >= 0 ? lineOf(href.slice(hash)) : null };
}

/** What clicking href may do: open a web page (http/https), open a file (file: or a path
 * with no scheme), or nothing (javascript:, data:, command:, vscode:, mailto:, …). */
export function linkTarget(raw: string): LinkTarget {
  // eslint-disable-next-line no-control-regex
  const href = raw.trim().replace(/[\u0000-\u001f\u007f]/g, "");
  if (!href) return { kind: "inert" };
  const scheme = SCHEME.exec(href)?.[1]?.toLowerCase();
  if (scheme === "http" || scheme === "https") {
    try {
      const u = new URL(href);
      return u.host ? { kind: "web", url: u.href } : { kind: "inert" };
    } catch {
      return { kind: "inert" };
    }
  }
  if (scheme === "file") return fileLink(href);
  if (scheme !== undefined) return { kind: "inert" };
  return relativeLink(href);
}
