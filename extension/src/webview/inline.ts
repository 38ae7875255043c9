// A subagent shown inline at the call that ran it: its messages asked for a page at a time
// (transcripts/page on its session) and rendered nested, in its own numbering.
import type { MessageView, SubagentRef } from "../protocol";
import type { WebviewToHost } from "../transcript/messages";
import { announceBuilt, el } from "./dom";

export const INLINE_PAGE = 50;

export interface InlinePage {
  sessionId: string | null;
  messages: MessageView[];
  nextStart: number | null;
}

export class InlineSubagents {
  /** The container waiting for each subagent session's next page. */
  private readonly waiting = new Map<string, HTMLElement>();

  constructor(
    private readonly post: (m: WebviewToHost) => void,
    private readonly render: (m: MessageView, previous: MessageView | undefined) => HTMLElement,
  ) {}

  load(into: HTMLElement, ref: SubagentRef): void {
    this.ask(into, ref.session_id, 1);
  }

  private ask(into: HTMLElement, sessionId: string, start: number): void {
    this.waiting.set(sessionId, into);
    this.post({ type: "loadPage", sessionId, start, count: INLINE_PAGE, inline: true });
  }

  /** "Show more" under a subagent's messages. */
  more(button: HTMLElement): void {
    const into = button.closest<HTMLElement>(".subagent-messages");
    const sessionId = into?.dataset.session;
    const start = Number(button.dataset.start);
    if (!into || !sessionId || !Number.isInteger(start) || start < 1) return;
    button.remove();
    this.ask(into, sessionId, start);
  }

  /** A page for an inline subagent: its new messages appended where they were asked for. */
  onPage(page: InlinePage): void {
    if (page.sessionId === null) return;
    const into = this.waiting.get(page.sessionId);
    if (!into) return;
    this.waiting.delete(page.sessionId);
    const doc = into.ownerDocument;
    for (const note of Array.from(into.querySelectorAll(":scope > .tool-note"))) note.remove();
    const shown = new Set(Array.from(into.querySelectorAll<HTMLElement>(":scope > .entry")).map((e) => Number(e.dataset.number)));
    let previous: MessageView | undefined;
    for (const m of page.messages) {
      if (shown.has(m.number) || (m.absorbed ?? []).some((a) => shown.has(a))) continue;
      into.append(this.render(m, previous));
      shown.add(m.number);
      previous = m;
    }
    if (shown.size === 0) into.append(el(doc, "div", "tool-note", "No messages."));
    if (page.nextStart !== null) {
      const more = el(doc, "button", "inline-more", "Show more");
      more.type = "button";
      more.tabIndex = -1;
      more.dataset.action = "inline-more";
      more.dataset.start = String(page.nextStart);
      into.append(more);
    }
    announceBuilt(into);
  }
}
