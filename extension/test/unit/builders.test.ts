import * as assert from "node:assert/strict";
import type * as vscode from "vscode";
import * as fs from "node:fs";
import * as path from "node:path";
import { ALL_PROJECTS_KEY, BuildersProvider, PAGE_SIZE, type Node } from "../../src/views/builders";
import type { BuilderInfo, BuildersListParams } from "../../src/protocol";
import { builder, FakeClient, FakeMemento, sleep } from "../fakes";
import { calls, resetMock, TreeItemCollapsibleState, Uri } from "../mocks/vscode";

/** The last value a context key was set to (setContext), undefined if never. */
function contextValue(key: string): unknown {
  return calls.filter((c) => c.method === "commands.executeCommand" && c.args[0] === "setContext" && c.args[1] === key).at(-1)?.args[2];
}

/** A sidecar with `n` Builders, paged by cursor = index of the next item. */
function pagedClient(items: BuilderInfo[], allItems: BuilderInfo[] = items): FakeClient {
  return new FakeClient().on("builders/list", (p: BuildersListParams) => {
    const source = p.all_projects ? allItems : items;
    const start = p.cursor ? Number(p.cursor) : 0;
    const end = start + (p.limit ?? 50);
    return { items: source.slice(start, end), next_cursor: end < source.length ? String(end) : null };
  });
}

function provider(client: FakeClient, store = new FakeMemento(), folders = ["/ws/app", "/ws/lib"]) {
  return new BuildersProvider({ client: () => client, workspaceFolders: () => folders, store, debounceMs: 5 });
}

async function labels(p: BuildersProvider, node?: Node): Promise<string[]> {
  const children = await p.getChildren(node);
  return children.map((c) => p.getTreeItem(c).label as string);
}

