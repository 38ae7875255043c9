// The transcript panels (host side): one per Builder, fed page by page from
// transcripts/page, restored after a reload by the serializer. The page itself is built by
// src/webview/ (bundled to dist/webview/), the only folder the webview may load from.
// A teammate's Builder (the Team view, a team search hit) opens in the same page, read-only,
// its pages from team/page (team/transcript.ts): nothing of it is in this machine's store, so
// promote, ask, open as text and its subagents are not offered.
import * as vscode from "vscode";
import { describeFailure, type LazyClient } from "../protocol/client";
import { builderLabel } from "../views/builders";
import { parsePanelState, parseWebviewMessage, type HostToWebview, type PanelState, type WebviewToHost } from "./messages";
import { builderTasks, promotedMessage, submitPromote } from "../promote/form";
import type { BuilderInfo, Task } from "../protocol";
import { nonce, webviewPage, type PageAssets } from "../webviewPage";
import { openFile, openLink, openMedia } from "./open";
import { noSubagentPage, teamFind, teamHead, teamPage } from "../team/transcript";
import type { TeamRef } from "../team/tree";

export const VIEW_TYPE = "lazy.transcript";

export interface TranscriptDeps {
  extensionUri: vscode.Uri;
  client: () => LazyClient | undefined;
  log: vscode.LogOutputChannel;
  /** The user looked at a Builder: remember its size for the "grew" badge. */
  onOpened(builderId: string, messageCount: number): void;
  openAsText(builderId: string, sessionId: string | null): void;
  /** A task was promoted from a transcript: the Tasks view refreshes. */
  onPromoted(task: Task): void;
  /** The transcript's "Ask…" button. */
  ask(builderId: string, label: string): void;
  /** A subagent's "Open" (or a subagent panel's "Conversation"): that line on its own panel. */
  openLine?: (builderId: string, sessionId: string | null) => void;
  /** A teammate's Builder was opened (team/page marked it seen): the Team view refreshes. */
  onTeamOpened?: () => void;
}

/** True while a teammate's transcript is the active editor: the editor title's Ask and
 * Export (of this store's Builders) are not offered on it. */
export const TEAM_TRANSCRIPT_KEY = "lazy.teamTranscript";

/** Said when a teammate's transcript is asked for what only a local one has. */
export const READ_ONLY = "A teammate's Builder is read-only here: it lives in their store, not this machine's.";

/** Where a panel opens: a message, and the terms (a search's) to highlight in it. */
export interface Landing {
  number: number | null;
  terms: string[];
}

/** Find over the whole line asks for at most this many matching messages. */
export const FIND_LIMIT = 5000;

/** The promote form to open once the page is up: on a range, or asking for one. */
type PendingPick = { from: number | null; to: number | null };

/** The page's shell: static markup only (transcript text arrives later, as data). */
export function transcriptHtml(assets: PageAssets): string {
  return webviewPage(
    assets,
    "Transcript",
    `<div class="toolbar">
  <h1 id="title"></h1>
  <div id="meta" class="meta"></div>
  <div class="controls">
    <button id="open-parent" title="Open the conversation this subagent is part of" hidden>Conversation</button>
    <input id="find" type="search" placeholder="Find in transcript (Ctrl+F)" aria-label="Find in transcript">
    <button id="find-prev" title="Previous match (Shift+Enter)" aria-label="Previous match">&#8593;</button>
    <button id="find-next" title="Next match (Enter)" aria-label="Next match">&#8595;</button>
    <label><input id="only-matching" type="checkbox"> Only matching</label>
    <span id="find-count" class="find-count"></span>
    <button id="open-as-text" title="Open the transcript as a read-only text document">Open as text</button>
    <button id="ask" title="Ask a question about this Builder (answered by a sandboxed one-shot)">Ask about this Builder…</button>
  </div>
</div>
<div id="banner" class="banner" role="alert" hidden></div>
<div id="notice" class="notice" role="status" hidden></div>
<main id="messages" aria-label="Messages (↑/↓ or j/k move between them)"></main>
<div id="status" class="status"></div>
<form id="promote" class="promote" aria-label="Promote messages to a task" hidden>
  <div class="promote-head"><strong id="promote-range"></strong> <span id="promote-hint" class="hint"></span></div>
  <div id="promote-same" class="refusal" role="alert" hidden></div>
  <div id="promote-overlap" class="overlap" role="status" hidden></div>
  <div id="promote-range-error" class="field-error" hidden></div>
  <label>Goal <input id="promote-goal" type="text" autocomplete="off"></label>
  <div id="promote-goal-error" class="field-error" hidden></div>
  <label>Code <input id="promote-code" type="text" autocomplete="off"></label>
  <div id="promote-code-error" class="field-error" hidden></div>
  <label>Parent <input id="promote-parent" type="text" autocomplete="off"></label>
  <div id="promote-parent-error" class="field-error" hidden></div>
  <label>Prompt <textarea id="promote-prompt" rows="4"></textarea></label>
  <div id="promote-prompt-error" class="field-error" hidden></div>
  <div class="promote-buttons">
    <button id="promote-submit" type="submit" class="primary">Promote to task</button>
    <button id="promote-cancel" type="button">Cancel</button>
  </div>
</form>`,
  );
}

