// Lazy: Open Builder… — quick open for Builders: the loaded ones to pick by name (alias,
// summary), id or project, and whatever is typed — an id, a session id, a unique prefix or
// an alias (`lazy alias`, Name This Builder…) — opened as it is: the sidecar resolves it
// (aliases.named.resolve_named behind builders/get). A name several Builders answer to
// offers them to pick from.
import * as path from "node:path";
import * as vscode from "vscode";
import { agentIcon } from "../agents";
import { ErrorCode, isRecord, type BuilderInfo } from "../protocol";
import { describeFailure, rpcFailure } from "../protocol/client";
import { formatTimestamp } from "../time";
import { builderLabel } from "./builders";
import { escapeIcons } from "./search";

export interface OpenItem extends vscode.QuickPickItem {
  /** What builders/get is asked for: a Builder's id, or the text typed. */
  ident: string;
}

export interface OpenDeps {
  /** The Builders the tree has loaded, newest first. */
  builders: () => readonly BuilderInfo[];
  /** Open the transcript of an id, prefix or alias (rejects with the sidecar's error). */
  open: (ident: string) => Promise<void>;
  log?: vscode.LogOutputChannel;
}

export function builderItem(b: BuilderInfo): OpenItem {
  const where = [b.alias ? b.short_id : "", b.project ? path.basename(b.project) : "", formatTimestamp(b.started_at)];
  return {
    ident: b.id,
    label: `$(${agentIcon(b.tool)}) ${escapeIcons(builderLabel(b))}`,
    description: escapeIcons(where.filter(Boolean).join(" · ")),
    // matched too: a full id pasted finds its row
    detail: b.alias ? undefined : b.id,
  };
}

/** The rows for `typed`: the loaded Builders (VS Code filters them by label, description
 * and detail; Enter opens the best match), then "Open …" of the typed text as it is, for a
 * Builder not loaded (another project's alias, an id pasted). */
export function openItems(loaded: readonly BuilderInfo[], typed: string): OpenItem[] {
  const t = typed.trim();
  const asTyped: OpenItem[] = t
    ? [{ ident: t, label: `$(arrow-right) Open “${escapeIcons(t)}”`, description: "an id, a session id, a prefix or an alias", alwaysShow: true }]
    : [];
  return [...loaded.map(builderItem), ...asTyped];
}

/** The Builders a name or prefix answers to, from the sidecar's Ambiguous error. */
export function candidatesOf(e: unknown): OpenItem[] | undefined {
  const f = rpcFailure(e);
  if (f.code !== ErrorCode.Ambiguous || !isRecord(f.data) || !Array.isArray(f.data.candidates)) return undefined;
  return f.data.candidates.filter(isRecord).flatMap((c) =>
    typeof c.id === "string"
      ? [{
          ident: c.id,
          label: escapeIcons(typeof c.summary === "string" && c.summary.trim() ? c.summary.replace(/\s+/g, " ").slice(0, 100) : c.id),
          description: escapeIcons([c.id.slice(0, 8), formatTimestamp(typeof c.started_at === "string" ? c.started_at : null)].filter(Boolean).join(" · ")),
        }]
      : [],
  );
}

/** Open what was picked; a name several Builders answer to asks which. */
export async function openPicked(deps: OpenDeps, ident: string): Promise<void> {
  try {
    await deps.open(ident);
  } catch (e) {
    const candidates = candidatesOf(e);
    if (candidates) {
      const pick = await vscode.window.showQuickPick(candidates, { title: `“${ident}” names ${candidates.length} Builders`, placeHolder: "Pick one" });
      if (pick) await openPicked(deps, pick.ident);
      return;
    }
    const f = rpcFailure(e);
    const why = f.code === ErrorCode.NotFound ? `no Builder is named “${ident}” (an id, a session id, a prefix or an alias)` : describeFailure(e);
    deps.log?.warn(`open builder ${JSON.stringify(ident)}: ${describeFailure(e)}`);
    void vscode.window.showErrorMessage(`Lazy: ${why}`);
  }
}

export function showOpenBuilder(deps: OpenDeps): vscode.QuickPick<OpenItem> {
  const pick = vscode.window.createQuickPick<OpenItem>();
  pick.title = "Open Builder";
  pick.placeholder = "A Builder's alias, id, session id or a prefix of one — or pick one below";
  pick.matchOnDescription = true;
  pick.matchOnDetail = true;
  pick.items = openItems(deps.builders(), "");
  pick.onDidChangeValue((v) => { pick.items = openItems(deps.builders(), v); });
  pick.onDidAccept(() => {
    const chosen = pick.selectedItems[0] ?? pick.activeItems[0];
    if (!chosen) return;
    pick.hide();
    void openPicked(deps, chosen.ident);
  });
  pick.onDidHide(() => { pick.dispose(); });
  pick.show();
  return pick;
}
