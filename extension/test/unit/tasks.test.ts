import * as assert from "node:assert/strict";
import { promoteMessages, TasksProvider } from "../../src/tasks";
import type { BuilderInfo, TasksListResult, TasksPromoteResult } from "../../src/protocol";
import { FakeClient, RpcError } from "../fakes";
import { calls, resetMock, window } from "../mocks/vscode";
import listFixture from "../../../protocol/fixtures/tasks_list.json";
import promoteFixture from "../../../protocol/fixtures/tasks_promote.json";

const listed = listFixture.result as TasksListResult;
const promoted = promoteFixture.result as TasksPromoteResult;
const scope = { all_projects: false, workspace_folders: ["/home/u/lazy"] };
const info: BuilderInfo = {
  id: "0197a3c2-5e8b-4f1a-9d3c-7b2e6a4f8c10", short_id: "0197a3c2", tool: "claude", project: "/home/u/lazy",
  started_at: null, updated_at: null, message_count: 40, summary: "Design the store",
};

function typing(...answers: (string | undefined)[]): void {
  window.showInputBox = (...args: unknown[]) => {
    calls.push({ method: "window.showInputBox", args });
    return Promise.resolve(answers.shift());
  };
}

describe("the Tasks view and Promote Messages to Task", () => {
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

  it("promotes the typed range, empty fields left to the sidecar's fallbacks, and says the overlap", async () => {
    typing("12", "18", "", "retention", "");
    const client = new FakeClient().on("tasks/promote", () => Promise.resolve(promoted));
    assert.equal(await promoteMessages(client, info), promoted);
    assert.deepEqual(client.callsOf("tasks/promote")[0]?.params, {
      builder_id: info.id, from_message: 12, to_message: 18, goal: null, code: "retention", parent: null,
    });
    const said = calls.find((c) => c.method === "window.showInformationMessage");
    assert.match(String(said?.args[0]), new RegExp(`task ${promoted.task.code} is in the backlog`));
  });

  it("stops when a question is dismissed, and shows a refusal as the sidecar says it", async () => {
    typing("12", undefined);
    const client = new FakeClient().on("tasks/promote", () =>
      Promise.reject(new RpcError(-32006, "messages #12–18 were already promoted to task retention", { task: "retention", builder_id: "0197a3c2", from_message: 12, to_message: 18 })),
    );
    assert.equal(await promoteMessages(client, info), undefined);
    assert.equal(client.callsOf("tasks/promote").length, 0);
    typing("12", "18", "", "", "");
    assert.equal(await promoteMessages(client, info), undefined);
    const shown = calls.find((c) => c.method === "window.showErrorMessage");
    assert.match(String(shown?.args[0]), /already promoted to task retention \(code -32006\)/);
  });
});