function truncate(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
}

class TranscriptPanel {
  private builder: BuilderInfo | undefined;
  private ready = false;
  private pick: PendingPick | null = null;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    readonly panel: vscode.WebviewPanel,
    public builderId: string,
    private sessionId: string | null,
    private focus: number | null,
    private readonly deps: TranscriptDeps,
    private terms: string[],
    onDispose: () => void,
    /** Set: a teammate's Builder (its member's email), read from the team database. */
    readonly teamEmail: string | null = null,
  ) {
    const root = vscode.Uri.joinPath(deps.extensionUri, "dist", "webview");
    panel.webview.options = { enableScripts: true, localResourceRoots: [root] };
    panel.webview.html = transcriptHtml({
      cspSource: panel.webview.cspSource,
      nonce: nonce(),
      scriptUri: panel.webview.asWebviewUri(vscode.Uri.joinPath(root, "transcript.js")).toString(),
      styleUri: panel.webview.asWebviewUri(vscode.Uri.joinPath(root, "transcript.css")).toString(),
    });
    this.disposables.push(
      panel.webview.onDidReceiveMessage((raw: unknown) => { void this.receive(raw); }),
      panel.onDidDispose(() => {
        onDispose();
        for (const d of this.disposables) d.dispose();
      }),
    );
    if (teamEmail !== null) this.followActive();
  }

  /** A teammate's panel says when it is the active editor (and when it no longer is). */
  private followActive(): void {
    // remembered: a disposed panel is not to be asked
    let active = this.panel.active;
    const say = (): void => { void vscode.commands.executeCommand("setContext", TEAM_TRANSCRIPT_KEY, active); };
    say();
    this.disposables.push(
      this.panel.onDidChangeViewState((e) => {
        active = e.webviewPanel.active;
        say();
      }),
      new vscode.Disposable(() => {
        if (!active) return;
        active = false;
        say();
      }),
    );
  }

  private post(m: HostToWebview): void {
    void this.panel.webview.postMessage(m);
  }

  private get team(): TeamRef | undefined {
    return this.teamEmail === null ? undefined : { builderId: this.builderId, email: this.teamEmail };
  }

  private async receive(raw: unknown): Promise<void> {
    const m = parseWebviewMessage(raw);
    if (m instanceof Error) {
      this.deps.log.warn(`transcript webview: rejected a message (${m.message})`);
      return;
    }
    switch (m.type) {
      case "ready":
        this.ready = true;
        await this.init();
        return;
      case "loadPage":
        if (this.team) await this.loadTeamPage(this.team, m.sessionId, m.start, m.count, m.inline === true);
        else await this.loadPage(m.sessionId, m.start, m.count, m.inline === true);
        return;
      case "openAsText":
        if (!this.team) this.deps.openAsText(this.builderId, m.sessionId);
        return;
      case "ask":
        if (!this.team) this.deps.ask(this.builderId, this.label());
        return;
      case "promote":
        if (this.team) this.post({ type: "promoteFailed", message: READ_ONLY, task: null, errors: [] });
        else await this.promote(m);
        return;
      default:
        await this.receiveOpen(m);
    }
  }

  /** The page's requests to find, or to open something outside it. */
  private async receiveOpen(m: WebviewToHost): Promise<void> {
    try {
      switch (m.type) {
        case "find":
          await this.find(m.sessionId, m.query);
          return;
        case "openLink":
          await openLink(m.url, this.deps.log);
          return;
        case "openFile":
          await openFile(m.path, m.line, this.builder?.project ?? null);
          return;
        case "openMedia": {
          const client = this.deps.client();
          if (this.team) void vscode.window.showInformationMessage(`Lazy: ${READ_ONLY} Its attachments' source files are on their machine.`);
          else if (client) await openMedia(client, this.builderId, m.sessionId);
          return;
        }
        case "openLine":
          if (!this.team) this.deps.openLine?.(this.builderId, m.sessionId);
          return;
        default:
          return;
      }
    } catch (e) {
      this.deps.log.warn(`transcript ${m.type}: ${describeFailure(e)}`);
    }
  }

  private async find(sessionId: string | null, query: string): Promise<void> {
    const client = this.deps.client();
    if (!client) {
      this.post({ type: "findFailed", query, message: "The lazy sidecar is not running." });
      return;
    }
    try {
      const team = this.team;
      const r = team
        ? await teamFind(client, team, query, FIND_LIMIT)
        : await client.request("transcripts/find", { builder_id: this.builderId, session_id: sessionId, query, limit: FIND_LIMIT });
      this.post({ type: "found", sessionId, query, matches: r.matches, total: r.total });
    } catch (e) {
      this.post({ type: "findFailed", query, message: `Find failed: ${describeFailure(e)}` });
    }
  }

  private async promote(m: Extract<WebviewToHost, { type: "promote" }>): Promise<void> {
    const client = this.deps.client();
    if (!client) {
      this.post({ type: "promoteFailed", message: "The lazy sidecar is not running.", task: null, errors: [] });
      return;
    }
    const answer = await submitPromote(client, this.builderId, m);
    this.post(answer);
    if (answer.type === "promoted") {
      void vscode.window.showInformationMessage(promotedMessage(answer.task, answer.overlapping));
      this.deps.onPromoted(answer.task);
      await this.sendTasks();
    }
  }

  /** What was promoted from this Builder, for the form's overlap check and the marks. */
  private async sendTasks(): Promise<void> {
    const client = this.deps.client();
    if (!client) return;
    try {
      this.post({ type: "tasks", tasks: await builderTasks(client, this.builderId) });
    } catch (e) {
      this.deps.log.warn(`tasks/list for ${this.builderId}: ${describeFailure(e)}`);
    }
  }

  /** Open the promote form (on a range, or asking for one). A page still loading gets it
   * after its init, like a reveal. */
  pickRange(from: number | null, to: number | null): void {
    this.pick = { from, to };
    const alive = this.panel.visible && this.ready && this.builder !== undefined;
    this.panel.reveal(undefined, false);
    if (alive) this.flushPick();
  }

  private flushPick(): void {
    const pick = this.pick;
    if (!pick) return;
    this.pick = null;
    this.post({ type: "pickRange", from: pick.from, to: pick.to });
  }

  label(): string {
    return this.builder ? builderLabel(this.builder) : this.builderId.slice(0, 8);
  }

  showDown(reason: string): void {
    if (this.ready) this.post({ type: "error", message: `${reason} (Lazy: Restart Sidecar starts it again.)` });
  }

  /** (Re)load the Builder and start the page over; also after the sidecar restarts. */
  async init(): Promise<void> {
    if (!this.ready) return;
    const client = this.deps.client();
    if (!client) {
      this.post({ type: "error", message: "The lazy sidecar is not running." });
      return;
    }
    if (this.team) {
      await this.initTeam(client, this.team);
      return;
    }
    try {
      const builder = await client.request("builders/get", { id: this.builderId });
      this.builder = builder;
      this.builderId = builder.id;
      this.panel.title = truncate(builderLabel(builder), 40);
      // a range to promote is on the Builder's own line, opened at its start
      if (this.pick) {
        this.sessionId = null;
        this.focus = this.pick.from ?? this.focus;
      }
      this.post({ type: "init", builder, sessionId: this.sessionId, focus: this.focus, terms: this.terms });
      if (this.focus !== null) this.logReveal(this.focus, this.sessionId, this.terms);
      this.focus = null;
      this.terms = [];
      this.deps.onOpened(builder.id, builder.message_count);
      await this.sendTasks();
      this.flushPick();
    } catch (e) {
      this.post({ type: "error", message: `Could not open ${this.builderId}: ${describeFailure(e)}` });
    }
  }

  /** A teammate's Builder: its head from the team (which marks it seen), then the page. */
  private async initTeam(client: LazyClient, team: TeamRef): Promise<void> {
    try {
      const { builder, origin } = await teamHead(client, team);
      this.builder = builder;
      this.builderId = builder.id;
      this.panel.title = truncate(`${origin.member}: ${builderLabel(builder)}`, 40);
      this.sessionId = null;
      this.post({ type: "init", builder, sessionId: null, focus: this.focus, terms: this.terms, team: origin });
      if (this.focus !== null) this.logReveal(this.focus, null, this.terms);
      this.focus = null;
      this.terms = [];
      this.deps.onTeamOpened?.();
    } catch (e) {
      this.post({ type: "error", message: `Could not open ${this.builderId} from the team: ${describeFailure(e)}` });
    }
  }

  private async loadTeamPage(team: TeamRef, sessionId: string | null, start: number, count: number, inline: boolean): Promise<void> {
    const client = this.deps.client();
    if (!client) {
      this.post({ type: "error", message: "The lazy sidecar is not running." });
      return;
    }
    if (inline && sessionId !== null) {
      this.post(noSubagentPage(sessionId, start));
      return;
    }
    try {
      this.post(await teamPage(client, team, start, count));
    } catch (e) {
      this.post({ type: "error", message: `Could not load messages from the team: ${describeFailure(e)}` });
    }
  }

  private async loadPage(sessionId: string | null, start: number, count: number, inline: boolean): Promise<void> {
    const client = this.deps.client();
    if (!client) {
      this.post({ type: "error", message: "The lazy sidecar is not running." });
      return;
    }
    try {
      const page = await client.request("transcripts/page", {
        builder_id: this.builderId,
        session_id: sessionId,
        start,
        count,
      });
      // a subagent shown inline is asked for by its session, but this panel stays on its line
      if (!inline) this.sessionId = sessionId;
      this.post({
        type: "page",
        sessionId,
        start,
        messages: page.messages,
        total: page.total,
        nextStart: page.next_start,
        ...(inline ? { inline: true } : {}),
      });
      if (sessionId === null && this.builder && page.builder.message_count !== this.builder.message_count) {
        this.builder = page.builder;
        this.deps.onOpened(page.builder.id, page.builder.message_count);
      }
    } catch (e) {
      this.post({ type: "error", message: `Could not load messages: ${describeFailure(e)}` });
    }
  }

  reveal(number: number | null, sessionId: string | null, terms: string[] = []): void {
    if (number === null && sessionId === this.sessionId) {
      this.panel.reveal(undefined, false);
      return;
    }
    // A hidden webview is torn down and reloads when shown (no retainContextWhenHidden), and
    // a message posted meanwhile is lost: remember the target for its next init, and also
    // post it for a page that is still alive.
    this.focus = number;
    this.terms = terms;
    this.sessionId = sessionId;
    const alive = this.panel.visible && this.ready && this.builder !== undefined;
    this.panel.reveal(undefined, false);
    if (alive) {
      if (number !== null) {
        this.post({ type: "reveal", sessionId, number, terms });
        this.logReveal(number, sessionId, terms);
      } else void this.init();
    }
  }

  /** What a search (or a link) opened: logged, so a landing can be followed. */
  private logReveal(number: number, sessionId: string | null, terms: readonly string[]): void {
    const where = sessionId ? ` of subagent ${sessionId}` : "";
    this.deps.log.info(`transcript ${this.builderId}: reveal #${number}${where}, terms ${JSON.stringify(terms)}`);
  }
}

