import * as assert from "node:assert/strict";
import { TasksProvider } from "../../src/views/tasks";
import type { TasksListResult } from "../../src/protocol";
import { FakeClient } from "../fakes";
import { resetMock } from "../mocks/vscode";
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
});
