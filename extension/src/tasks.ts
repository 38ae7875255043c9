// The Tasks view (the backlog: tasks promoted from ranges of Builders' messages, tasks/list)
// and "Promote Messages to Task…" (tasks/promote). Each field left empty falls back in the
// sidecar (goal from what the human said, code from the goal, prompt from the messages);
// the sidecar checks the range and refuses the exact same one, naming its task.
import * as vscode from "vscode";
import { describeFailure, type LazyClient } from "./client";
import type { BuilderInfo, Scope, Task, TasksPromoteResult } from "./protocol";

export class TasksProvider implements vscode.TreeDataProvider<Task> {
  private readonly emitter = new vscode.EventEmitter<Task | undefined>();
  readonly onDidChangeTreeData = this.emitter.event;
  private items: Task[] = [];

  constructor(
    private readonly client: () => LazyClient | undefined,
    private readonly scope: () => Scope,
  ) {}

  async refresh(): Promise<void> {
    const c = this.client();
    this.items = c ? (await c.request("tasks/list", this.scope())).items : [];
    this.emitter.fire(undefined);
  }

  getChildren(task?: Task): Task[] {
    return task ? [] : this.items;
  }

  getTreeItem(task: Task): vscode.TreeItem {
    const item = new vscode.TreeItem(task.code);
    item.id = `task:${task.code}`;
    item.description = `${task.goal} · #${task.from_message}–${task.to_message}`;
    item.tooltip = `${task.code} (${task.status})\n${task.goal}\n\nfrom ${task.builder_id.slice(0, 8)} #${task.from_message}–${task.to_message}\n\n${task.prompt}`;
    item.iconPath = new vscode.ThemeIcon("tasklist");
    item.contextValue = "task";
    // its source range, in the transcript
    item.command = { title: "Open Source Messages", command: "lazy.openTranscript", arguments: [task.builder_id, task.from_message] };
    return item;
  }

  dispose(): void {
    this.emitter.dispose();
  }
}

async function ask(prompt: string, placeHolder: string, validate?: (v: string) => string | undefined): Promise<string | undefined> {
  return vscode.window.showInputBox({ prompt, placeHolder, validateInput: validate, ignoreFocusOut: true });
}

const wholeNumber = (v: string): string | undefined => (/^\d+$/.test(v.trim()) && Number(v) >= 1 ? undefined : "a message number, from 1");

/** Asks for the range and the fields, promotes, and says what overlapped; undefined when
 * dismissed or refused (the refusal shown as the sidecar says it). */
export async function promoteMessages(client: LazyClient, info: BuilderInfo): Promise<TasksPromoteResult | undefined> {
  const from = await ask(`First message to promote (1–${info.message_count})`, "e.g. 12", wholeNumber);
  if (from === undefined) return undefined;
  const to = await ask(`Last message to promote (${from}–${info.message_count})`, "e.g. 18", wholeNumber);
  if (to === undefined) return undefined;
  const goal = await ask("Goal (empty: from what the human said in the range)", "");
  if (goal === undefined) return undefined;
  const code = await ask("Code (empty: from the goal)", "");
  if (code === undefined) return undefined;
  const parent = await ask("Parent task's code (empty: none)", "");
  if (parent === undefined) return undefined;
  try {
    const r = await client.request("tasks/promote", {
      builder_id: info.id,
      from_message: Number(from),
      to_message: Number(to),
      goal: goal.trim() || null,
      code: code.trim() || null,
      parent: parent.trim() || null,
    });
    const overlap = r.overlapping.map((t) => `${t.code} (#${t.from_message}–${t.to_message})`).join(", ");
    void vscode.window.showInformationMessage(
      `Lazy: task ${r.task.code} is in the backlog${overlap ? `; it shares messages with ${overlap}` : ""}.`,
    );
    return r;
  } catch (e) {
    void vscode.window.showErrorMessage(`Lazy: ${describeFailure(e)}`);
    return undefined;
  }
}
