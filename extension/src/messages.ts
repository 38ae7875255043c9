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
  type Decoder,
} from "./decode";
import type { BuilderInfo, MessageView } from "./protocol";

/** What the serializer keeps for a panel: enough to reopen it where the user was. */
export interface PanelState {
  builderId: string;
  sessionId: string | null;
  number: number | null;
}

export type WebviewToHost =
  | { type: "ready" }
  | { type: "loadPage"; sessionId: string | null; start: number; count: number }
  | { type: "openAsText"; sessionId: string | null };

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
  | { type: "error"; message: string };

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
