// The transcript webview: a window [lo, hi] of one line's messages (the Builder's own, or a
// subagent's), grown a page at a time as the user scrolls either way, so a transcript of
// 50,000 messages opens as fast as one of 5; of a page, every message's head is built at once and
// its body when it nears the viewport (deferred.ts). Talks to the extension only through the
// validated unions of transcript/messages.ts. The entry points from outside: `init` (open,
// optionally at a message with terms to highlight) and `reveal` {number, terms} (land there).
import type { BuilderInfo, MessageView } from "../protocol";
import { parseHostMessage, parsePanelState, type HostToWebview, type PanelState, type TeamOrigin, type WebviewToHost } from "../transcript/messages";
import { teamMeta } from "../team/header";
import { plainText } from "../text";
import { formatTimestamp } from "../time";
import { asElement } from "./dom";
import { Find } from "./find";
import { InlineSubagents } from "./inline";
import { LoadedLine } from "./lines";
import { clearMarks, markTerms } from "./marks";
import { Navigator } from "./nav";
import { PromoteForm } from "./promote";
import { DeferredBodies } from "./deferred";
import { builderMeta, builderTitle, renderDeferred, renderMessage } from "./render";
import { headerUsage } from "./usage";

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

function byId(id: string): HTMLElement {
  const e = doc.getElementById(id);
  if (!e) throw new Error(`missing #${id}`);
  return e;
}

const ui = {
  title: byId("title"),
  meta: byId("meta"),
  parent: byId("open-parent") as HTMLButtonElement,
  find: byId("find") as HTMLInputElement,
  findCount: byId("find-count"),
  prev: byId("find-prev") as HTMLButtonElement,
  next: byId("find-next") as HTMLButtonElement,
  only: byId("only-matching") as HTMLInputElement,
  asText: byId("open-as-text") as HTMLButtonElement,
  ask: byId("ask") as HTMLButtonElement,
  banner: byId("banner"),
  list: byId("messages"),
  toolbar: doc.querySelector<HTMLElement>(".toolbar") ?? byId("title"),
  status: byId("status"),
};

let builder: BuilderInfo | undefined;
let line: string | null = null;
/** A teammate's Builder (read-only: no range to promote), else null. */
let team: TeamOrigin | null = null;
const loaded = new LoadedLine();
let pending = false;
/** After the next page: the message to land on (with terms), or only to scroll to. */
let arrival: { number: number; terms: string[] | null } | null = null;

const post = (m: WebviewToHost): void => {
  vscode.postMessage(m);
};

const topEntries = (): HTMLElement[] => Array.from(ui.list.querySelectorAll<HTMLElement>(":scope > .entry"));

/** The entry showing message n, its body built (to land on it or mark it). */
function entryFor(n: number): HTMLElement | undefined {
  const holder = loaded.holder(n);
  const article = holder === undefined ? null : doc.getElementById(`m-${holder}`);
  const entry = article?.closest<HTMLElement>(".entry") ?? undefined;
  if (entry) bodies.build(entry);
  return entry;
}

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
    onMainLine: () => line === null && team === null,
    message: (n) => (line === null ? loaded.messages.get(n) : undefined),
    entries: topEntries,
  },
);

const find = new Find({
  ask: (query) => { post({ type: "find", sessionId: line, query }); },
  entry: entryFor,
  load: (n) => {
    if (!loaded.covers(n)) resetLine(line, { number: n, terms: null });
  },
  firstVisible: () => firstVisible(),
  entries: topEntries,
  count: ui.findCount,
  onlyMatching: () => ui.only.checked,
});

// a body built as it neared the view: find's marks in it (its head had them already)
const bodies = new DeferredBodies((entry) => { find.decorate(entry); });

const nav = new Navigator(ui.list, (article) => {
  saveState(numberOf(article));
});

const inline = new InlineSubagents(post, (m, previous) =>
  renderMessage(doc, m, { previous, formatTime: formatTimestamp, nested: true }),
);

function numberOf(e: Element | null | undefined): number | null {
  const entry = e?.closest<HTMLElement>(".entry");
  const n = entry ? Number(entry.dataset.number) : NaN;
  return Number.isInteger(n) ? n : null;
}

function request(start: number, count: number): void {
  if (pending) return;
  pending = true;
  ui.status.textContent = "Loading…";
  post({ type: "loadPage", sessionId: line, start, count });
}

/** Start over on a line, around a message (or at the top). */
function resetLine(sessionId: string | null, around: { number: number; terms: string[] | null } | null): void {
  line = sessionId;
  loaded.clear();
  bodies.clear();
  ui.list.replaceChildren();
  pending = false;
  arrival = around;
  request(around ? Math.max(1, around.number - 20) : 1, PAGE);
  saveState(around?.number ?? null);
}

function saveState(number: number | null): void {
  if (builder) vscode.setState({ builderId: builder.id, sessionId: line, number, ...(team ? { teamEmail: team.email } : {}) });
}

