// The window of one line's messages the page holds, [lo, hi], grown a page at a time either
// way. A page may repeat messages of the page before (the sidecar expands a page to whole
// steps: a call is read with its results, a result with its call), and a message number may
// be shown inside another message (`absorbed`: a tool result under its call); both are
// deduplicated here, and `holder` finds the message that shows a number.
import type { MessageView } from "../protocol";

export interface PageIn {
  start: number;
  messages: MessageView[];
  total: number;
  nextStart: number | null;
}

export interface Merged {
  /** New messages before the window, in order (to prepend). */
  before: MessageView[];
  /** New messages after it, in order (to append). */
  after: MessageView[];
  /** Messages shown on their own before, now shown inside a new one (to remove). */
  replaced: number[];
}

export class LoadedLine {
  readonly messages = new Map<number, MessageView>();
  /** An absorbed number -> the number of the message showing it. */
  private readonly owner = new Map<number, number>();
  lo = 0;
  hi = 0;
  nextStart: number | null = null;
  total = 0;

  clear(): void {
    this.messages.clear();
    this.owner.clear();
    this.lo = this.hi = 0;
    this.nextStart = null;
    this.total = 0;
  }

  /** The number of the message that shows n: n itself, or the message that absorbed it. */
  holder(n: number): number | undefined {
    if (this.messages.has(n)) return n;
    return this.owner.get(n);
  }

  /** Whether n lies in the loaded window (shown, or between the ends). */
  covers(n: number): boolean {
    return this.lo > 0 && n >= this.lo && n <= this.hi;
  }

  private last(m: MessageView): number {
    return Math.max(m.number, ...(m.absorbed ?? []));
  }

  merge(page: PageIn): Merged {
    this.total = page.total;
    const fresh = page.messages.filter((x) => !this.messages.has(x.number) && !this.owner.has(x.number));
    const empty = this.lo === 0;
    const before = fresh.filter((x) => !empty && x.number < this.lo);
    const after = fresh.filter((x) => empty || x.number > this.hi);
    const replaced: number[] = [];
    for (const x of [...before, ...after]) {
      this.messages.set(x.number, x);
      for (const a of x.absorbed ?? []) {
        if (this.messages.delete(a)) replaced.push(a);
        this.owner.set(a, x.number);
      }
    }
    const first = before[0] ?? (empty ? after[0] : undefined);
    if (first) this.lo = first.number;
    const tail = after[after.length - 1];
    if (tail) {
      this.hi = Math.max(this.hi, this.last(tail));
      this.nextStart = page.nextStart;
    } else if (empty || page.start > this.hi) {
      this.nextStart = page.nextStart;
    }
    return { before, after, replaced };
  }

  /** The loaded messages in order. */
  ordered(): MessageView[] {
    return [...this.messages.values()].sort((a, b) => a.number - b.number);
  }
}
