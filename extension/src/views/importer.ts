// Lazy: Import Conversations — preview what is new, confirm (nothing writes silently,
// invariant 5), run with the sidecar's progress in one cancellable notification, summarize.
import * as vscode from "vscode";
import { describeFailure, isCancellation, type LazyClient } from "../protocol/client";
import type { ImportReport, ImportResult, Scope } from "../protocol";
import { withRequestProgress, type NotificationProgress } from "../sidecar/progress";
import type { ProgressSource, ProgressValue } from "../sidecar/sidecar";
import { agentName } from "../agents";

export type ImportOutcome = "nothing" | "declined" | "done" | "cancelled" | "failed";

export interface ImportDeps {
  client: LazyClient;
  scope: () => Scope;
  progress?: ProgressSource;
  log: vscode.LogOutputChannel;
}

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

function sum(r: ImportResult, f: (x: ImportReport) => number): number {
  return Object.values(r.reports).reduce((a, x) => a + f(x), 0);
}

export function previewLines(r: ImportResult): string[] {
  return Object.entries(r.reports).map(([agent, x]) => {
    const parts = [`${x.missing ?? 0} new`, `${x.already_imported ?? 0} already imported`];
    if (x.ignored_oneshots) parts.push(plural(x.ignored_oneshots, "one-shot") + " ignored");
    return `${agentName(agent)}: ${parts.join(", ")}`;
  });
}

export function summarize(r: ImportResult): { message: string; problems: string[] } {
  const imported = sum(r, (x) => x.imported?.length ?? 0);
  const updated = sum(r, (x) => x.updated?.length ?? 0);
  const messages = sum(r, (x) => x.messages_added ?? 0);
  const problems: string[] = [];
  for (const [agent, x] of Object.entries(r.reports)) {
    for (const s of x.skipped ?? []) problems.push(`${agent}: skipped ${s.path}: ${s.reason}`);
    for (const s of x.refused ?? []) problems.push(`${agent}: refused ${s.path}: ${s.reason}`);
    for (const q of x.quarantined ?? []) problems.push(`${agent}: quarantined ${q.file}:${q.line}: ${q.reason}`);
  }
  const head = r.cancelled ? "Import cancelled; until then: " : "Imported ";
  let message = `${head}${plural(imported, "new conversation")}, ${updated} updated, ${plural(messages, "message")} added.`;
  if (problems.length > 0) message += ` ${plural(problems.length, "problem")} (see the log).`;
  return { message, problems };
}

/** The sidecar's percentage as the notification's increments. */
function showPercentage(progress: NotificationProgress): (v: ProgressValue) => void {
  let last = 0;
  return (v) => {
    if (v.kind === "end") return;
    const pct = v.percentage ?? last;
    progress.report({ message: v.message, increment: Math.max(0, pct - last) });
    last = Math.max(last, pct);
  };
}

export async function importConversations(deps: ImportDeps): Promise<ImportOutcome> {
  const client = deps.client;
  const scope = deps.scope();
  let preview: ImportResult;
  try {
    preview = await client.request("import/preview", scope);
  } catch (e) {
    deps.log.error(`import/preview: ${describeFailure(e)}`);
    void vscode.window.showErrorMessage(`Lazy: could not look for conversations: ${describeFailure(e)}`);
    return "failed";
  }
  const fresh = sum(preview, (x) => x.missing ?? 0);
  const where = scope.all_projects ? "in all projects" : "for this workspace";
  if (fresh === 0) {
    const known = sum(preview, (x) => x.already_imported ?? 0);
    void vscode.window.showInformationMessage(
      `Lazy: no new conversations ${where} (${plural(known, "conversation")} already imported).`,
    );
    return "nothing";
  }
  const choice = await vscode.window.showInformationMessage(
    `Import ${plural(fresh, "new conversation")} ${where}?`,
    { modal: true, detail: previewLines(preview).join("\n") },
    "Import",
  );
  if (choice !== "Import") return "declined";

  let result: ImportResult | undefined;
  try {
    // cancelling sends $/cancelRequest, and the sidecar answers with what it imported until
    // then, marked cancelled
    result = await withRequestProgress("Lazy: importing conversations", deps.progress, showPercentage, (token) =>
      client.request("import/run", scope, token),
    );
  } catch (e) {
    if (isCancellation(e)) {
      void vscode.window.showInformationMessage("Lazy: import cancelled.");
      return "cancelled";
    }
    deps.log.error(`import/run: ${describeFailure(e)}`);
    void vscode.window.showErrorMessage(`Lazy: import failed: ${describeFailure(e)}`);
    return "failed";
  }
  const { message, problems } = summarize(result);
  for (const p of problems) deps.log.warn(p);
  deps.log.info(message);
  if (problems.length > 0) {
    void vscode.window.showWarningMessage(`Lazy: ${message}`, "Show Log").then((pick) => {
      if (pick) deps.log.show();
    });
  } else {
    void vscode.window.showInformationMessage(`Lazy: ${message}`);
  }
  return result.cancelled ? "cancelled" : "done";
}
