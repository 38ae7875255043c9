// The host side of the transcript's promote form: the form's submit as tasks/promote, and the
// sidecar's answer (the task, or its refusal: the same range already promoted, or the fields it
// refused) as the message the form shows. Each empty field goes as null: the sidecar falls back
// (goal from what the human said, code from the goal, prompt from the messages).
import { describeFailure, rpcFailure, type LazyClient } from "../protocol/client";
import { ErrorCodes, isRecord, type Task, type TasksPromoteParams } from "../protocol";
import type { FieldError, HostToWebview, WebviewToHost } from "../transcript/messages";

type Submit = Extract<WebviewToHost, { type: "promote" }>;
type Answer = Extract<HostToWebview, { type: "promoted" } | { type: "promoteFailed" }>;

const orNull = (s: string): string | null => (s.trim() ? s.trim() : null);

export function promoteParams(builderId: string, m: Submit): TasksPromoteParams {
  return {
    builder_id: builderId,
    from_message: m.from,
    to_message: m.to,
    goal: orNull(m.goal),
    code: orNull(m.code),
    parent: orNull(m.parent),
    // the prompt keeps its own whitespace: only an all-blank one falls back
    prompt: m.prompt.trim() ? m.prompt : null,
  };
}

function fieldErrors(data: unknown): FieldError[] {
  if (!isRecord(data) || !Array.isArray(data.errors)) return [];
  return data.errors.flatMap((e: unknown) =>
    isRecord(e) && typeof e.field === "string" && typeof e.message === "string" ? [{ field: e.field, message: e.message }] : [],
  );
}

/** The refusal as the form shows it; the message keeps the machine detail (invariant 6). */
export function refusal(e: unknown): Answer {
  const f = rpcFailure(e);
  const task = f.code === ErrorCodes.ALREADY_PROMOTED && isRecord(f.data) && typeof f.data.task === "string" ? f.data.task : null;
  return { type: "promoteFailed", message: describeFailure(e), task, errors: fieldErrors(f.data) };
}

export async function submitPromote(client: LazyClient, builderId: string, m: Submit): Promise<Answer> {
  try {
    const r = await client.request("tasks/promote", promoteParams(builderId, m));
    return { type: "promoted", task: r.task, overlapping: r.overlapping };
  } catch (e) {
    return refusal(e);
  }
}

/** What was promoted from one Builder (every project: the Builder decides). */
export async function builderTasks(client: LazyClient, builderId: string): Promise<Task[]> {
  const r = await client.request("tasks/list", { all_projects: true, workspace_folders: [], builder_id: builderId });
  return r.items;
}

export function promotedMessage(task: Task, overlapping: readonly Task[]): string {
  const overlap = overlapping.map((t) => `${t.code} (#${t.from_message}–${t.to_message})`).join(", ");
  return `Lazy: task ${task.code} is in the backlog (#${task.from_message}–${task.to_message})${overlap ? `; it shares messages with ${overlap}` : ""}.`;
}
