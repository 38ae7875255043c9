// Lazy: Search Conversations — a QuickPick that asks search/query as the user types
// (debounced, each new query cancelling the one in flight) and opens the transcript at the
// chosen message, with what the query matched there to highlight. On a machine that joined a
// team, a button of the pick switches it to the team's Builders (team/search) and back; a team
// hit opens the teammate's transcript, read-only, at its message.
import * as path from "node:path";
import * as vscode from "vscode";
import { describeFailure, isCancellation, rpcFailure, type LazyClient } from "../protocol/client";
import { ErrorCode, ErrorCodes, isRecord, type Scope, type SearchResults, type TeamSearchResult } from "../protocol";
import { hitTerms, plainText } from "../text";
import { relativeTime } from "../time";
import { agentIcon } from "../agents";

export interface SearchTarget {
  builderId: string;
  number: number;
  sessionId: string | null;
  /** What the query matched in that message, to highlight where it opens. */
  terms: string[];
}

/** A team hit: a teammate's Builder (its member's email with its id) at a message. */
export interface TeamSearchTarget {
  builderId: string;
  email: string;
  number: number;
  terms: string[];
}

export interface SearchItem extends vscode.QuickPickItem {
  target?: SearchTarget;
  teamTarget?: TeamSearchTarget;
}

export interface TeamSearchDeps {
  /** Whether this machine joined a team (team/status): the toggle is offered only then. */
  joined: () => Promise<boolean>;
  open: (target: TeamSearchTarget) => void;
}

export interface SearchDeps {
  client: () => LazyClient | undefined;
  scope: () => Scope;
  open: (target: SearchTarget) => void;
  /** The team's side; without it the pick searches this machine only, with no toggle. */
  team?: TeamSearchDeps;
  log?: vscode.LogOutputChannel;
  debounceMs?: number;
  limit?: number;
}

const LOCAL_PLACEHOLDER = "Search conversations (lazy search syntax: words, \"phrases\", role:user, tool:codex …)";
const TEAM_PLACEHOLDER = "Search the team's Builders (words, \"phrases\")";

/** The toggle, as it shows what a click switches to. */
export const TEAM_BUTTON_TOOLTIP = "Search the team";
export const LOCAL_BUTTON_TOOLTIP = "Search this machine";

/** QuickPick renders $(icon) in labels, descriptions and details: agent text must not. */
export function escapeIcons(s: string): string {
  return s.replace(/(\\)?\$\([a-z0-9-]+?(?:~[a-z0-9-]*?)?\)/gi, (m: string, escaped?: string) => (escaped ? m : `\\${m}`));
}