/** A panel per line: the Builder's own, or one of its subagents'. */
export function lineKey(builderId: string, sessionId: string | null): string {
  return sessionId ? `${builderId}\n${sessionId}` : builderId;
}

/** A teammate's Builder's panel: apart from a local one of the same id (one's own Builder,
 * pushed, is on the team too). */
export function teamKey(ref: TeamRef): string {
  return `team\n${ref.email}\n${ref.builderId}`;
}

function stateKey(state: PanelState): string {
  return state.teamEmail ? teamKey({ builderId: state.builderId, email: state.teamEmail }) : lineKey(state.builderId, state.sessionId);
}

export class TranscriptPanels implements vscode.WebviewPanelSerializer, vscode.Disposable {
  private readonly panels = new Map<string, TranscriptPanel>();
  private readonly resolving = new Map<string, Promise<string>>();
  private readonly deps: TranscriptDeps;

  constructor(deps: TranscriptDeps) {
    this.deps = {
      ...deps,
      openLine:
        deps.openLine ??
        ((id, sid) => {
          this.open(id, null, sid).catch((e: unknown) => { deps.log.warn(`open line ${sid ?? ""}: ${describeFailure(e)}`); });
        }),
    };
  }

  /** Open (or bring forward) the panel of a Builder's line (its own, or a subagent's), at a
   * message when given, with the terms to highlight there (a search hit's). */
  async open(idOrPrefix: string, number?: number | null, sessionId?: string | null, terms?: readonly string[]): Promise<void> {
    await this.panelFor(idOrPrefix, { number: number ?? null, terms: [...(terms ?? [])] }, sessionId ?? null, false);
  }

