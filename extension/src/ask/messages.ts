// The messages between the answer webview (an ask's answer beside the transcript) and the
// extension, each checked on receipt. Shared by both bundles.
import { askRunResult, DecodeError, int, isRecord, str, type Decoder } from "../protocol";
import type { AskRunResult } from "../protocol";

export type AnswerToHost = { type: "ready" } | { type: "reveal"; number: number };

export type HostToAnswer = { type: "answer"; label: string; question: string; result: AskRunResult };

const positive: Decoder<number> = (v, p) => {
  const n = int(v, p);
  if (n < 1) throw new DecodeError(p, "a positive integer");
  return n;
};

function kind(v: unknown): Record<string, unknown> & { type: string } {
  if (!isRecord(v) || typeof v.type !== "string") throw new DecodeError("type", "a message type");
  return v as Record<string, unknown> & { type: string };
}

function asError(e: unknown): Error {
  return e instanceof Error ? e : new Error(String(e));
}

export function parseAnswerMessage(raw: unknown): AnswerToHost | Error {
  try {
    const v = kind(raw);
    switch (v.type) {
      case "ready":
        return { type: "ready" };
      case "reveal":
        return { type: "reveal", number: positive(v.number, "number") };
      default:
        throw new DecodeError("type", `a known message type, not ${JSON.stringify(v.type)}`);
    }
  } catch (e) {
    return asError(e);
  }
}

export function parseHostAnswer(raw: unknown): HostToAnswer | Error {
  try {
    const v = kind(raw);
    if (v.type !== "answer") throw new DecodeError("type", `"answer", not ${JSON.stringify(v.type)}`);
    return { type: "answer", label: str(v.label, "label"), question: str(v.question, "question"), result: askRunResult(v.result, "result") };
  } catch (e) {
    return asError(e);
  }
}

export type AnswerPart = { text: string } | { ref: number };

/** The answer's text cut at its `#12` references to messages, which become links. */
export function answerParts(answer: string): AnswerPart[] {
  const parts: AnswerPart[] = [];
  let at = 0;
  for (const m of answer.matchAll(/#(\d{1,7})\b/g)) {
    const i = m.index;
    const n = Number(m[1]);
    // "#0" or an issue-like "a#12" is not a message reference
    if (n < 1 || (i > 0 && /\w/.test(answer.charAt(i - 1)))) continue;
    if (i > at) parts.push({ text: answer.slice(at, i) });
    parts.push({ ref: n });
    at = i + m[0].length;
  }
  if (at < answer.length || parts.length === 0) parts.push({ text: answer.slice(at) });
  return parts;
}

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/** "1 excerpt read, 1 relevant": how much of the transcript the answer stands on. */
export function chunkCounts(r: AskRunResult): string {
  return `${plural(r.chunks, "excerpt")} read, ${r.relevant_chunks} relevant`;
}