function oneLine(s: string, max: number): string {
  const t = plainText(s).replace(/\s+/g, " ").trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

export function searchItems(r: SearchResults, now: Date = new Date()): SearchItem[] {
  const items: SearchItem[] = [];
  for (const g of r.groups) {
    items.push({
      label: escapeIcons(oneLine(g.summary, 80) || g.short_id),
      kind: vscode.QuickPickItemKind.Separator,
    });
    const where = [g.project ? path.basename(g.project) : "", relativeTime(g.started_at, now), g.short_id]
      .filter(Boolean)
      .join(" · ");
    for (const h of g.hits) {
      const sidechain = h.sidechain ? " (subagent)" : "";
      if (!g.builder_id) {
        // a memory of no conversation (Claude Code's harness memory): shown, nothing to open
        items.push({
          label: `$(note) ${escapeIcons(h.memory_path ?? "memory")}`,
          description: escapeIcons(`lazy get ${h.memory_path ?? ""}`),
          detail: escapeIcons(oneLine(h.snippet, 200)),
          alwaysShow: true,
        });
        continue;
      }
      items.push({
        label: `$(${agentIcon(g.tool)}) #${h.number} ${escapeIcons(h.role)}${sidechain}`,
        description: escapeIcons(`${oneLine(g.summary, 60)} — ${where}`),
        detail: escapeIcons(oneLine(h.snippet, 200)),
        alwaysShow: true,
        target: {
          builderId: g.builder_id,
          number: h.number,
          // a hit in a subagent's line opens that line; the Builder's own sessions are one line
          sessionId: h.sidechain ? h.session_id : null,
          terms: h.terms ?? [],
        },
      });
    }
  }
  return items;
}

/** Team hits, one item each: who, which project and which message, the Builder's title, the
 * snippet; every field the teammate's text, so plain and with no icons of its own. */
export function teamSearchItems(r: TeamSearchResult, now: Date = new Date()): SearchItem[] {
  return r.hits.map((h) => ({
    label: `$(organization) ${escapeIcons(oneLine(h.member, 40))} · ${escapeIcons(oneLine(h.project, 60))} · #${h.number}`,
    description: escapeIcons([oneLine(h.title, 60), h.role, relativeTime(h.at, now)].filter(Boolean).join(" · ")),
    detail: escapeIcons(oneLine(h.snippet, 200)),
    alwaysShow: true,
    teamTarget: { builderId: h.builder_id, email: h.email, number: h.number, terms: hitTerms(h.snippet, h.marks) },
  }));
}

interface Answer {
  title: string;
  items: SearchItem[];
}

function plural(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? "" : "s"}`;
}

export class SearchController implements vscode.Disposable {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private inflight: vscode.CancellationTokenSource | undefined;
  private readonly disposables: vscode.Disposable[] = [];
  /** Searching the team (the toggle on), else this machine. */
  private onTeam = false;
  /** Settles when the latest query's answer has been shown (for tests and callers). */
  lastRun: Promise<void> = Promise.resolve();
  /** Settles once the pick knows whether to offer the team toggle. */
  readonly teamOffered: Promise<void> = Promise.resolve();

  constructor(
    readonly pick: vscode.QuickPick<SearchItem>,
    private readonly deps: SearchDeps,
  ) {
    pick.placeholder = LOCAL_PLACEHOLDER;
    pick.matchOnDescription = false;
    pick.matchOnDetail = false;
    this.disposables.push(
      pick.onDidChangeValue((v) => { this.onInput(v); }),
      pick.onDidAccept(() => { this.accept(); }),
      pick.onDidHide(() => { this.dispose(); }),
    );
    if (deps.team) {
      this.disposables.push(pick.onDidTriggerButton(() => { this.toggleTeam(); }));
      this.teamOffered = this.offerTeam(deps.team);
    }
  }

  get searchesTeam(): boolean {
    return this.onTeam;
  }

  private async offerTeam(team: TeamSearchDeps): Promise<void> {
    try {
      if (await team.joined()) this.pick.buttons = [this.teamButton()];
    } catch (e) {
      this.deps.log?.warn(`team/status (for search): ${describeFailure(e)}`);
    }
  }

  private teamButton(): vscode.QuickInputButton {
    return this.onTeam
      ? { iconPath: new vscode.ThemeIcon("device-desktop"), tooltip: LOCAL_BUTTON_TOOLTIP }
      : { iconPath: new vscode.ThemeIcon("organization"), tooltip: TEAM_BUTTON_TOOLTIP };
  }

  /** The toggle: the other side, and the query typed so far asked there at once. */
  toggleTeam(): void {
    this.onTeam = !this.onTeam;
    this.pick.buttons = [this.teamButton()];
    this.pick.placeholder = this.onTeam ? TEAM_PLACEHOLDER : LOCAL_PLACEHOLDER;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.inflight?.cancel();
    this.pick.items = [];
    this.pick.title = undefined;
    if (this.pick.value.trim()) this.lastRun = this.run(this.pick.value);
  }

  onInput(value: string): void {
    if (this.timer) clearTimeout(this.timer);
    this.inflight?.cancel();
    if (!value.trim()) {
      this.pick.items = [];
      this.pick.busy = false;
      this.pick.title = undefined;
      return;
    }
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.lastRun = this.run(value);
    }, this.deps.debounceMs ?? 250);
  }

  async run(query: string): Promise<void> {
    this.inflight?.cancel();
    const cts = new vscode.CancellationTokenSource();
    this.inflight = cts;
    const client = this.deps.client();
    if (!client) {
      this.showError("The lazy sidecar is not running.", undefined, "Search unavailable");
      return;
    }
    this.pick.busy = true;
    const team = this.onTeam;
    try {
      const answer = team ? await this.askTeam(client, query, cts.token) : await this.askLocal(client, query, cts.token);
      if (cts.token.isCancellationRequested) return;
      this.pick.title = answer.title;
      this.pick.items = answer.items.length > 0 ? answer.items : [{ label: "No matches", alwaysShow: true }];
    } catch (e) {
      if (cts.token.isCancellationRequested || isCancellation(e)) return;
      const f = rpcFailure(e);
      if (!team && f.code === ErrorCode.BadQuery) {
        const part = isRecord(f.data) && typeof f.data.part === "string" ? f.data.part : undefined;
        this.showError(f.message, part);
      } else if (team && f.code === ErrorCodes.TEAM_FAILED) {
        // the server's own sentence (unreachable, no rights, a query it refused): enough
        this.deps.log?.warn(`team/search: ${describeFailure(e)}`);
        this.showError(f.message, undefined, "Team search failed");
      } else {
        this.deps.log?.error(`${team ? "team/search" : "search/query"}: ${describeFailure(e)}`);
        this.showError(describeFailure(e), undefined, "Search failed");
      }
    } finally {
      if (this.inflight === cts) {
        this.pick.busy = false;
        this.inflight = undefined;
      }
      cts.dispose();
    }
  }

  private async askLocal(client: LazyClient, query: string, token: vscode.CancellationToken): Promise<Answer> {
    const r = await client.request("search/query", { ...this.deps.scope(), query, limit: this.deps.limit ?? 20 }, token);
    return { title: `${plural(r.total_hits, "hit")} in ${plural(r.groups.length, "conversation")}`, items: searchItems(r) };
  }

  private async askTeam(client: LazyClient, query: string, token: vscode.CancellationToken): Promise<Answer> {
    const r = await client.request("team/search", { query, limit: this.deps.limit ?? 20 }, token);
    return { title: `${plural(r.hits.length, "hit")} on the team`, items: teamSearchItems(r) };
  }

  private showError(message: string, part: string | undefined, title = "Bad query"): void {
    this.pick.title = `${title}: ${oneLine(message, 100)}`;
    this.pick.items = [
      {
        label: `$(error) ${escapeIcons(oneLine(message, 120))}`,
        detail: part ? escapeIcons(`near “${oneLine(part, 80)}”`) : undefined,
        alwaysShow: true,
      },
    ];
  }

  private accept(): void {
    const item = this.pick.selectedItems[0];
    const { target, teamTarget } = item ?? {};
    if (teamTarget && this.deps.team) {
      this.pick.hide();
      this.deps.team.open(teamTarget);
      return;
    }
    if (!target) return; // a message row (error, no matches): nothing to open
    this.pick.hide();
    this.deps.open(target);
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.inflight?.cancel();
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}

export function showSearch(deps: SearchDeps, initial = ""): SearchController {
  const pick = vscode.window.createQuickPick<SearchItem>();
  const controller = new SearchController(pick, deps);
  pick.onDidHide(() => { pick.dispose(); });
  pick.value = initial;
  pick.show();
  if (initial) controller.onInput(initial);
  return controller;
}
