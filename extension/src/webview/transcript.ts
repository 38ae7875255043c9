// The transcript webview: a window [lo, hi] of one line's messages (the Builder's own, or a
// subagent's), grown a page at a time as the user scrolls either way, so a transcript of
// 50,000 messages opens as fast as one of 5. Talks to the extension only through the
// validated unions of transcript/messages.ts.
import type { BuilderInfo, MessageView } from "../protocol";
import { parseHostMessage, parsePanelState, type HostToWebview, type PanelState, type WebviewToHost } from "../transcript/messages";
import { plainText } from "../text";
import { formatTimestamp } from "../time";
import { PromoteForm } from "./promote";
import { builderMeta, el, renderMessage } from "./render";

interface VsCodeApi {
  postMessage(message: WebviewToHost): void;
  getState(): unknown;
  setState(state: PanelState): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const PAGE = 200;
const NEAR = 1500; // px from an end at which the next page is asked for
const vscode = acquireVsCodeApi();
const doc = document;

const ui = {
  title: byId("title"),
  meta: byId("meta"),
  line: byId("line") as HTMLSelectElement,
  find: byId("find") as HTMLInputElement,
  findCount: byId("find-count"),
  prev: byId("find-prev") as HTMLButtonElement,
  next: byId("find-next") as HTMLButtonElement,
  only: byId("only-matching") as HTMLInputElement,
  asText: byId("open-as-text") as HTMLButtonElement,
  ask: byId("ask") as HTMLButtonElement,
  banner: byId("banner"),
  list: byId("messages"),
  status: byId("status"),
};

function byId(id: string): HTMLElement {
  const e = doc.getElementById(id);
  if (!e) throw new Error(`missing #${id}`);
  return e;
}

let builder: BuilderInfo | undefined;
let line: string | null = null;
const messages = new Map<number, MessageView>();
let lo = 0;
let hi = 0;
let nextStart: number | null = null;
let total = 0;
let pending = false;
let focus: number | null = null;
let query = "";
let current = -1;

const post = (m: WebviewToHost): void => {
  vscode.postMessage(m);
};

const form = new PromoteForm(
  doc,
  {
    form: byId("promote") as HTMLFormElement,
    range: byId("promote-range"),
    hint: byId("promote-hint"),
    same: byId("promote-same"),
    overlap: byId("promote-overlap"),
    rangeError: byId("promote-range-error"),
    notice: byId("notice"),
    inputs: {
      goal: byId("promote-goal") as HTMLInputElement,
      code: byId("promote-code") as HTMLInputElement,
      parent: byId("promote-parent") as HTMLInputElement,
      prompt: byId("promote-prompt") as HTMLTextAreaElement,
    },
    errors: {
      goal: byId("promote-goal-error"),
      code: byId("promote-code-error"),
      parent: byId("promote-parent-error"),
      prompt: byId("promote-prompt-error"),
    },
    cancel: byId("promote-cancel") as HTMLButtonElement,
  },
  {
    post,
    builderId: () => builder?.id,
    onMainLine: () => line === null,
    message: (n) => (line === null ? messages.get(n) : undefined),
    entries: () => Array.from(ui.list.querySelectorAll<HTMLElement>(".entry")),
  },
);

function request(start: number, count: number): void {
  if (pending) return;
  pending = true;
  ui.status.textContent = "Loading…";
  post({ type: "loadPage", sessionId: line, start, count });
}

/** Start over on a line, around a message (or at the top). */
function resetLine(sessionId: string | null, around: number | null): void {
  line = sessionId;
  messages.clear();
  ui.list.replaceChildren();
  lo = hi = 0;
  nextStart = null;
  pending = false;
  focus = around;
  ui.line.value = sessionId ?? "";
  request(around ? Math.max(1, around - 20) : 1, PAGE);
  saveState(around);
}

function saveState(number: number | null): void {
  if (builder) vscode.setState({ builderId: builder.id, sessionId: line, number });
}

function renderEntry(m: MessageView): HTMLElement {
  const previous = messages.get(m.number - 1);
  const r = renderMessage(doc, m, { query, previous, formatTime: formatTimestamp });
  if (query && ui.only.checked && r.matches === 0) r.entry.classList.add("hidden");
  form.decorate(r.entry);
  return r.entry;
}

function onPage(m: Extract<HostToWebview, { type: "page" }>): void {
  if (m.sessionId !== line) return; // an answer for a line the user has left
  pending = false;
  total = m.total;
  const fresh = m.messages.filter((x) => !messages.has(x.number));
  const before = fresh.filter((x) => lo > 0 && x.number < lo);
  const after = fresh.filter((x) => lo === 0 || x.number > hi);
  if (before.length > 0) {
    const height = doc.documentElement.scrollHeight;
    for (const x of before) messages.set(x.number, x);
    ui.list.prepend(...before.map(renderEntry));
    lo = before[0]?.number ?? lo;
    // keep what the user is reading where it was
    window.scrollBy(0, doc.documentElement.scrollHeight - height);
  }
  if (after.length > 0) {
    for (const x of after) messages.set(x.number, x);
    ui.list.append(...after.map(renderEntry));
    if (lo === 0) lo = after[0]?.number ?? 0;
    hi = after[after.length - 1]?.number ?? hi;
    nextStart = m.nextStart;
  } else if (lo === 0 || m.start > hi) {
    nextStart = m.nextStart;
  }
  ui.status.textContent = total === 0 ? "No messages." : `Messages ${lo}–${hi} of ${total}${nextStart ? " (scroll for more)" : ""}`;
  if (query) refreshFind(false);
  if (focus !== null) {
    const n = focus;
    focus = null;
    reveal(n);
  } else {
    maybeLoad();
  }
}

function reveal(n: number): void {
  const target = doc.getElementById(`m-${n}`);
  if (!target) {
    if (n < lo || n > hi) resetLine(line, n);
    return;
  }
  for (const d of Array.from(target.querySelectorAll("details"))) d.open = true;
  target.scrollIntoView({ block: "center" });
  target.classList.add("flash");
  setTimeout(() => {
    target.classList.remove("flash");
  }, 2000);
  saveState(n);
}

function maybeLoad(): void {
  if (pending) return;
  const root = doc.documentElement;
  if (nextStart !== null && window.scrollY + window.innerHeight > root.scrollHeight - NEAR) {
    request(nextStart, PAGE);
  } else if (lo > 1 && window.scrollY < NEAR) {
    const start = Math.max(1, lo - PAGE);
    request(start, lo - start);
  }
}

function firstVisible(): number | null {
  const hit = doc.elementFromPoint(window.innerWidth / 2, 80);
  const entry = hit?.closest(".entry");
  const n = entry instanceof HTMLElement ? Number(entry.dataset.number) : NaN;
  return Number.isInteger(n) ? n : null;
}

let scrollQueued = false;
window.addEventListener("scroll", () => {
  if (scrollQueued) return;
  scrollQueued = true;
  requestAnimationFrame(() => {
    scrollQueued = false;
    maybeLoad();
    saveState(firstVisible());
  });
});

// ---- find in transcript ----------------------------------------------------------------------

function refreshFind(rerender: boolean): void {
  if (rerender) {
    const entries = [...messages.values()].sort((a, b) => a.number - b.number).map(renderEntry);
    ui.list.replaceChildren(...entries);
  }
  const marks = ui.list.querySelectorAll("mark");
  ui.findCount.textContent = query ? `${marks.length} in loaded messages` : "";
  current = -1;
}

function step(delta: number): void {
  const marks = Array.from(ui.list.querySelectorAll("mark"));
  if (marks.length === 0) return;
  marks[current]?.classList.remove("current");
  current = (current + delta + marks.length) % marks.length;
  const mark = marks[current];
  if (!mark) return;
  for (let d = mark.closest("details"); d; d = d.parentElement?.closest("details") ?? null) d.open = true;
  mark.classList.add("current");
  mark.scrollIntoView({ block: "center" });
  ui.findCount.textContent = `${current + 1} of ${marks.length} in loaded messages`;
}

let findTimer: ReturnType<typeof setTimeout> | undefined;
ui.find.addEventListener("input", () => {
  if (findTimer) clearTimeout(findTimer);
  findTimer = setTimeout(() => {
    query = ui.find.value;
    refreshFind(true);
  }, 150);
});
ui.find.addEventListener("keydown", (e) => {
  if (e.key === "Enter") step(e.shiftKey ? -1 : 1);
});
ui.prev.addEventListener("click", () => { step(-1); });
ui.next.addEventListener("click", () => { step(1); });
ui.only.addEventListener("change", () => { refreshFind(true); });
ui.asText.addEventListener("click", () => { post({ type: "openAsText", sessionId: line }); });
ui.ask.addEventListener("click", () => { post({ type: "ask" }); });
// one listener for every message's "Start here" / "End here"
ui.list.addEventListener("click", (e) => {
  const button = e.target instanceof Element ? e.target.closest("button[data-range]") : null;
  const entry = button?.closest(".entry");
  const n = entry instanceof HTMLElement ? Number(entry.dataset.number) : NaN;
  if (!(button instanceof HTMLElement) || !Number.isInteger(n)) return;
  if (button.dataset.range === "start") form.startHere(n);
  else form.endHere(n);
});
ui.line.addEventListener("change", () => { resetLine(ui.line.value || null, null); });

// ---- messages from the extension -------------------------------------------------------------

function onInit(m: Extract<HostToWebview, { type: "init" }>): void {
  builder = m.builder;
  // (re)loaded, after the sidecar was down: what the banner said is over
  ui.banner.hidden = true;
  ui.banner.textContent = "";
  ui.title.textContent = plainText(m.builder.summary || m.builder.title || m.builder.short_id);
  ui.meta.textContent = plainText(builderMeta(m.builder, formatTimestamp));
  const main = el(doc, "option", undefined, `Conversation (${m.builder.message_count})`);
  main.value = "";
  const options = [main];
  for (const s of m.builder.sidechains ?? []) {
    const o = el(doc, "option", undefined, `Subagent ${s.agent_id ?? s.session_id.slice(-8)} (${s.message_count ?? 0})`);
    o.value = s.session_id;
    options.push(o);
  }
  ui.line.replaceChildren(...options);
  ui.line.hidden = options.length < 2;
  // reloaded after being hidden: back to where the user was, unless sent somewhere
  const saved = parsePanelState(vscode.getState());
  const resume = saved?.builderId === m.builder.id && saved.sessionId === m.sessionId ? saved.number : null;
  resetLine(m.sessionId, m.focus ?? resume);
}

window.addEventListener("message", (event: MessageEvent<unknown>) => {
  const m = parseHostMessage(event.data);
  if (m instanceof Error) {
    console.warn(`lazy: ignored a malformed message: ${m.message}`);
    return;
  }
  switch (m.type) {
    case "init":
      onInit(m);
      break;
    case "page":
      onPage(m);
      break;
    case "reveal":
      // (m.terms, what a search matched there, are for the highlighting to come)
      if (m.sessionId !== line) resetLine(m.sessionId, m.number);
      else if (pending) focus = m.number; // right after init: revealed when its page arrives
      else reveal(m.number);
      break;
    case "tasks":
      form.setTasks(m.tasks);
      break;
    case "pickRange":
      if (m.from === null || m.to === null) {
        if (line !== null) resetLine(null, null);
        form.askForRange();
      } else {
        if (line !== null) resetLine(null, m.from);
        else if (pending) focus = m.from; // revealed when the page in flight arrives
        else reveal(m.from);
        form.select(m.from, m.to);
      }
      break;
    case "promoted":
      form.onPromoted(m.task, m.overlapping);
      break;
    case "promoteFailed":
      form.onFailed(m.message, m.task, m.errors);
      break;
    case "error":
      pending = false;
      ui.banner.textContent = plainText(m.message);
      ui.banner.hidden = false;
      ui.status.textContent = "";
      break;
  }
});

post({ type: "ready" });
