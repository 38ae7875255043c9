// The messages between the answer webview (an ask's answer beside the transcript) and the
// extension, each checked on receipt. Shared by both bundles.
import { askRunResult, type AskRunResult, message, type MessageShapes, orError, positive, str } from "../protocol";

export type AnswerToHost = { type: "ready" } | { type: "reveal"; number: number };

export type HostToAnswer = { type: "answer"; label: string; question: string; result: AskRunResult };

const ANSWER_MESSAGES: MessageShapes<AnswerToHost> = { ready: {}, reveal: { number: positive } };
const HOST_MESSAGES: MessageShapes<HostToAnswer> = { answer: { label: str, question: str, result: askRunResult } };

export function parseAnswerMessage(raw: unknown): AnswerToHost | Error {
  return orError(() => message(ANSWER_MESSAGES, raw));
}

export function parseHostAnswer(raw: unknown): HostToAnswer | Error {
  return orError(() => message(HOST_MESSAGES, raw));
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