describe("Builders tree", () => {
  beforeEach(resetMock);

  it("groups by project, workspace projects first in folder order", async () => {
    const items = [
      builder("b1", { project: "/elsewhere/x" }),
      builder("b1b", { project: "/elsewhere/x" }),
      builder("b2", { project: "/ws/lib" }),
      builder("b2b", { project: "/ws/lib" }),
      builder("b3", { project: "/ws/app/sub" }),
      builder("b3b", { project: "/ws/app/sub" }),
      builder("b4", { project: "/ws/app" }),
      builder("b4b", { project: "/ws/app" }),
      builder("b5", { project: null }),
      builder("b5b", { project: null }),
    ];
    const p = provider(pagedClient(items));
    assert.deepEqual(await labels(p), ["sub", "app", "lib", "x", "(no project)"]);
    const roots = await p.getChildren();
    const app = roots.find((n) => n.kind === "project" && n.project === "/ws/app")!;
    assert.deepEqual(await labels(p, app), ["summary of b4", "summary of b4b"]);
    assert.equal(p.getTreeItem(app).collapsibleState, TreeItemCollapsibleState.Expanded);
  });

  it("shows a project of one Builder as that Builder at the top, its project in its description", async () => {
    const items = [
      builder("solo", { project: "/ws/lib", message_count: 4 }),
      builder("a1", { project: "/ws/app" }),
      builder("a2", { project: "/ws/app" }),
      builder("lone", { project: null, message_count: 1 }),
    ];
    const p = provider(pagedClient(items), new FakeMemento(), ["/ws/app", "/ws/lib"]);
    const roots = await p.getChildren();
    // in project order (workspace folders first), a folder only for the project of two
    assert.deepEqual(roots.map((n) => n.kind), ["project", "builder", "builder"]);
    assert.deepEqual(await labels(p), ["app", "summary of solo", "summary of lone"]);
    const solo = p.getTreeItem(roots[1]!);
    assert.match(String(solo.description), /^lib · .* · 4 msgs$/);
    assert.match(String(p.getTreeItem(roots[2]!).description), /^\(no project\) · .* · 1 msg$/);
    assert.equal(p.getParent(roots[1]!), undefined, "a top-level Builder has no parent (reveal finds it)");
    // in a folder, a Builder's description does not repeat the project
    const inApp = await p.getChildren(roots[0]);
    assert.doesNotMatch(String(p.getTreeItem(inApp[0]!).description), /app/);
    assert.equal(p.getParent(inApp[0]!), roots[0]);
  });

  it("marks each Builder with its agent's own icon, light and dark", async () => {
    const items = [builder("c1", { tool: "claude" }), builder("x1", { tool: "codex" }), builder("o1", { tool: "opencode" }),
      builder("u1", { tool: "someday" })];
    const p = new BuildersProvider({ client: () => pagedClient(items), workspaceFolders: () => ["/ws/app"], store: new FakeMemento(),
      extensionUri: Uri.file("/ext") as unknown as vscode.Uri });
    const [group] = await p.getChildren();
    const icons = (await p.getChildren(group)).map((n) => p.getTreeItem(n).iconPath as { light: Uri; dark: Uri } | vscode.ThemeIcon);
    const paths = icons.slice(0, 3).map((i) => "light" in i ? [i.light.path, i.dark.path] : []);
    assert.deepEqual(paths, ["claude", "codex", "opencode"].map((a) => [`/ext/media/agents/${a}-light.svg`, `/ext/media/agents/${a}-dark.svg`]));
    for (const [light, dark] of paths) {
      assert.ok(fs.existsSync(path.join(__dirname, "..", "..", light!.slice("/ext/".length))), light);
      assert.ok(fs.existsSync(path.join(__dirname, "..", "..", dark!.slice("/ext/".length))), dark);
    }
    assert.equal((icons[3] as vscode.ThemeIcon).id, "comment-discussion", "an agent lazy does not know: a codicon");
  });

  it("says an empty workspace has none while other projects have some, and offers them", async () => {
    const everyone = [builder("z9", { project: "/other" }), builder("z8", { project: "/other" }), builder("y1", { project: "/third" })];
    const client = new FakeClient().on("builders/list", (q: BuildersListParams) =>
      q.all_projects ? { items: everyone.slice(0, q.limit ?? 50), next_cursor: null, total: everyone.length } : { items: [], next_cursor: null, total: 0 });
    const messages: (string | undefined)[] = [];
    const p = provider(client);
    p.onDidChangeMessage((m) => messages.push(m));
    const roots = await p.getChildren();
    assert.equal(p.message, "No conversations for this workspace; 3 in other projects.");
    assert.deepEqual(messages, [p.message]);
    assert.deepEqual(roots.map((n) => p.getTreeItem(n).label), ["Show All Projects"]);
    assert.equal(p.getTreeItem(roots[0]!).command?.command, "lazy.toggleAllProjects");
    assert.equal(contextValue("lazy.emptyWorkspace"), true);
    assert.equal(contextValue("lazy.empty"), false, "not the welcome of a store with nothing in it");
    assert.deepEqual(client.callsOf("builders/list").map((c) => (c.params as BuildersListParams).all_projects), [false, true]);
    await p.setAllProjects(true);
    assert.equal(p.message, undefined);
    assert.deepEqual(messages.at(-1), undefined);
    assert.deepEqual(await labels(p), ["other", "summary of y1"]);
    assert.equal(contextValue("lazy.emptyWorkspace"), false);
  });

  it("says the store is empty (the Import welcome) when no project has any", async () => {
    const client = new FakeClient().on("builders/list", () => ({ items: [], next_cursor: null, total: 0 }));
    const p = provider(client);
    assert.deepEqual(await p.getChildren(), []);
    assert.equal(p.message, undefined);
    assert.equal(contextValue("lazy.empty"), true);
    assert.equal(contextValue("lazy.emptyWorkspace"), false);
  });

  it("keeps the scope the user picked for the workspace", async () => {
    const mine = [builder("a1"), builder("a2")];
    const everyone = [builder("z9", { project: "/other" }), ...mine];
    const workspaceStore = new FakeMemento();
    const p = new BuildersProvider({ client: () => pagedClient(mine, everyone), workspaceFolders: () => ["/ws/app"], store: new FakeMemento(), workspaceStore });
    await p.setAllProjects(true);
    assert.equal(workspaceStore.get(ALL_PROJECTS_KEY), true);
    resetMock();
    const again = new BuildersProvider({ client: () => pagedClient(mine, everyone), workspaceFolders: () => ["/ws/app"], store: new FakeMemento(), workspaceStore });
    assert.equal(again.showsAllProjects, true);
    assert.equal(contextValue("lazy.allProjects"), true, "the title bar's toggle follows");
    assert.deepEqual(await labels(again), ["app", "summary of z9"]);
  });

  it("keeps newest-first order within a project and asks for the workspace scope", async () => {
    const items = [builder("new"), builder("mid"), builder("old")];
    const client = pagedClient(items);
    const p = provider(client);
    const [group] = await p.getChildren();
    assert.deepEqual(await labels(p, group), ["summary of new", "summary of mid", "summary of old"]);
    assert.deepEqual(client.callsOf("builders/list")[0]?.params, {
      all_projects: false,
      workspace_folders: ["/ws/app", "/ws/lib"],
      cursor: null,
      limit: PAGE_SIZE,
    });
  });

  it("pages with a Load more… item until the cursor runs out", async () => {
    const items = Array.from({ length: 120 }, (_, i) => builder(`b${String(i).padStart(3, "0")}`));
    const client = pagedClient(items);
    const p = provider(client);
    let roots = await p.getChildren();
    assert.equal(roots.at(-1)?.kind, "loadMore");
    assert.equal(p.getTreeItem(roots.at(-1)!).command?.command, "lazy.loadMore");
    assert.equal(p.loadedBuilders.length, 50);
    await p.loadMore();
    assert.equal(p.loadedBuilders.length, 100);
    assert.equal(client.callsOf("builders/list")[1]?.params && (client.callsOf("builders/list")[1]!.params as BuildersListParams).cursor, "50");
    await p.loadMore();
    assert.equal(p.loadedBuilders.length, 120);
    roots = await p.getChildren();
    assert.ok(roots.every((n) => n.kind !== "loadMore"));
    // a refresh keeps as many as were loaded
    await p.refresh();
    assert.equal((client.callsOf("builders/list").at(-1)!.params as BuildersListParams).limit, 120);
  });

  it("switches to all projects and back", async () => {
    const mine = [builder("a1"), builder("a2")];
    const everyone = [builder("z9", { project: "/other" }), builder("z8", { project: "/other" }), ...mine];
    const client = pagedClient(mine, everyone);
    const p = provider(client);
    assert.deepEqual(await labels(p), ["app"]);
    await p.setAllProjects(true);
    assert.equal(p.showsAllProjects, true);
    assert.equal((client.callsOf("builders/list").at(-1)!.params as BuildersListParams).all_projects, true);
    assert.deepEqual(await labels(p), ["app", "other"]);
    assert.ok(calls.some((c) => c.method === "commands.executeCommand" && c.args[0] === "setContext" && c.args[1] === "lazy.allProjects" && c.args[2] === true));
    await p.setAllProjects(false);
    assert.deepEqual(await labels(p), ["app"]);
  });

  it("describes a Builder: label, description, tool icon, tooltip, context value", () => {
    const p = provider(pagedClient([]), new FakeMemento());
    const now = new Date("2025-06-12T10:05:00Z");
    const q = new BuildersProvider({ client: () => undefined, workspaceFolders: () => [], store: new FakeMemento(), now: () => now });
    const item = q.builderItem(builder("0197a3c2-aaaa", { tool: "codex", summary: "", title: "A title", message_count: 1 }));
    assert.equal(item.label, "A title");
    assert.equal(item.description, "5 min ago · 1 msg");
    assert.equal((item.iconPath as vscode.ThemeIcon).id, "terminal");
    assert.equal(item.contextValue, "builder");
    const named = q.builderItem(builder("0197a3c2-bbbb", { tool: "claude", alias: "reviewer", summary: "Review the PR" }));
    assert.equal(named.contextValue, "builder.claude");
    assert.equal(named.label, "reviewer");
    assert.match(named.tooltip as string, /^reviewer: Review the PR\n/);
    assert.match(item.tooltip as string, /Id: 0197a3c2-aaaa/);
    assert.deepEqual(item.command?.arguments, ["0197a3c2-aaaa"]);
    assert.equal(q.builderItem(builder("x", { summary: "", title: null })).label, "x");
    assert.equal(q.builderItem(builder("y", { summary: "\u001b[31mred\u001b[0m\nsummary" })).label, "red summary", "agent text, plain");
    p.dispose();
  });

  it("shows the grew badge only when a Builder grew since it was last opened", async () => {
    const store = new FakeMemento();
    const p = provider(pagedClient([]), store);
    const b = builder("b1", { message_count: 10 });
    assert.doesNotMatch(String(p.builderItem(b).description), /●/, "never opened: no badge");
    await p.markOpened("b1", 10);
    assert.doesNotMatch(String(p.builderItem(b).description), /●/);
    const grown = { ...b, message_count: 12 };
    assert.match(String(p.builderItem(grown).description), /^● /);
    await p.markOpened("b1", 12);
    assert.doesNotMatch(String(p.builderItem(grown).description), /●/);
  });

  it("nests forks under the Builder they came from, and lists sidechains", async () => {
    const items = [
      builder("fork", { forked_from: "root" }),
      builder("root", { sidechains: [{ session_id: "root:agent1", agent_id: "agent1", message_count: 4 }] }),
      builder("orphan", { forked_from: "not-loaded" }),
    ];
    const p = provider(pagedClient(items));
    const [group] = await p.getChildren();
    assert.deepEqual(await labels(p, group), ["summary of root", "summary of orphan"]);
    const root = (await p.getChildren(group))[0]!;
    assert.equal(p.getTreeItem(root).collapsibleState, TreeItemCollapsibleState.Collapsed);
    const kids = await p.getChildren(root);
    assert.deepEqual(kids.map((k) => k.kind), ["builder", "sidechain"]);
    assert.equal(p.getTreeItem(kids[1]!).label, "Subagent agent1");
    assert.deepEqual(p.getTreeItem(kids[1]!).command?.arguments, ["root", undefined, "root:agent1"]);
    assert.equal(p.getParent(kids[0]!), root);
    assert.equal(p.getParent(root), group);
  });

  it("hands out the same node object for the same id across refreshes", async () => {
    const p = provider(pagedClient([builder("b1"), builder("b1b")]));
    const [g1] = await p.getChildren();
    const [b1] = await p.getChildren(g1);
    await p.refresh();
    const [g2] = await p.getChildren();
    const [b2] = await p.getChildren(g2);
    assert.equal(g1, g2);
    assert.equal(b1, b2);
  });

  it("redraws only the changed Builder when it is loaded (debounced)", async () => {
    const items = [builder("b1"), builder("b2")];
    const client = pagedClient(items).on("builders/get", (p) => builder(p.id, { message_count: 99 }));
    const p = provider(client);
    const [group] = await p.getChildren();
    const [n1] = await p.getChildren(group);
    const fired: (Node | undefined)[] = [];
    p.onDidChangeTreeData((n) => fired.push(n));
    p.onBuildersDidChange({ builder_ids: ["b1"], reason: "captured" });
    p.onBuildersDidChange({ builder_ids: ["b1"], reason: "captured" });
    await sleep(30);
    assert.equal(client.callsOf("builders/get").length, 1, "two notifications, one fetch");
    assert.deepEqual(fired, [n1]);
    assert.equal(n1?.kind === "builder" && n1.info.message_count, 99);
    assert.equal(client.callsOf("builders/list").length, 1, "no full reload");
  });

  it("reloads everything when a changed Builder is not loaded", async () => {
    const client = pagedClient([builder("b1")]).on("builders/get", (p) => builder(p.id));
    const p = provider(client);
    await p.getChildren();
    const fired: (Node | undefined)[] = [];
    p.onDidChangeTreeData((n) => fired.push(n));
    p.onBuildersDidChange({ builder_ids: ["b1", "new"], reason: "imported" });
    await sleep(30);
    assert.equal(client.callsOf("builders/get").length, 0);
    assert.equal(client.callsOf("builders/list").length, 2);
    assert.deepEqual(fired, [undefined]);
  });

  it("clears while the sidecar is down and sets lazy.empty only when really empty", async () => {
    const p = provider(pagedClient([]));
    assert.deepEqual(await p.getChildren(), []);
    assert.ok(calls.some((c) => c.args[1] === "lazy.empty" && c.args[2] === true));
    p.clear("The lazy sidecar stopped.");
    const roots = await p.getChildren();
    assert.equal(roots[0]?.kind, "notice");
    assert.equal(p.getTreeItem(roots[0]).command?.command, "lazy.restartSidecar");
    assert.equal(calls.filter((c) => c.args[1] === "lazy.empty").at(-1)?.args[2], false);
    p.clear();
    assert.deepEqual(await p.getChildren(), []);
  });

  it("shows a failed load as an error item with a retry", async () => {
    const client = new FakeClient().on("builders/list", () => {
      throw Object.assign(new Error("database is locked"), { code: -32004, data: { code: "locked", detail: "x" } });
    });
    const p = provider(client);
    const roots = await p.getChildren();
    assert.equal(roots[0]?.kind, "notice");
    const item = p.getTreeItem(roots[0]);
    assert.match(item.label as string, /database is locked \[locked\] x \(code -32004\)/);
    assert.equal(item.command?.command, "lazy.refresh");
  });
});
