// A range of a Builder's messages to promote, checked against what was promoted before. Pure:
// the webview runs it as the user picks a range (so an overlap, or the same range again, shows
// before submit), the host runs it on a command's argument. The sidecar stays the judge: it
// refuses the exact same range on submit too (ALREADY_PROMOTED).
import { isRecord, type Task } from "../protocol";

export interface PromoteRange {
  builderId: string;
  from: number;
  to: number;
}

export interface RangeCheck {
  /** The task promoted from exactly this range: the sidecar would refuse it. */
  same: Task | undefined;
  /** Tasks sharing at least one message with the range (not the same one). */
  overlapping: Task[];
}

const positiveInt = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v) && v >= 1;

/** lazy.promoteMessages' argument from the sidecar's code action: a TasksPromoteParams with
 * only the range. Anything else (a tree node, garbage) is not a range. */
export function parsePromoteRange(arg: unknown): PromoteRange | undefined {
  if (!isRecord(arg)) return undefined;
  const { builder_id: id, from_message: from, to_message: to } = arg;
  if (typeof id !== "string" || !id || !positiveInt(from) || !positiveInt(to) || to < from) return undefined;
  return { builderId: id, from, to };
}

export function checkRange(tasks: readonly Task[], builderId: string, from: number, to: number): RangeCheck {
  const mine = tasks.filter((t) => t.builder_id === builderId);
  const same = mine.find((t) => t.from_message === from && t.to_message === to);
  const overlapping = mine.filter((t) => t !== same && t.from_message <= to && from <= t.to_message);
  return { same, overlapping };
}

/** The tasks whose range holds message n (for marking promoted messages). */
export function tasksAt(tasks: readonly Task[], n: number): Task[] {
  return tasks.filter((t) => t.from_message <= n && n <= t.to_message);
}

export function rangeLabel(from: number, to: number): string {
  return from === to ? `#${from}` : `#${from}–${to}`;
}