  /** Open a Builder's transcript with the promote form: on the range, or asking for one. */
  async openForPromote(idOrPrefix: string, from: number | null, to: number | null): Promise<void> {
    const p = await this.panelFor(idOrPrefix, { number: from, terms: [] }, null, true);
    p.pickRange(from, to);
  }

  /** A teammate's Builder, read-only from the team database, at a message when given, with
   * the terms to highlight there (a team search hit's). */
  openTeam(ref: TeamRef, number?: number | null, terms?: readonly string[]): void {
    const at = number ?? null;
    const existing = this.panels.get(teamKey(ref));
    if (existing) {
      existing.reveal(at, null, [...(terms ?? [])]);
      return;
    }
    const panel = vscode.window.createWebviewPanel(VIEW_TYPE, "Transcript", vscode.ViewColumn.Active, {
      enableScripts: true,
      localResourceRoots: [vscode.Uri.joinPath(this.deps.extensionUri, "dist", "webview")],
    });
    this.track(panel, { builderId: ref.builderId, sessionId: null, number: at, teamEmail: ref.email }, [...(terms ?? [])]);
  }

  /** The (local) Builder of the transcript the user is looking at (the editor title's Ask and
   * Export: a teammate's is not in this store). */
  activeBuilder(): { id: string; label: string } | undefined {
    for (const p of this.panels.values()) if (p.panel.active && p.teamEmail === null) return { id: p.builderId, label: p.label() };
    return undefined;
  }

