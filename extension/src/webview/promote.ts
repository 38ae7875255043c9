// The transcript's promote form: "Start here" / "End here" on the messages pick a range, which
// is highlighted; the form (goal, code, parent, prompt) shows what an empty field falls back to,
// and, before submit, the tasks the range shares messages with or the task holding the very
// same range (which the sidecar refuses). The sidecar decides; this only shows and forwards.
import type { MessageView, Task } from "../protocol";
import type { FieldError, WebviewToHost } from "../transcript/messages";
import { checkRange, rangeLabel, tasksAt } from "../promote/range";
import { plainText } from "../text";
import { el } from "./dom";

const FIELDS = ["goal", "code", "parent", "prompt"] as const;
type Field = (typeof FIELDS)[number];

export interface PromoteUi {
  form: HTMLFormElement;
  range: HTMLElement;
  hint: HTMLElement;
  same: HTMLElement;
  overlap: HTMLElement;
  rangeError: HTMLElement;
  notice: HTMLElement;
  inputs: Record<Field, HTMLInputElement | HTMLTextAreaElement>;
  errors: Record<Field, HTMLElement>;
  cancel: HTMLButtonElement;
}

export interface PromoteHost {
  post(m: WebviewToHost): void;
  builderId(): string | undefined;
  /** Only the Builder's own line can be promoted (not a subagent's). */
  onMainLine(): boolean;
  message(n: number): MessageView | undefined;
  entries(): Iterable<HTMLElement>;
}

function show(e: HTMLElement, text: string): void {
  e.textContent = plainText(text);
  e.hidden = !text;
}

