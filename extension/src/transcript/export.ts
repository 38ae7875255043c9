// Lazy: Export Builder…: the sidecar's export/builder (what `lazy export` writes: HTML, Markdown
// or JSON, secrets redacted) saved where the user says, then offered to open.
import * as path from "node:path";
import * as vscode from "vscode";
import type { ExportBuilderResult } from "../protocol";
import type { LazyClient } from "../protocol/client";

interface Format extends vscode.QuickPickItem {
  format: "html" | "md" | "json";
  ext: string;
}

const FORMATS: Format[] = [
  { label: "HTML", description: "one self-contained file, readable offline with JavaScript off", format: "html", ext: "html" },
  { label: "Markdown", description: "reads well on GitHub: tool calls folded, edits as diffs", format: "md", ext: "md" },
  { label: "JSON", description: "the message view, schema lazy.export/1", format: "json", ext: "json" },
];

/** A file name from a Builder's label: its words, nothing a path would read. */
export function exportName(label: string, ext: string): string {
  const words = label.replace(/[^\p{L}\p{N}]+/gu, "-").replace(/^-+|-+$/g, "").slice(0, 60);
  return `${words || "builder"}.${ext}`;
}

/** What the export said it did: the range and the secrets it took out. */
export function exportedMessage(r: ExportBuilderResult, file: string): string {
  const n = Object.values(r.redactions).reduce((a, b) => a + b, 0);
  const secrets = r.redacted ? `${n} secret${n === 1 ? "" : "s"} redacted` : "secrets NOT redacted";
  return `Exported messages ${r.first}–${r.last} of ${r.of} to ${file} (${secrets}).`;
}

export async function exportBuilder(client: LazyClient, builderId: string, label: string): Promise<void> {
  const pick = await vscode.window.showQuickPick(FORMATS, { title: `Export ${label}`, placeHolder: "The format to export to" });
  if (!pick) return;
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
  const save = await vscode.window.showSaveDialog({
    title: `Export ${label} as ${pick.label}`,
    defaultUri: folder ? vscode.Uri.joinPath(folder, exportName(label, pick.ext)) : undefined,
    filters: { [pick.label]: [pick.ext] },
  });
  if (!save) return;
  const result = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `Exporting ${label}…` },
    () => client.request("export/builder", { builder_id: builderId, format: pick.format }),
  );
  await vscode.workspace.fs.writeFile(save, new TextEncoder().encode(result.text));
  const open = await vscode.window.showInformationMessage(exportedMessage(result, path.basename(save.fsPath)), "Open");
  if (open) await vscode.commands.executeCommand("vscode.open", save);
}
