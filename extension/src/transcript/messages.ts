// The messages between the transcript webview and the extension: one discriminated union per
// direction, each checked on receipt against its table of fields. Shared by both bundles.
import {
  arr,
  bool,
  builderInfo,
  findMatch,
  DecodeError,
  int,
  isRecord,
  message,
  messageView,
  nullable,
  obj,
  optional,
  orError,
  positive,
  str,
  task,
  type Decoder,
  type MessageShapes,
} from "../protocol";
import type { BuilderInfo, FindMatch, MessageView, Task } from "../protocol";

/** What the serializer keeps for a panel: enough to reopen it where the user was. */
export interface PanelState {
  builderId: string;
  sessionId: string | null;
  number: number | null;
  /** A teammate's Builder, read from the team database: its member's email. */
  teamEmail?: string;
}

/** Whose a teammate's Builder is, for its header; a transcript that has one is read-only. */
export interface TeamOrigin {
  member: string;
  email: string;
  project: string;
}

export type WebviewToHost =
  | { type: "ready" }
  /** inline: for a subagent shown inside its parent (the answer says so back). */
  | { type: "loadPage"; sessionId: string | null; start: number; count: number; inline?: boolean }
  | { type: "openAsText"; sessionId: string | null }
  /** Find over the whole line (transcripts/find). */
  | { type: "find"; sessionId: string | null; query: string }
  /** A clicked http(s) link: the extension opens it through VS Code, which asks. */
  | { type: "openLink"; url: string }
  /** A clicked file link: opened in an editor when it is inside a workspace folder. */
  | { type: "openFile"; path: string; line: number | null }
  /** An image's or file's "Open source": the session's source file, or why not. */
  | { type: "openMedia"; sessionId: string; number: number }
  /** A line (a subagent's, or null: the Builder's own) on its own panel. */
  | { type: "openLine"; sessionId: string | null }
  | { type: "ask" }
  /** The promote form's submit: an empty field is left to the sidecar's fallback. */
  | { type: "promote"; from: number; to: number; goal: string; code: string; parent: string; prompt: string };

/** A field the sidecar refused (tasks/promote's InvalidParams data). */
export interface FieldError {
  field: string;
  message: string;
}

export type HostToWebview =
  /** focus: the message to land on; terms: the text to highlight there (a search's); team: a
   * teammate's Builder, shown read-only (no promote, no ask, no text document). */
  | { type: "init"; builder: BuilderInfo; sessionId: string | null; focus: number | null; terms?: string[]; team?: TeamOrigin }
  | {
      type: "page";
      sessionId: string | null;
      start: number;
      messages: MessageView[];
      total: number;
      nextStart: number | null;
      inline?: boolean;
    }
  | { type: "reveal"; sessionId: string | null; number: number; terms?: string[] }
  /** transcripts/find's answer for query. */
  | { type: "found"; sessionId: string | null; query: string; matches: FindMatch[]; total: number }
  | { type: "findFailed"; query: string; message: string }
  | { type: "error"; message: string }
  /** What was promoted from this Builder: overlaps shown before submit, ranges marked. */
  | { type: "tasks"; tasks: Task[] }
  /** Open the promote form on a range; without one, ask the user to pick it. */
  | { type: "pickRange"; from: number | null; to: number | null }
  | { type: "promoted"; task: Task; overlapping: Task[] }
  /** The sidecar's refusal: the task holding the same range, or the fields it refused. */
  | { type: "promoteFailed"; message: string; task: string | null; errors: FieldError[] };

const pageCount: Decoder<number> = (v, p) => {
  const n = positive(v, p);
  if (n > 1000) throw new DecodeError(p, "at most 1000");
  return n;
};

const sessionId = nullable(str);

// a form field's text: bounded, so a runaway page cannot post megabytes into a request
const formText: Decoder<string> = (v, p) => {
  const s = str(v, p);
  if (s.length > 100_000) throw new DecodeError(p, "at most 100000 characters");
  return s;
};

export const fieldError = obj<FieldError>({ field: str, message: str });

const teamOrigin = obj<TeamOrigin>({ member: str, email: str, project: str });

const bounded = (max: number): Decoder<string> => (v, p) => {
  const s = str(v, p);
  if (s.length > max) throw new DecodeError(p, `at most ${max} characters`);
  return s;
};

// what a search hit highlights: a few words, each short
const terms: Decoder<string[]> = (v, p) => {
  const a = arr(bounded(200))(v, p);
  if (a.length > 32) throw new DecodeError(p, "at most 32 terms");
  return a;
};

const query: Decoder<string> = (v, p) => {
  const s = bounded(1000)(v, p);
  if (!s) throw new DecodeError(p, "a non-empty string");
  return s;
};

const WEBVIEW_MESSAGES: MessageShapes<WebviewToHost> = {
  ready: {},
  loadPage: { sessionId, start: positive, count: pageCount, inline: optional(bool) },
  openAsText: { sessionId },
  find: { sessionId, query },
  openLink: { url: bounded(8192) },
  openFile: { path: bounded(4096), line: nullable(positive) },
  openMedia: { sessionId: str, number: positive },
  openLine: { sessionId },
  ask: {},
  promote: { from: positive, to: positive, goal: formText, code: formText, parent: formText, prompt: formText },
};

const HOST_MESSAGES: MessageShapes<HostToWebview> = {
  init: { builder: builderInfo, sessionId, focus: nullable(positive), terms: optional(terms), team: optional(teamOrigin) },
  page: { sessionId, start: positive, messages: arr(messageView), total: int, nextStart: nullable(positive), inline: optional(bool) },
  reveal: { sessionId, number: positive, terms: optional(terms) },
  found: { sessionId, query: str, matches: arr(findMatch), total: int },
  findFailed: { query: str, message: str },
  error: { message: str },
  tasks: { tasks: arr(task) },
  pickRange: { from: nullable(positive), to: nullable(positive) },
  promoted: { task, overlapping: arr(task) },
  promoteFailed: { message: str, task: nullable(str), errors: arr(fieldError) },
};

/** The webview's message, or an Error saying what was wrong with it. */
export function parseWebviewMessage(v: unknown): WebviewToHost | Error {
  return orError(() => {
    const m = message(WEBVIEW_MESSAGES, v);
    if (m.type === "promote" && m.to < m.from) throw new DecodeError("to", "at least from");
    return m;
  });
}

/** The extension's message, or an Error (the webview checks too: it renders what it gets). */
export function parseHostMessage(v: unknown): HostToWebview | Error {
  return orError(() => message(HOST_MESSAGES, v));
}

export function parsePanelState(v: unknown): PanelState | undefined {
  if (!isRecord(v) || typeof v.builderId !== "string" || !v.builderId) return undefined;
  const sid = typeof v.sessionId === "string" ? v.sessionId : null;
  const num = typeof v.number === "number" && Number.isInteger(v.number) && v.number >= 1 ? v.number : null;
  const team = typeof v.teamEmail === "string" && v.teamEmail ? { teamEmail: v.teamEmail } : {};
  return { builderId: v.builderId, sessionId: sid, number: num, ...team };
}
