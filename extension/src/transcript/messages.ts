// The messages between the transcript webview and the extension: one discriminated union per
// direction, each checked on receipt by a hand-written validator. Shared by both bundles.
import {
  builderInfo,
  DecodeError,
  int,
  isRecord,
  messageView,
  nullable,
  str,
  arr,
  task,
  obj,
  type Decoder,
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
  | { type: "reveal"; sessionId: string | null; number: number }
  | { type: "error"; message: string }
  /** What was promoted from this Builder: overlaps shown before submit, ranges marked. */
  | { type: "tasks"; tasks: Task[] }
  /** Open the promote form on a range; without one, ask the user to pick it. */
  | { type: "pickRange"; from: number | null; to: number | null }
  | { type: "promoted"; task: Task; overlapping: Task[] }
  /** The sidecar's refusal: the task holding the same range, or the fields it refused. */
  | { type: "promoteFailed"; message: string; task: string | null; errors: FieldError[] };

const positive: Decoder<number> = (v, p) => {
  const n = int(v, p);
  if (n < 1) throw new DecodeError(p, "a positive integer");
  return n;
};

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

function field<T>(o: Record<string, unknown>, key: string, d: Decoder<T>): T {
  return d(o[key], key);
}

/** The webview's message, or an Error saying what was wrong with it. */
export function parseWebviewMessage(v: unknown): WebviewToHost | Error {
  try {
    if (!isRecord(v) || typeof v.type !== "string") throw new DecodeError("type", "a message type");
    switch (v.type) {
      case "ready":
        return { type: "ready" };
      case "loadPage":
        return {
          type: "loadPage",
          sessionId: field(v, "sessionId", sessionId),
          start: field(v, "start", positive),
          count: field(v, "count", pageCount),
        };
      case "openAsText":
        return { type: "openAsText", sessionId: field(v, "sessionId", sessionId) };
      case "ask":
        return { type: "ask" };
      case "promote": {
        const from = field(v, "from", positive);
        const to = field(v, "to", positive);
        if (to < from) throw new DecodeError("to", "at least from");
        return {
          type: "promote",
          from,
          to,
          goal: field(v, "goal", formText),
          code: field(v, "code", formText),
          parent: field(v, "parent", formText),
          prompt: field(v, "prompt", formText),
        };
      }
      default:
        throw new DecodeError("type", `a known message type, not ${JSON.stringify(v.type)}`);
    }
  } catch (e) {
    return e instanceof Error ? e : new Error(String(e));
  }
}

/** The extension's message, or an Error (the webview checks too: it renders what it gets). */
export function parseHostMessage(v: unknown): HostToWebview | Error {
  try {
    if (!isRecord(v) || typeof v.type !== "string") throw new DecodeError("type", "a message type");
    switch (v.type) {
      case "init":
        return {
          type: "init",
          builder: field(v, "builder", builderInfo),
          sessionId: field(v, "sessionId", sessionId),
          focus: field(v, "focus", nullable(positive)),
        };
      case "page":
        return {
          type: "page",
          sessionId: field(v, "sessionId", sessionId),
          start: field(v, "start", positive),
          messages: field(v, "messages", arr(messageView)),
          total: field(v, "total", int),
          nextStart: field(v, "nextStart", nullable(positive)),
        };
      case "reveal":
        return {
          type: "reveal",
          sessionId: field(v, "sessionId", sessionId),
          number: field(v, "number", positive),
        };
      case "error":
        return { type: "error", message: field(v, "message", str) };
      case "tasks":
        return { type: "tasks", tasks: field(v, "tasks", arr(task)) };
      case "pickRange":
        return {
          type: "pickRange",
          from: field(v, "from", nullable(positive)),
          to: field(v, "to", nullable(positive)),
        };
      case "promoted":
        return { type: "promoted", task: field(v, "task", task), overlapping: field(v, "overlapping", arr(task)) };
      case "promoteFailed":
        return {
          type: "promoteFailed",
          message: field(v, "message", str),
          task: field(v, "task", nullable(str)),
          errors: field(v, "errors", arr(fieldError)),
        };
      default:
        throw new DecodeError("type", `a known message type, not ${JSON.stringify(v.type)}`);
    }
  } catch (e) {
    return e instanceof Error ? e : new Error(String(e));
  }
}

export function parsePanelState(v: unknown): PanelState | undefined {
  if (!isRecord(v) || typeof v.builderId !== "string" || !v.builderId) return undefined;
  const sid = typeof v.sessionId === "string" ? v.sessionId : null;
  const num = typeof v.number === "number" && Number.isInteger(v.number) && v.number >= 1 ? v.number : null;
  return { builderId: v.builderId, sessionId: sid, number: num };
}
