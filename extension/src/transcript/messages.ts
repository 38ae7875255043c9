// The messages between the transcript webview and the extension: one discriminated union per
// direction, each checked on receipt against its table of fields. Shared by both bundles.
import {
  arr,
  builderInfo,
  DecodeError,
  int,
  isRecord,
  message,
  messageView,
  nullable,
  obj,
  orError,
  positive,
  str,
  task,
  type Decoder,
  type MessageShapes,
} from "../protocol";
import type { BuilderInfo, MessageView, Task } from "../protocol";

/** What the serializer keeps for a panel: enough to reopen it where the user was. */
export interface PanelState {
  builderId: string;
  sessionId: string | null;
  number: number | null;
}

export type WebviewToHost =
  | { type: "ready" }
  | { type: "loadPage"; sessionId: string | null; start: number; count: number }
  | { type: "openAsText"; sessionId: string | null }
  | { type: "ask" }
  /** The promote form's submit: an empty field is left to the sidecar's fallback. */
  | { type: "promote"; from: number; to: number; goal: string; code: string; parent: string; prompt: string };

/** A field the sidecar refused (tasks/promote's InvalidParams data). */
export interface FieldError {
  field: string;
  message: string;
}

export type HostToWebview =
  | { type: "init"; builder: BuilderInfo; sessionId: string | null; focus: number | null }
  | {
      type: "page";
      sessionId: string | null;
      start: number;
      messages: MessageView[];
      total: number;
      nextStart: number | null;
    }
  /** Show message `number` of a line (loading the page it is on), its `terms` highlighted:
   * what a search matched in it (SearchHit.terms), found case-insensitively; [] for none. */
  | { type: "reveal"; sessionId: string | null; number: number; terms: string[] }
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

/** A word to highlight: bounded (it is the transcript's own text, and only a hint). */
const term: Decoder<string> = (v, p) => {
  const s = str(v, p);
  if (s.length > 200) throw new DecodeError(p, "at most 200 characters");
  return s;
};

const WEBVIEW_MESSAGES: MessageShapes<WebviewToHost> = {
  ready: {},
  loadPage: { sessionId, start: positive, count: pageCount },
  openAsText: { sessionId },
  ask: {},
  promote: { from: positive, to: positive, goal: formText, code: formText, parent: formText, prompt: formText },
};

const HOST_MESSAGES: MessageShapes<HostToWebview> = {
  init: { builder: builderInfo, sessionId, focus: nullable(positive) },
  page: { sessionId, start: positive, messages: arr(messageView), total: int, nextStart: nullable(positive) },
  reveal: { sessionId, number: positive, terms: arr(term) },
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
  return { builderId: v.builderId, sessionId: sid, number: num };
}
