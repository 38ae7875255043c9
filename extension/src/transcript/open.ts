// What the transcript page may ask the extension to open, checked here whatever the page
// says: an http(s) address (through VS Code's openExternal, which asks before it leaves for an
// untrusted site), a file inside a workspace folder (in an editor), an attachment's session
// source file (lazy keeps an image's size and digest, not its bytes).
import * as fs from "node:fs/promises";
import * as path from "node:path";
import * as vscode from "vscode";
import type { LazyClient } from "../protocol/client";
import { linkTarget } from "./links";

/** Whether file is folder or inside it (both absolute, resolved). */
export function insideFolder(file: string, folder: string): boolean {
  const rel = path.relative(folder, file);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
}

async function real(p: string): Promise<string | undefined> {
  try {
    return await fs.realpath(p);
  } catch {
    return undefined;
  }
}

/** The real path of p (absolute, or relative to the Builder's project or a folder) when it is a
 * file inside one of the folders, symbolic links followed; else undefined. */
export async function workspaceFile(p: string, folders: readonly string[], project: string | null): Promise<string | undefined> {
  const roots = (await Promise.all(folders.map(real))).filter((f): f is string => f !== undefined);
  if (roots.length === 0 || p.includes("\0")) return undefined;
  const bases = path.isAbsolute(p) ? [""] : [project ?? "", ...folders].filter(Boolean);
  for (const base of bases) {
    const file = await real(base ? path.resolve(base, p) : path.resolve(p));
    if (!file || !roots.some((r) => insideFolder(file, r))) continue;
    const stat = await fs.stat(file).catch(() => undefined);
    if (stat?.isFile()) return file;
  }
  return undefined;
}

function folderPaths(): string[] {
  return (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath);
}

export async function openLink(url: string, log: vscode.LogOutputChannel): Promise<void> {
  const target = linkTarget(url);
  if (target.kind !== "web") {
    log.warn(`transcript webview: refused to open ${JSON.stringify(url.slice(0, 200))}`);
    return;
  }
  await vscode.env.openExternal(vscode.Uri.parse(target.url));
}

export async function openFile(p: string, line: number | null, project: string | null): Promise<void> {
  const file = await workspaceFile(p, folderPaths(), project);
  if (!file) {
    void vscode.window.showInformationMessage(`Lazy: “${p.slice(0, 300)}” is not a file in this workspace's folders, so it was not opened.`);
    return;
  }
  const at = line ? new vscode.Range(line - 1, 0, line - 1, 0) : undefined;
  await vscode.window.showTextDocument(vscode.Uri.file(file), { preview: true, ...(at ? { selection: at } : {}) });
}

const NOT_KEPT = "Lazy keeps an attachment's kind, size and digest, not its bytes";

/** An attachment's "Open source": the session file the agent recorded it in, or why not. */
export async function openMedia(client: LazyClient, builderId: string, sessionId: string): Promise<void> {
  const { files } = await client.request("builders/sources", { id: builderId });
  const file = files.find((f) => f.session_id === sessionId && f.exists) ?? files.find((f) => f.exists);
  if (!file) {
    void vscode.window.showInformationMessage(`${NOT_KEPT}, and the agent's session file is gone.`);
    return;
  }
  const pick = await vscode.window.showInformationMessage(`${NOT_KEPT}. The agent's session file holds it: ${file.path}`, "Open Source File");
  if (pick) await vscode.window.showTextDocument(vscode.Uri.file(file.path), { preview: true });
}
