// "Promote Selected Messages to Task…" in the transcript opened as text. The sidecar serves the
// action (textDocument/codeAction: "Promote messages N–M to task", its command lazy.promoteMessages
// with the range), but VS Code never asks for code actions in a read-only editor (no lightbulb,
// no Ctrl+., no Refactor…), and the transcript as text is read-only. So this command asks for
// them itself (vscode.executeCodeActionProvider) and offers what the sidecar offered.
import * as vscode from "vscode";
import { SCHEME } from "../transcript/asText";

export const PROMOTE_COMMAND = "lazy.promoteMessages";

type Offered = vscode.CodeAction | vscode.Command;

/** The sidecar's promote actions among what the providers offered, as commands to run. */
export function promoteActions(offered: readonly Offered[] | undefined): { title: string; command: vscode.Command }[] {
  const out: { title: string; command: vscode.Command }[] = [];
  for (const a of offered ?? []) {
    // a CodeAction carries its command in .command; a bare Command is its own
    const command = typeof a.command === "object" ? a.command : typeof a.command === "string" ? (a as vscode.Command) : undefined;
    if (command?.command === PROMOTE_COMMAND) out.push({ title: a.title, command });
  }
  return out;
}

export async function promoteSelection(editor: vscode.TextEditor | undefined): Promise<void> {
  if (!editor || editor.document.uri.scheme !== SCHEME) {
    void vscode.window.showInformationMessage("Lazy: open a transcript as text and select the messages to promote.");
    return;
  }
  const offered = await vscode.commands.executeCommand<Offered[] | undefined>(
    "vscode.executeCodeActionProvider",
    editor.document.uri,
    editor.selection,
    vscode.CodeActionKind.Refactor.value,
  );
  const actions = promoteActions(offered);
  if (actions.length === 0) {
    void vscode.window.showInformationMessage("Lazy: select text within the messages to promote (from one message's header to another's).");
    return;
  }
  const pick = await vscode.window.showQuickPick(
    actions.map((a) => ({ label: a.title, action: a })),
    { title: "Promote to a task", placeHolder: "Opens the transcript's promote form on this range" },
  );
  if (pick) await vscode.commands.executeCommand(pick.action.command.command, ...((pick.action.command.arguments ?? []) as unknown[]));
}