function firstLine(s: string, max = 80): string {
  const line = plainText(s).split("\n").find((l) => l.trim())?.trim() ?? "";
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

export class PromoteForm {
  private start: number | null = null;
  private end: number | null = null;
  private tasks: Task[] = [];
  private submitting = false;

  constructor(
    private readonly doc: Document,
    private readonly ui: PromoteUi,
    private readonly host: PromoteHost,
  ) {
    ui.form.addEventListener("submit", (e) => {
      e.preventDefault();
      this.submit();
    });
    ui.cancel.addEventListener("click", () => {
      this.close();
    });
  }

  /** The Builder's tasks: what the overlap check and the marks go by. */
  setTasks(tasks: Task[]): void {
    this.tasks = tasks;
    this.refresh();
  }

  /** Ask the user to pick a range (the Builders view's "Promote Messages to Task…"). */
  askForRange(): void {
    show(this.ui.notice, "Pick the messages to promote: “Start here” on the first, “End here” on the last.");
  }

  startHere(n: number): void {
    this.start = n;
    if (this.end !== null && this.end < n) this.end = null;
    this.changed();
  }

  endHere(n: number): void {
    this.end = n;
    if (this.start === null || this.start > n) this.start = n;
    this.changed();
  }

  /** A range chosen elsewhere (the text editor's code action). */
  select(from: number, to: number): void {
    this.start = from;
    this.end = to;
    this.changed();
  }

  close(): void {
    this.start = this.end = null;
    this.ui.form.hidden = true;
    this.refresh();
  }

  onPromoted(task: Task, overlapping: Task[]): void {
    this.submitting = false;
    this.start = this.end = null;
    this.ui.form.hidden = true;
    for (const f of FIELDS) this.ui.inputs[f].value = "";
    const shared = overlapping.map((t) => `${t.code} (${rangeLabel(t.from_message, t.to_message)})`).join(", ");
    show(
      this.ui.notice,
      `Promoted ${rangeLabel(task.from_message, task.to_message)} to task ${task.code}.${shared ? ` It shares messages with ${shared}.` : ""}`,
    );
    this.refresh();
  }

  onFailed(message: string, task: string | null, errors: FieldError[]): void {
    this.submitting = false;
    this.clearErrors();
    if (task !== null) {
      show(this.ui.same, `Refused: ${message}`);
    }
    let placed = task !== null;
    for (const e of errors) {
      const f = FIELDS.find((x) => x === e.field);
      show(f ? this.ui.errors[f] : this.ui.rangeError, `${f ? "" : `${e.field}: `}${e.message}`);
      placed = true;
    }
    if (!placed) show(this.ui.rangeError, message);
  }

  /** Marks one entry: in the picked range, the tasks it was promoted to, and its two buttons. */
  decorate(entry: HTMLElement): void {
    const n = Number(entry.dataset.number);
    const head = entry.querySelector(":scope > article > header.head");
    if (!head || !Number.isInteger(n)) return;
    for (const old of Array.from(head.querySelectorAll(".range-actions, .task-tag"))) old.remove();
    const main = this.host.onMainLine();
    const picked = main && this.start !== null && n >= this.start && n <= (this.end ?? this.start);
    entry.classList.toggle("in-range", picked);
    const tasks = main ? tasksAt(this.tasks, n) : [];
    entry.classList.toggle("promoted", tasks.length > 0);
    if (!main) return;
    for (const t of tasks) {
      const tag = el(this.doc, "span", "task-tag", `task ${t.code}`);
      tag.title = `${t.code}: ${rangeLabel(t.from_message, t.to_message)} — ${plainText(t.goal)}`;
      head.append(this.doc.createTextNode(" "), tag);
    }
    const actions = el(this.doc, "span", "range-actions");
    const start = el(this.doc, "button", "range-start", "Start here");
    start.type = "button";
    start.dataset.range = "start";
    start.title = `Promote from #${n}`;
    const end = el(this.doc, "button", "range-end", "End here");
    end.type = "button";
    end.dataset.range = "end";
    end.title = `Promote up to #${n}`;
    // in the Tab order only while focus is in this message (nav.ts)
    start.tabIndex = end.tabIndex = entry.classList.contains("active") ? 0 : -1;
    actions.append(start, end);
    head.append(actions);
  }

  private changed(): void {
    this.clearErrors();
    show(this.ui.notice, "");
    this.refresh();
    if (this.start !== null && this.end !== null) {
      const opening = this.ui.form.hidden;
      this.ui.form.hidden = false;
      if (opening) this.ui.inputs.goal.focus({ preventScroll: true });
    } else if (this.start !== null) {
      show(this.ui.notice, `From #${this.start}: “End here” on the last message to promote.`);
    }
  }

  private refresh(): void {
    for (const entry of this.host.entries()) this.decorate(entry);
    if (this.start === null || this.end === null) return;
    const { start: from, end: to } = this;
    this.ui.range.textContent = `Promote messages ${rangeLabel(from, to)} to a task`;
    const builderId = this.host.builderId() ?? "";
    const check = checkRange(this.tasks, builderId, from, to);
    show(
      this.ui.same,
      check.same ? `Messages ${rangeLabel(from, to)} were already promoted to task ${check.same.code}: the sidecar will refuse the same range.` : "",
    );
    show(
      this.ui.overlap,
      check.overlapping.length > 0
        ? `Overlaps ${check.overlapping.map((t) => `task ${t.code} (${rangeLabel(t.from_message, t.to_message)})`).join(", ")}.`
        : "",
    );
    this.placeholders(from, to);
  }

  /** What each empty field falls back to, as the sidecar does it. */
  private placeholders(from: number, to: number): void {
    let said = "";
    for (let n = from; n <= to && !said; n++) {
      const m = this.host.message(n);
      if (m?.role === "user" && m.text.trim()) said = firstLine(m.text);
    }
    this.ui.inputs.goal.placeholder = said ? `empty: what the human said, “${said}”` : "empty: what the human said in the range";
    this.ui.inputs.code.placeholder = "empty: made from the goal";
    this.ui.inputs.parent.placeholder = "empty: none (or a task's code)";
    this.ui.inputs.prompt.placeholder = `empty: the messages ${rangeLabel(from, to)}, verbatim`;
    this.ui.hint.textContent = "Empty fields fall back as shown.";
  }

  private clearErrors(): void {
    for (const f of FIELDS) show(this.ui.errors[f], "");
    show(this.ui.rangeError, "");
    // the pre-submit "same range" notice comes back with refresh()
    show(this.ui.same, "");
  }

  private submit(): void {
    if (this.start === null || this.end === null || this.submitting) return;
    this.submitting = true;
    this.clearErrors();
    this.refresh();
    const v = (f: Field): string => this.ui.inputs[f].value;
    this.host.post({ type: "promote", from: this.start, to: this.end, goal: v("goal"), code: v("code"), parent: v("parent"), prompt: v("prompt") });
  }
}
