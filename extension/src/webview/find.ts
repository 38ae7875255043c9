// Find in the transcript, over the whole line: the sidecar says which messages hold the text
// and how often (transcripts/find); the page counts "3 of 41" over that, and going to a match
// loads the page holding it, opens the fold it is in, marks it and scrolls it into view.
import type { FindMatch } from "../protocol";
import { clearMarks, markTerms } from "./marks";

export interface FindHost {
  /** Ask the sidecar where the query occurs. */
  ask(query: string): void;
  /** The entry showing message n (its own or the one that absorbed it), when loaded. */
  entry(n: number): HTMLElement | undefined;
  /** Load the page holding n (the page calls pageShown() when it is in). */
  load(n: number): void;
  /** The first message in view, to start from there. */
  firstVisible(): number | null;
  /** The loaded entries, for marks and "only matching". */
  entries(): HTMLElement[];
  count: HTMLElement;
  onlyMatching(): boolean;
}

/** Where the k-th match (from 0) is: its message and its place within it. */
export function locate(matches: readonly FindMatch[], k: number): { number: number; within: number } | undefined {
  let seen = 0;
  for (const m of matches) {
    if (k < seen + m.count) return { number: m.number, within: k - seen };
    seen += m.count;
  }
  return undefined;
}

export class Find {
  query = "";
  private matches: FindMatch[] = [];
  private numbers = new Set<number>();
  private total = 0;
  private listed = 0;
  /** The current match, from 0; -1: none yet. */
  index = -1;
  private waiting: number | null = null;
  private answered = false;

  constructor(private readonly host: FindHost) {}

  /** The user typed: forget the last answer and ask again (or clear, when empty). */
  setQuery(query: string): void {
    this.query = query;
    this.matches = [];
    this.numbers = new Set();
    this.total = this.listed = 0;
    this.index = -1;
    this.waiting = null;
    this.answered = false;
    for (const e of this.host.entries()) {
      clearMarks(e, "hit");
      e.classList.remove("hidden");
    }
    this.host.count.textContent = query ? "Finding…" : "";
    if (query) this.host.ask(query);
  }

  /** The sidecar's answer; one for an older query is dropped. */
  onResults(query: string, matches: FindMatch[], total: number): void {
    if (query !== this.query) return;
    this.matches = matches;
    this.numbers = new Set(matches.map((m) => m.number));
    this.total = total;
    this.listed = matches.reduce((n, m) => n + m.count, 0);
    this.answered = true;
    for (const e of this.host.entries()) this.decorate(e);
    if (this.listed === 0) {
      this.host.count.textContent = "No results";
      return;
    }
    const from = this.host.firstVisible() ?? 0;
    let k = 0;
    for (const m of matches) {
      if (m.number >= from) break;
      k += m.count;
    }
    this.go(k < this.listed ? k : 0);
  }

  onFailed(query: string, message: string): void {
    if (query === this.query) this.host.count.textContent = message;
  }

  /** Marks (without opening folds) and "only matching" for an entry just shown. */
  decorate(entry: HTMLElement): void {
    if (!this.query || !this.answered) return;
    const n = Number(entry.dataset.number);
    const holds = this.numbers.has(n) || this.absorbedHit(entry);
    entry.classList.toggle("hidden", this.host.onlyMatching() && !holds);
    if (holds && !entry.querySelector("mark.hit")) markTerms(articleOf(entry), [this.query]);
  }

  private absorbedHit(entry: HTMLElement): boolean {
    const absorbed = (entry.dataset.absorbed ?? "").split(" ").filter(Boolean).map(Number);
    return absorbed.some((a) => this.numbers.has(a));
  }

  step(delta: number): void {
    if (this.listed === 0) return;
    const k = this.index < 0 ? (delta > 0 ? 0 : this.listed - 1) : (this.index + delta + this.listed) % this.listed;
    this.go(k);
  }

  /** Go to the k-th match: shown at once when its message is loaded, else after its page. */
  go(k: number): void {
    const at = locate(this.matches, k);
    if (!at) return;
    this.index = k;
    this.say();
    const entry = this.host.entry(at.number);
    if (!entry) {
      this.waiting = k;
      this.host.load(at.number);
      return;
    }
    this.waiting = null;
    this.show(entry, at.within);
  }

  /** A page arrived: mark what it brought, and finish a jump that waited for it. */
  pageShown(): void {
    if (this.waiting === null) return;
    const k = this.waiting;
    const at = locate(this.matches, k);
    const entry = at ? this.host.entry(at.number) : undefined;
    this.waiting = null;
    if (at && entry) this.show(entry, at.within);
  }

  private say(): void {
    const more = this.total > this.listed ? ` (${this.total} in all; the first ${this.listed} listed)` : "";
    this.host.count.textContent = `${this.index + 1} of ${this.listed}${more}`;
  }

  private show(entry: HTMLElement, within: number): void {
    for (const e of this.host.entries()) for (const c of Array.from(e.querySelectorAll("mark.current"))) c.classList.remove("current");
    entry.classList.remove("hidden");
    clearMarks(entry, "hit");
    const groups = markTerms(articleOf(entry), [this.query], { open: true });
    const group = groups[Math.min(within, groups.length - 1)];
    if (!group) {
      entry.scrollIntoView({ block: "center" });
      return;
    }
    for (const m of group) m.classList.add("current");
    for (let d = group[0]?.closest("details"); d; d = d.parentElement?.closest("details")) d.open = true;
    group[0]?.scrollIntoView({ block: "center" });
  }
}

function articleOf(entry: HTMLElement): HTMLElement {
  return entry.querySelector<HTMLElement>("article.msg") ?? entry;
}
