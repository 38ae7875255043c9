// Lazy: Search Conversations — a QuickPick that asks search/query as the user types
// (debounced, each new query cancelling the one in flight) and opens the transcript at the
// chosen message, with what the query matched there to highlight.
import * as path from "node:path";
import * as vscode from "vscode";
import { describeFailure, isCancellation, rpcFailure, type LazyClient } from "../protocol/client";
import { ErrorCode, isRecord, type Scope, type SearchResults } from "../protocol";
import { plainText } from "../text";
import { relativeTime } from "../time";
import { agentIcon } from "../agents";

export interface SearchTarget {
  builderId: string;
  number: number;
  sessionId: string | null;
  /** What the query matched in that message, to highlight where it opens. */
  terms: string[];
}

export interface SearchItem extends vscode.QuickPickItem {
  target?: SearchTarget;
}

export interface SearchDeps {
  client: () => LazyClient | undefined;
  scope: () => Scope;
  open: (target: SearchTarget) => void;
  log?: vscode.LogOutputChannel;
  debounceMs?: number;
  limit?: number;
}

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

export class SearchController implements vscode.Disposable {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private inflight: vscode.CancellationTokenSource | undefined;
  private readonly disposables: vscode.Disposable[] = [];
  /** Settles when the latest query's answer has been shown (for tests and callers). */
  lastRun: Promise<void> = Promise.resolve();

  constructor(
    readonly pick: vscode.QuickPick<SearchItem>,
    private readonly deps: SearchDeps,
  ) {
    pick.placeholder = "Search conversations (lazy search syntax: words, \"phrases\", role:user, tool:codex …)";
    pick.matchOnDescription = false;
    pick.matchOnDetail = false;
    this.disposables.push(
      pick.onDidChangeValue((v) => { this.onInput(v); }),
      pick.onDidAccept(() => { this.accept(); }),
      pick.onDidHide(() => { this.dispose(); }),
    );
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
    try {
      const r = await client.request(
        "search/query",
        { ...this.deps.scope(), query, limit: this.deps.limit ?? 20 },
        cts.token,
      );
      if (cts.token.isCancellationRequested) return;
      const items = searchItems(r);
      this.pick.title = `${r.total_hits} hit${r.total_hits === 1 ? "" : "s"} in ${r.groups.length} conversation${r.groups.length === 1 ? "" : "s"}`;
      this.pick.items = items.length > 0 ? items : [{ label: "No matches", alwaysShow: true }];
    } catch (e) {
      if (cts.token.isCancellationRequested || isCancellation(e)) return;
      const f = rpcFailure(e);
      if (f.code === ErrorCode.BadQuery) {
        const part = isRecord(f.data) && typeof f.data.part === "string" ? f.data.part : undefined;
        this.showError(f.message, part);
      } else {
        this.deps.log?.error(`search/query: ${describeFailure(e)}`);
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
    const target = this.pick.selectedItems[0]?.target;
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
