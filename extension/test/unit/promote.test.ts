import * as assert from "node:assert/strict";
import { builderTasks, promoteParams, promotedMessage, submitPromote } from "../../src/promote/form";
import { checkRange, parsePromoteRange, tasksAt } from "../../src/promote/range";
import { promoteActions } from "../../src/promote/selection";
import type { TasksListResult, TasksPromoteResult } from "../../src/protocol";
import { FakeClient, RpcError } from "../fakes";
import listFixture from "../../../protocol/fixtures/tasks_list.json";
import promoteFixture from "../../../protocol/fixtures/tasks_promote.json";

const listed = (listFixture.result as TasksListResult).items;
const promoted = promoteFixture.result as TasksPromoteResult;
const ID = "0197a3c2-5e8b-4f1a-9d3c-7b2e6a4f8c10";
const submit = { type: "promote" as const, from: 12, to: 18, goal: "", code: " retention ", parent: "  ", prompt: "" };

describe("a range to promote", () => {
  it("takes the code action's argument, a TasksPromoteParams with only the range", () => {
    assert.deepEqual(parsePromoteRange({ builder_id: ID, from_message: 2, to_message: 3 }), { builderId: ID, from: 2, to: 3 });
    assert.deepEqual(parsePromoteRange({ builder_id: ID, from_message: 4, to_message: 4 }), { builderId: ID, from: 4, to: 4 });
  });

  it("is not a tree node, a reversed or fractional range, or anything else", () => {
    for (const bad of [
      undefined, "0197a3c2", { kind: "builder", id: "b", info: {} },
      { builder_id: ID, from_message: 3, to_message: 2 },
      { builder_id: ID, from_message: 0, to_message: 2 },
      { builder_id: ID, from_message: 1.5, to_message: 2 },
      { builder_id: "", from_message: 1, to_message: 2 },
      { builder_id: ID, from_message: "1", to_message: 2 },
    ]) assert.equal(parsePromoteRange(bad), undefined, JSON.stringify(bad));
  });

  it("names the task holding the very same range, apart from those it overlaps", () => {
    const same = checkRange(listed, ID, 10, 12);
    assert.equal(same.same?.code, "store-design");
    assert.deepEqual(same.overlapping.map((t) => t.code), ["retention-policy"]);
    const over = checkRange(listed, ID, 11, 20);
    assert.equal(over.same, undefined);
    assert.deepEqual(over.overlapping.map((t) => t.code), ["store-design", "retention-policy"]);
    assert.deepEqual(checkRange(listed, ID, 14, 20), { same: undefined, overlapping: [] });
    assert.deepEqual(checkRange(listed, ID, 1, 9), { same: undefined, overlapping: [] });
    // another Builder's tasks never overlap
    assert.deepEqual(checkRange(listed, "other", 10, 12), { same: undefined, overlapping: [] });
  });

  it("finds the tasks holding a message, for the marks", () => {
    assert.deepEqual(tasksAt(listed, 12).map((t) => t.code), ["store-design", "retention-policy"]);
    assert.deepEqual(tasksAt(listed, 13).map((t) => t.code), ["retention-policy"]);
    assert.deepEqual(tasksAt(listed, 9), []);
  });
});

describe("the promote form's submit", () => {
  it("sends empty fields as null for the sidecar's fallbacks, trimmed; the prompt keeps its text", () => {
    assert.deepEqual(promoteParams(ID, submit), {
      builder_id: ID, from_message: 12, to_message: 18, goal: null, code: "retention", parent: null, prompt: null,
    });
    assert.equal(promoteParams(ID, { ...submit, prompt: "  keep\n  indented\n" }).prompt, "  keep\n  indented\n");
  });

  it("answers with the task and what it overlaps", async () => {
    const client = new FakeClient().on("tasks/promote", () => promoted);
    assert.deepEqual(await submitPromote(client, ID, submit), { type: "promoted", task: promoted.task, overlapping: promoted.overlapping });
    assert.match(promotedMessage(promoted.task, promoted.overlapping), /task retention-policy is in the backlog \(#12–13\); it shares messages with store-design \(#10–12\)/);
  });

  it("shows the same range's refusal naming its task", async () => {
    const data = { task: "retention", builder_id: ID, from_message: 12, to_message: 18 };
    const client = new FakeClient().on("tasks/promote", () => Promise.reject(new RpcError(-32006, "messages #12–18 were already promoted to task retention", data)));
    const r = await submitPromote(client, ID, submit);
    assert.ok(r.type === "promoteFailed");
    assert.equal(r.task, "retention");
    assert.match(r.message, /already promoted to task retention \(code -32006\)/);
  });

  it("puts the fields the sidecar refused beside them", async () => {
    const errors = [{ field: "code", message: "code retention is taken" }, { field: "parent", message: "no task nope" }, { junk: 1 }];
    const client = new FakeClient().on("tasks/promote", () => Promise.reject(new RpcError(-32602, "invalid", { errors })));
    assert.deepEqual(await submitPromote(client, ID, submit), {
      type: "promoteFailed",
      message: "invalid (code -32602)",
      task: null,
      errors: errors.slice(0, 2),
    });
  });

  it("lists one Builder's tasks, whatever the workspace", async () => {
    const client = new FakeClient().on("tasks/list", () => ({ items: listed }));
    assert.deepEqual(await builderTasks(client, ID), listed);
    assert.deepEqual(client.callsOf("tasks/list")[0]?.params, { all_projects: true, workspace_folders: [], builder_id: ID });
  });
});

describe("promoting the selection of the transcript as text", () => {
  it("keeps only the sidecar's promote actions, from code actions or bare commands", () => {
    const range = { builder_id: ID, from_message: 3, to_message: 4 };
    const offered = [
      { title: "Promote messages 3–4 to task", kind: { value: "refactor" }, command: { title: "Promote", command: "lazy.promoteMessages", arguments: [range] } },
      { title: "Extract function", command: { title: "x", command: "other.command" } },
      { title: "Something with an edit only", edit: {} },
      { title: "Promote message 5 to task", command: "lazy.promoteMessages", arguments: [{ ...range, from_message: 5, to_message: 5 }] },
    ];
    const got = promoteActions(offered as never);
    assert.deepEqual(got.map((a) => [a.title, a.command.arguments]), [
      ["Promote messages 3–4 to task", [range]],
      ["Promote message 5 to task", [{ ...range, from_message: 5, to_message: 5 }]],
    ]);
    assert.deepEqual(promoteActions(undefined), []);
  });
});
