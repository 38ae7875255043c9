// The Tasks view: the backlog, tasks promoted from ranges of Builders' messages (tasks/list);
// empty, its welcome (package.json) says what a task is and how to promote one.
// Promoting happens in the transcript's form (promote/form.ts, webview/promote.ts).
import * as vscode from "vscode";
import { registerCommands, type Ctx } from "../ctx";
import type { LazyClient } from "../protocol/client";
import type { Scope, Task } from "../protocol";

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
    let known = false; // its welcome (what a task is, how to promote one) for a known empty backlog
    try {
      this.items = c ? (await c.request("tasks/list", this.scope())).items : [];
      known = c !== undefined;
    } finally {
      void vscode.commands.executeCommand("setContext", "lazy.noTasks", known && this.items.length === 0);
    }
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

/** The Tasks view and its refresh. */
export function registerTasksView(ctx: Ctx): vscode.Disposable[] {
  return [
    vscode.window.createTreeView("lazy.tasks", { treeDataProvider: ctx.tasks }),
    ...registerCommands(ctx, [["lazy.tasks.refresh", () => () => { ctx.refreshTasks(); }]]),
  ];
}
