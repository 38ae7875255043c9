// Keyboard reading: the messages are one Tab stop (a roving tabindex: the last one focused
// holds it), ↑/↓ and j/k move between them, and a message's own controls (its links, folds,
// Start here / End here) are in the Tab order only while focus is in that message.

import { asElement } from "./dom";

const INNER = "a[data-href], a[data-file], button, summary, input, select, textarea";
const TYPING = "input, textarea, select, [contenteditable]";

/** The top-level messages of the list (a subagent's, shown inline, are part of their parent). */
export function messagesOf(list: HTMLElement): HTMLElement[] {
  return Array.from(list.querySelectorAll<HTMLElement>(":scope > .entry:not(.hidden) > article.msg"));
}

function entryOf(list: HTMLElement, node: EventTarget | null): HTMLElement | null {
  let entry = asElement(node)?.closest<HTMLElement>(".entry") ?? null;
  while (entry && entry.parentElement !== list) entry = entry.parentElement?.closest<HTMLElement>(".entry") ?? null;
  return entry;
}

/** Put a message's own controls in the Tab order, or take them out. */
export function setInner(entry: HTMLElement, on: boolean): void {
  entry.classList.toggle("active", on);
  for (const e of Array.from(entry.querySelectorAll<HTMLElement>(INNER))) e.tabIndex = on ? 0 : -1;
}

export class Navigator {
  private active: HTMLElement | null = null;

  constructor(
    private readonly list: HTMLElement,
    private readonly onMove: (article: HTMLElement) => void = () => undefined,
  ) {
    list.addEventListener("focusin", (e) => { this.focusIn(e); });
    list.addEventListener("focusout", (e) => { this.focusOut(e); });
    list.addEventListener("keydown", (e) => { this.key(e); });
    // a fold built while its message has focus: its controls join the Tab order
    list.addEventListener("lazy-built", (e) => {
      const entry = entryOf(list, e.target);
      if (entry && entry === this.active) setInner(entry, true);
    });
  }

  /** Exactly one message is a Tab stop: the one that was focused last, else the first. */
  ensureStop(): void {
    const shown = ":scope > .entry:not(.hidden) > article.msg";
    if (this.list.querySelector(`${shown}[tabindex='0']`)) return;
    const first = this.list.querySelector<HTMLElement>(shown);
    if (first) first.tabIndex = 0;
  }

  /** Make article the Tab stop and focus it. */
  focus(article: HTMLElement, scroll = true): void {
    for (const a of Array.from(this.list.querySelectorAll<HTMLElement>("article.msg[tabindex='0']"))) if (a !== article) a.tabIndex = -1;
    article.tabIndex = 0;
    article.focus({ preventScroll: !scroll });
    if (scroll) article.scrollIntoView({ block: "nearest" });
  }

  /** Move focus delta messages from the focused one (or the Tab stop). */
  move(delta: number): void {
    const all = messagesOf(this.list);
    if (all.length === 0) return;
    const doc = this.list.ownerDocument;
    const current = entryOf(this.list, doc.activeElement)?.querySelector<HTMLElement>(":scope > article.msg") ?? all.find((a) => a.tabIndex === 0);
    const i = current ? all.indexOf(current) : -1;
    const next = all[Math.max(0, Math.min(all.length - 1, i + delta))];
    if (!next || next === current) return;
    this.focus(next);
    this.onMove(next);
  }

  private focusIn(e: FocusEvent): void {
    const entry = entryOf(this.list, e.target);
    if (!entry) return;
    if (this.active && this.active !== entry) setInner(this.active, false);
    if (this.active !== entry) setInner(entry, true);
    this.active = entry;
    const article = entry.querySelector<HTMLElement>(":scope > article.msg");
    if (article && article.tabIndex !== 0) {
      for (const a of Array.from(this.list.querySelectorAll<HTMLElement>("article.msg[tabindex='0']"))) a.tabIndex = -1;
      article.tabIndex = 0;
    }
  }

  private focusOut(e: FocusEvent): void {
    const entry = entryOf(this.list, e.target);
    if (!entry || entry !== this.active) return;
    const to = e.relatedTarget;
    const into = asElement(to);
    if (into && entry.contains(into)) return;
    setInner(entry, false);
    this.active = null;
  }

  private key(e: KeyboardEvent): void {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const target = asElement(e.target);
    if (target?.closest(TYPING)) return;
    const delta = e.key === "ArrowDown" || e.key === "j" ? 1 : e.key === "ArrowUp" || e.key === "k" ? -1 : 0;
    if (delta !== 0) {
      e.preventDefault();
      this.move(delta);
      return;
    }
    if ((e.key === "Enter" || e.key === " ") && target?.matches("a[data-href], a[data-file]")) {
      e.preventDefault();
      (target as HTMLElement).click();
    }
  }
}
