import * as assert from "node:assert/strict";
import { TasksProvider } from "../../src/views/tasks";
import type { TasksListResult } from "../../src/protocol";
import { FakeClient } from "../fakes";
import { calls, resetMock } from "../mocks/vscode";
import * as fs from "node:fs";
import * as path from "node:path";

const noTasks = (): unknown[] =>
  calls.filter((c) => c.method === "commands.executeCommand" && c.args[0] === "setContext" && c.args[1] === "lazy.noTasks").map((c) => c.args[2]);
import listFixture from "../../../protocol/fixtures/tasks_list.json";

const listed = listFixture.result as TasksListResult;
const scope = { all_projects: false, workspace_folders: ["/home/u/lazy"] };

describe("the Tasks view", () => {
  beforeEach(resetMock);

  it("lists the scope's tasks; each opens its source range in the transcript", async () => {
    const client = new FakeClient().on("tasks/list", () => Promise.resolve(listed));
    const view = new TasksProvider(() => client, () => scope);
    await view.refresh();
    assert.deepEqual(client.callsOf("tasks/list")[0]?.params, scope);
    const [first] = view.getChildren();
    assert.ok(first);
    const item = view.getTreeItem(first);
    assert.equal(item.label, first.code);
    assert.match(String(item.description), /#10–12$/);
    assert.deepEqual(item.command?.arguments, [first.builder_id, 10]);
  });

  it("sets lazy.noTasks (its welcome: what a task is, how to promote one) only for a backlog known to be empty", async () => {
    let items: TasksListResult["items"] = [];
    let up = true;
    const client = new FakeClient().on("tasks/list", () => Promise.resolve({ items }));
    const view = new TasksProvider(() => (up ? client : undefined), () => scope);
    await view.refresh();
    items = listed.items;
    await view.refresh();
    up = false;
    await view.refresh(); // the sidecar down: not known to be empty
    up = true;
    const failing = new TasksProvider(() => new FakeClient().on("tasks/list", () => Promise.reject(new Error("locked"))), () => scope);
    await failing.refresh().catch(() => undefined);
    assert.deepEqual(noTasks(), [true, false, false, false]);
    const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, "..", "..", "package.json"), "utf8")) as {
      contributes: { viewsWelcome: { view: string; contents: string; when: string }[] };
    };
    const welcome = manifest.contributes.viewsWelcome.find((w) => w.view === "lazy.tasks");
    assert.ok(welcome && welcome.when.includes("lazy.noTasks"));
    assert.match(welcome.contents, /A task is a range of a Builder's messages/);
    assert.match(welcome.contents, /Start here[\s\S]*End here/);
  });
});