function renderEntry(m: MessageView): HTMLElement {
  const before = loaded.holder(m.number - 1);
  const { entry, build } = renderDeferred(doc, m, {
    previous: before === undefined ? undefined : loaded.messages.get(before),
    formatTime: formatTimestamp,
    loadSubagent: (into, ref) => { inline.load(into, ref); },
  });
  bodies.add(entry, build);
  if (m.absorbed && m.absorbed.length > 0) entry.dataset.absorbed = m.absorbed.join(" ");
  form.decorate(entry);
  find.decorate(entry);
  return entry;
}

function showPage(m: Extract<HostToWebview, { type: "page" }>): void {
  const merged = loaded.merge(m);
  for (const n of merged.replaced) {
    const entry = doc.getElementById(`m-${n}`)?.closest(".entry");
    if (entry) bodies.forget(entry);
    entry?.remove();
  }
  if (merged.before.length > 0) {
    const height = doc.documentElement.scrollHeight;
    ui.list.prepend(...merged.before.map(renderEntry));
    // keep what the user is reading where it was
    window.scrollBy(0, doc.documentElement.scrollHeight - height);
  }
  if (merged.after.length > 0) ui.list.append(...merged.after.map(renderEntry));
  const { lo, hi, total, nextStart } = loaded;
  ui.status.textContent = total === 0 ? "No messages." : `Messages ${lo}–${hi} of ${total}${nextStart ? " (scroll for more)" : ""}`;
  nav.ensureStop();
}

function onPage(m: Extract<HostToWebview, { type: "page" }>): void {
  if (m.inline) {
    inline.onPage(m);
    return;
  }
  if (m.sessionId !== line) return; // an answer for a line the user has left
  pending = false;
  showPage(m);
  const to = arrival;
  arrival = null;
  if (to?.terms) reveal(to.number, to.terms);
  else if (to) entryFor(to.number)?.scrollIntoView({ block: "start" });
  bodies.settle(topEntries());
  find.pageShown();
  if (!to) maybeLoad();
}

let landed: HTMLElement | null = null;

/** Land on message n: its page loaded, scrolled into view, marked as the target, the terms
 * highlighted in it (opening the thinking or tool call they are in). */
function reveal(n: number, terms: string[]): void {
  const entry = entryFor(n);
  const article = entry?.querySelector<HTMLElement>(":scope > article.msg");
  if (!entry || !article) {
    if (!loaded.covers(n)) resetLine(line, { number: n, terms });
    return;
  }
  if (landed) {
    landed.classList.remove("target");
    clearMarks(landed, "term");
  }
  landed = article;
  entry.classList.remove("hidden");
  article.classList.add("target");
  const groups = terms.length > 0 ? markTerms(article, terms, { open: true, cls: "term" }) : [];
  nav.focus(article, false);
  (groups[0]?.[0] ?? article).scrollIntoView({ block: "center" });
  saveState(n);
}

function maybeLoad(): void {
  if (pending) return;
  const root = doc.documentElement;
  const { lo, nextStart } = loaded;
  if (nextStart !== null && window.scrollY + window.innerHeight > root.scrollHeight - NEAR) {
    request(nextStart, PAGE);
  } else if (lo > 1 && window.scrollY < NEAR) {
    const start = Math.max(1, lo - PAGE);
    request(start, lo - start);
  }
}

/** The message at the top of the view, under the sticky toolbar: found by hit-testing a few
 * points, not by measuring every message (each measure of one laid out lazily forces its
 * layout: seconds at the end of a long transcript). */
function firstVisible(): number | null {
  const x = ui.list.getBoundingClientRect().left + 24;
  const top = ui.toolbar.getBoundingClientRect().bottom;
  if (!("elementFromPoint" in doc)) return null; // jsdom: no hit-testing
  for (let y = top + 4; y < window.innerHeight; y += 24) {
    const n = numberOf(doc.elementFromPoint(x, y)?.closest(".entry:not(.nested)"));
    if (n !== null) return n;
  }
  return null;
}

let scrollQueued = false;
window.addEventListener("scroll", () => {
  if (scrollQueued) return;
  scrollQueued = true;
  window.requestAnimationFrame(() => {
    scrollQueued = false;
    maybeLoad();
    saveState(firstVisible());
  });
});

// ---- find in transcript ----------------------------------------------------------------------

let findTimer: number | undefined;
function flushFind(): void {
  if (findTimer) window.clearTimeout(findTimer);
  findTimer = undefined;
  if (ui.find.value !== find.query) find.setQuery(ui.find.value);
}
ui.find.addEventListener("input", () => {
  if (findTimer) window.clearTimeout(findTimer);
  findTimer = window.setTimeout(flushFind, 200);
});
ui.find.addEventListener("keydown", (e) => {
  if (e.key !== "Enter") return;
  e.preventDefault();
  const typed = ui.find.value !== find.query;
  flushFind();
  if (!typed) find.step(e.shiftKey ? -1 : 1);
});
ui.prev.addEventListener("click", () => { find.step(-1); });
ui.next.addEventListener("click", () => { find.step(1); });
ui.only.addEventListener("change", () => {
  for (const e of topEntries()) find.decorate(e);
});
doc.addEventListener("keydown", (e) => {
  if ((e.ctrlKey || e.metaKey) && !e.altKey && e.key.toLowerCase() === "f") {
    e.preventDefault();
    ui.find.focus();
    ui.find.select();
  }
});