  /** The teammate's Builder of the transcript the user is looking at, if it is one. */
  activeTeam(): TeamRef | undefined {
    for (const p of this.panels.values()) if (p.panel.active && p.teamEmail !== null) return { builderId: p.builderId, email: p.teamEmail };
    return undefined;
  }

  private async panelFor(idOrPrefix: string, at: Landing, sessionId: string | null, quiet: boolean): Promise<TranscriptPanel> {
    let id = idOrPrefix;
    if (!this.panels.has(lineKey(id, sessionId))) {
      // a prefix or a session id: find the Builder's own id, so there is one panel per
      // Builder; two opens at once (a click, then Enter) share one look-up
      let lookup = this.resolving.get(idOrPrefix);
      if (!lookup) {
        const client = this.deps.client();
        if (!client) throw new Error("The lazy sidecar is not running.");
        lookup = client.request("builders/get", { id: idOrPrefix }).then((b) => b.id);
        this.resolving.set(idOrPrefix, lookup);
        void lookup.finally(() => this.resolving.delete(idOrPrefix)).catch(() => undefined);
      }
      id = await lookup;
    }
    const existing = this.panels.get(lineKey(id, sessionId));
    if (existing) {
      // the form's own pick reveals (and posts its range) itself
      if (!quiet) existing.reveal(at.number, sessionId, at.terms);
      return existing;
    }
    const panel = vscode.window.createWebviewPanel(VIEW_TYPE, "Transcript", vscode.ViewColumn.Active, {
      enableScripts: true,
      localResourceRoots: [vscode.Uri.joinPath(this.deps.extensionUri, "dist", "webview")],
    });
    return this.track(panel, { builderId: id, sessionId, number: at.number }, at.terms);
  }

  private track(panel: vscode.WebviewPanel, state: PanelState, terms: string[] = []): TranscriptPanel {
    const key = stateKey(state);
    const p = new TranscriptPanel(panel, state.builderId, state.sessionId, state.number, this.deps, terms, () => {
      if (this.panels.get(key) === p) this.panels.delete(key);
    }, state.teamEmail ?? null);
    this.panels.set(key, p);
    return p;
  }

  deserializeWebviewPanel(panel: vscode.WebviewPanel, raw: unknown): Thenable<void> {
    const state = parsePanelState(raw);
    if (!state) {
      this.deps.log.warn("a transcript panel without a usable state was not restored");
      panel.dispose();
      return Promise.resolve();
    }
    this.track(panel, state);
    return Promise.resolve();
  }

  /** The sidecar is back: every open panel reloads. */
  reloadAll(): void {
    for (const p of this.panels.values()) void p.init();
  }

  /** The sidecar went away: every open panel says so until it reloads. */
  sidecarDown(reason: string): void {
    for (const p of this.panels.values()) p.showDown(reason);
  }

  dispose(): void {
    for (const p of this.panels.values()) p.panel.dispose();
    this.panels.clear();
  }
}
