// "Name This Builder…": an alias the sidecar keeps in the session registry (scoped to the
// Builder's project); `lazy builder --resume <alias>` resumes it, and the tree shows it as the
// Builder's label. The sidecar checks the name; its refusal is shown as it says it.
import * as vscode from "vscode";
import { describeFailure, type LazyClient } from "../protocol/client";
import type { BuilderInfo } from "../protocol";

export async function nameBuilder(client: LazyClient, info: BuilderInfo): Promise<BuilderInfo | undefined> {
  const name = await vscode.window.showInputBox({
    title: `Name ${info.short_id}`,
    prompt: "An alias for `lazy builder --resume <alias>`: a letter, then letters, digits, _ . or - (64 at most). Empty removes it.",
    value: info.alias ?? "",
  });
  if (name === undefined) return undefined; // dismissed
  try {
    return await client.request("builders/name", { id: info.id, name: name.trim() || null });
  } catch (e) {
    void vscode.window.showErrorMessage(`Lazy: ${describeFailure(e)}`);
    return undefined;
  }
}