// ---- clicks: the range buttons, links, a subagent's Open, an image's source -------------------

function onClick(e: MouseEvent): void {
  const target = asElement(e.target)?.closest<HTMLElement>("button, a[data-href], a[data-file]") ?? null;
  if (!target) return;
  const n = numberOf(target.closest(".entry:not(.nested)"));
  const d = target.dataset;
  if (d.href) {
    e.preventDefault();
    post({ type: "openLink", url: d.href });
  } else if (d.file) {
    e.preventDefault();
    post({ type: "openFile", path: d.file, line: d.line ? Number(d.line) : null });
  } else if (d.range && n !== null && !target.closest(".entry.nested")) {
    if (d.range === "start") form.startHere(n);
    else form.endHere(n);
  } else if (d.action === "open-subagent" && d.session) {
    post({ type: "openLine", sessionId: d.session });
  } else if (d.action === "open-media" && d.session) {
    const num = numberOf(target.closest(".entry"));
    if (num !== null) post({ type: "openMedia", sessionId: d.session, number: num });
  } else if (d.action === "inline-more") {
    inline.more(target);
  }
}
ui.list.addEventListener("click", onClick);
ui.asText.addEventListener("click", () => { post({ type: "openAsText", sessionId: line }); });
ui.ask.addEventListener("click", () => { post({ type: "ask" }); });
ui.parent.addEventListener("click", () => { post({ type: "openLine", sessionId: null }); });

// ---- messages from the extension -------------------------------------------------------------

function onInit(m: Extract<HostToWebview, { type: "init" }>): void {
  builder = m.builder;
  team = m.team ?? null;
  // what works on this machine's store only
  ui.asText.hidden = ui.ask.hidden = team !== null;
  // (re)loaded, after the sidecar was down: what the banner said is over
  ui.banner.hidden = true;
  ui.banner.textContent = "";
  const side = m.sessionId ? m.builder.sidechains?.find((s) => s.session_id === m.sessionId) : undefined;
  const title = builderTitle(m.builder);
  ui.title.textContent = side ? `Subagent ${side.agent_id ?? m.sessionId?.slice(-8) ?? ""} · ${title}` : title;
  ui.title.title = plainText(m.builder.title || m.builder.summary).slice(0, 600);
  ui.meta.textContent = team
    ? plainText(teamMeta(team, m.builder, formatTimestamp))
    : [plainText(builderMeta(m.builder, formatTimestamp)), headerUsage(m.builder)].filter(Boolean).join(" · ");
  ui.parent.hidden = !side;
  // reloaded after being hidden: back to where the user was, unless sent somewhere
  const saved = parsePanelState(vscode.getState());
  const resume = saved?.builderId === m.builder.id && saved.sessionId === m.sessionId ? saved.number : null;
  if (m.focus !== null) resetLine(m.sessionId, { number: m.focus, terms: m.terms ?? [] });
  else resetLine(m.sessionId, resume !== null ? { number: resume, terms: null } : null);
  if (find.query) find.setQuery(find.query);
}

function onPickRange(m: Extract<HostToWebview, { type: "pickRange" }>): void {
  if (team) return;
  if (m.from === null || m.to === null) {
    if (line !== null) resetLine(null, null);
    form.askForRange();
    return;
  }
  if (line !== null) resetLine(null, { number: m.from, terms: [] });
  else if (pending) arrival = { number: m.from, terms: [] }; // landed on when the page in flight arrives
  else reveal(m.from, []);
  form.select(m.from, m.to);
}

function onMessage(m: HostToWebview): void {
  switch (m.type) {
    case "init":
      onInit(m);
      break;
    case "page":
      onPage(m);
      break;
    case "reveal":
      if (m.sessionId !== line) resetLine(m.sessionId, { number: m.number, terms: m.terms ?? [] });
      else reveal(m.number, m.terms ?? []);
      break;
    case "found":
      if (m.sessionId === line) find.onResults(m.query, m.matches, m.total);
      break;
    case "findFailed":
      find.onFailed(m.query, plainText(m.message));
      break;
    case "tasks":
      form.setTasks(m.tasks);
      break;
    case "pickRange":
      onPickRange(m);
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
}

window.addEventListener("message", (event: MessageEvent<unknown>) => {
  const m = parseHostMessage(event.data);
  if (m instanceof Error) {
    console.warn(`lazy: ignored a malformed message: ${m.message}`);
    return;
  }
  onMessage(m);
});

post({ type: "ready" });
