// Generated from sidecar/lazy/server/protocol.py by .venv/bin/python protocol/generate.py; do not edit.
// One decoder for each shape the sidecar sends (every result, every notification's
// params), as strict as the schema: a sidecar of another version fails at the edge,
// naming the field that did not match.
import { arr, bool, int, literal, nullable, num, obj, optional, record, str, tuple, unknown, type Decoder } from "../extension/src/protocol/decoders";
import type * as P from "./protocol";

export const askRunResult: Decoder<P.AskRunResult> = obj<P.AskRunResult>({
  builder_id: str,
  task: optional(nullable(str)),
  answer: str,
  chunks: int,
  relevant_chunks: int,
  warnings: arr(str),
});

export const sidechainInfo: Decoder<P.SidechainInfo> = obj<P.SidechainInfo>({
  session_id: str,
  agent_id: optional(nullable(str)),
  message_count: optional(int),
});

export const modelTokens: Decoder<P.ModelTokens> = obj<P.ModelTokens>({
  responses: optional(int),
  input: optional(int),
  output: optional(int),
  cache_read: optional(int),
  cache_write: optional(int),
  reasoning: optional(int),
  cost_micros: optional(nullable(int)),
  unpriced: optional(int),
  model: optional(nullable(str)),
  provider: optional(nullable(str)),
});

export const tokens: Decoder<P.Tokens> = obj<P.Tokens>({
  responses: optional(int),
  input: optional(int),
  output: optional(int),
  cache_read: optional(int),
  cache_write: optional(int),
  reasoning: optional(int),
  cost_micros: optional(nullable(int)),
  unpriced: optional(int),
});

export const usageInfo: Decoder<P.UsageInfo> = obj<P.UsageInfo>({
  total: optional(tokens),
  main: optional(tokens),
  subagents: optional(tokens),
  models: optional(arr(modelTokens)),
  context: optional(nullable(int)),
  prices: optional(str),
});

export const builderInfo: Decoder<P.BuilderInfo> = obj<P.BuilderInfo>({
  id: str,
  short_id: str,
  tool: str,
  project: nullable(str),
  started_at: nullable(str),
  updated_at: nullable(str),
  message_count: int,
  summary: str,
  title: optional(nullable(str)),
  session_ids: optional(arr(str)),
  sidechains: optional(arr(sidechainInfo)),
  forked_from: optional(nullable(str)),
  alias: optional(nullable(str)),
  usage: optional(nullable(usageInfo)),
});

export const buildersDidChange: Decoder<P.BuildersDidChange> = obj<P.BuildersDidChange>({
  builder_ids: arr(str),
  reason: literal("captured", "imported"),
});

export const buildersListResult: Decoder<P.BuildersListResult> = obj<P.BuildersListResult>({
  items: arr(builderInfo),
  next_cursor: optional(nullable(str)),
  total: optional(nullable(int)),
});

export const sourceFile: Decoder<P.SourceFile> = obj<P.SourceFile>({
  path: str,
  tool: literal("claude", "codex", "opencode"),
  session_id: str,
  agent_id: optional(nullable(str)),
  size: int,
  exists: bool,
});

export const buildersSourcesResult: Decoder<P.BuildersSourcesResult> = obj<P.BuildersSourcesResult>({
  builder_id: str,
  files: arr(sourceFile),
});

export const captureFailure: Decoder<P.CaptureFailure> = obj<P.CaptureFailure>({
  file: str,
  line: optional(nullable(int)),
  reason: str,
  code: str,
  detail: optional(str),
  at: str,
});

export const captureStatusResult: Decoder<P.CaptureStatusResult> = obj<P.CaptureStatusResult>({
  live: bool,
  roots: arr(str),
  last_sweep_at: nullable(str),
  captured: int,
  last_failure: optional(nullable(captureFailure)),
});

export const healthCheck: Decoder<P.HealthCheck> = obj<P.HealthCheck>({
  title: str,
  status: literal("ok", "info", "warn", "fail"),
  detail: optional(arr(str)),
  fix: optional(nullable(str)),
});

export const doctorReport: Decoder<P.DoctorReport> = obj<P.DoctorReport>({
  status: literal("ok", "warn", "fail"),
  checks: arr(healthCheck),
});

export const exportBuilderResult: Decoder<P.ExportBuilderResult> = obj<P.ExportBuilderResult>({
  text: str,
  format: str,
  first: int,
  last: int,
  of: int,
  redacted: bool,
  redactions: record(int),
});

export const quarantineInfo: Decoder<P.QuarantineInfo> = obj<P.QuarantineInfo>({
  file: str,
  line: int,
  reason: str,
});

export const skipInfo: Decoder<P.SkipInfo> = obj<P.SkipInfo>({
  session_id: str,
  path: str,
  reason: str,
});

export const importReport: Decoder<P.ImportReport> = obj<P.ImportReport>({
  found: optional(int),
  missing: optional(int),
  already_imported: optional(int),
  imported: optional(arr(str)),
  updated: optional(arr(str)),
  skipped: optional(arr(skipInfo)),
  refused: optional(arr(skipInfo)),
  ignored_oneshots: optional(int),
  quarantined: optional(arr(quarantineInfo)),
  messages_added: optional(int),
  bytes_read: optional(int),
  dry_run: optional(bool),
});

export const importResult: Decoder<P.ImportResult> = obj<P.ImportResult>({
  dry_run: bool,
  cancelled: optional(bool),
  reports: record(importReport),
});

export const searchHit: Decoder<P.SearchHit> = obj<P.SearchHit>({
  number: int,
  role: str,
  session_id: str,
  timestamp: nullable(str),
  score: num,
  snippet: str,
  highlights: optional(arr(tuple(int, int))),
  terms: optional(arr(str)),
  sidechain: optional(bool),
  field: optional(literal("conversation", "tools", "memory")),
  kind: optional(literal("conversation", "task", "memory")),
  memory_path: optional(nullable(str)),
  task_code: optional(nullable(str)),
});

export const searchGroup: Decoder<P.SearchGroup> = obj<P.SearchGroup>({
  builder_id: str,
  short_id: str,
  started_at: nullable(str),
  project: nullable(str),
  tool: str,
  summary: str,
  score: num,
  hits: arr(searchHit),
});

export const searchResults: Decoder<P.SearchResults> = obj<P.SearchResults>({
  query: str,
  total_hits: int,
  groups: arr(searchGroup),
});

export const task: Decoder<P.Task> = obj<P.Task>({
  code: str,
  goal: str,
  prompt: str,
  parent: optional(nullable(str)),
  status: optional(literal("backlog")),
  created_at: str,
  builder_id: str,
  from_message: int,
  to_message: int,
  usage: optional(nullable(tokens)),
});

export const tasksListResult: Decoder<P.TasksListResult> = obj<P.TasksListResult>({
  items: arr(task),
});

export const tasksPromoteResult: Decoder<P.TasksPromoteResult> = obj<P.TasksPromoteResult>({
  task: task,
  overlapping: arr(task),
});

export const teamBuilder: Decoder<P.TeamBuilder> = obj<P.TeamBuilder>({
  builder_id: str,
  member: str,
  email: str,
  project: str,
  agent: str,
  title: str,
  message_count: int,
  updated_at: nullable(str),
  grew: bool,
});

export const teamBuildersResult: Decoder<P.TeamBuildersResult> = obj<P.TeamBuildersResult>({
  items: arr(teamBuilder),
});

export const diffFile: Decoder<P.DiffFile> = obj<P.DiffFile>({
  path: str,
  diff: str,
  added: optional(int),
  removed: optional(int),
  language: optional(nullable(str)),
});

export const subagentRef: Decoder<P.SubagentRef> = obj<P.SubagentRef>({
  session_id: str,
  agent_id: optional(nullable(str)),
  description: optional(nullable(str)),
  agent_type: optional(nullable(str)),
  message_count: optional(int),
  outcome: optional(nullable(str)),
});

export const todoItem: Decoder<P.TodoItem> = obj<P.TodoItem>({
  text: str,
  status: optional(str),
});

export const toolCall: Decoder<P.ToolCall> = obj<P.ToolCall>({
  id: optional(nullable(str)),
  name: str,
  kind: optional(literal("shell", "read", "edit", "write", "search", "todo", "web", "task", "mcp", "plan", "other")),
  summary: str,
  input: optional(unknown),
  output: optional(nullable(str)),
  output_chars: optional(nullable(int)),
  is_error: optional(bool),
  exit_code: optional(nullable(int)),
  duration_ms: optional(nullable(int)),
  matches: optional(nullable(int)),
  first_line: optional(nullable(int)),
  language: optional(nullable(str)),
  diff: optional(arr(diffFile)),
  todos: optional(arr(todoItem)),
  subagent: optional(nullable(subagentRef)),
  mcp_server: optional(nullable(str)),
  result_number: optional(nullable(int)),
});

export const part: Decoder<P.Part> = obj<P.Part>({
  kind: literal("text", "thinking", "tool", "image", "file", "harness", "notice"),
  text: optional(str),
  label: optional(nullable(str)),
  tool: optional(nullable(toolCall)),
  media_type: optional(nullable(str)),
  bytes: optional(nullable(int)),
  name: optional(nullable(str)),
});

export const messageView: Decoder<P.MessageView> = obj<P.MessageView>({
  number: int,
  role: str,
  text: str,
  session_id: str,
  timestamp: nullable(str),
  kinds: arr(str),
  model: optional(nullable(str)),
  tool_name: optional(nullable(str)),
  parts: optional(arr(part)),
  absorbed: optional(arr(int)),
  turn: optional(int),
  harness: optional(bool),
  tokens: optional(nullable(tokens)),
});

export const teamPageResult: Decoder<P.TeamPageResult> = obj<P.TeamPageResult>({
  member: str,
  email: str,
  project: str,
  builder: builderInfo,
  messages: arr(messageView),
  total: int,
  next_start: nullable(int),
});

export const teamTask: Decoder<P.TeamTask> = obj<P.TeamTask>({
  code: str,
  goal: str,
  by: str,
  project: str,
  builder_id: str,
  from_message: int,
  to_message: int,
});

export const teamPromoteResult: Decoder<P.TeamPromoteResult> = obj<P.TeamPromoteResult>({
  task: teamTask,
  overlaps: arr(str),
});

export const teamPushResult: Decoder<P.TeamPushResult> = obj<P.TeamPushResult>({
  builders: int,
  messages: int,
  unchanged: int,
  redactions: record(int),
  skipped: arr(str),
});

export const teamHit: Decoder<P.TeamHit> = obj<P.TeamHit>({
  builder_id: str,
  member: str,
  email: str,
  project: str,
  title: str,
  number: int,
  role: str,
  at: nullable(str),
  snippet: str,
  marks: optional(arr(tuple(int, int))),
});

export const teamSearchResult: Decoder<P.TeamSearchResult> = obj<P.TeamSearchResult>({
  hits: arr(teamHit),
});

export const teamStatusResult: Decoder<P.TeamStatusResult> = obj<P.TeamStatusResult>({
  joined: bool,
  database: optional(nullable(str)),
  email: optional(nullable(str)),
  last_push_at: optional(nullable(str)),
  last_push_builders: optional(int),
  last_push_messages: optional(int),
  unpushed: optional(int),
  failing_since: optional(nullable(str)),
  last_error: optional(nullable(str)),
});

export const findMatch: Decoder<P.FindMatch> = obj<P.FindMatch>({
  number: int,
  count: int,
});

export const transcriptsFindResult: Decoder<P.TranscriptsFindResult> = obj<P.TranscriptsFindResult>({
  matches: arr(findMatch),
  total: int,
});

export const transcriptsPageResult: Decoder<P.TranscriptsPageResult> = obj<P.TranscriptsPageResult>({
  builder: builderInfo,
  session_id: nullable(str),
  messages: arr(messageView),
  total: int,
  next_start: nullable(int),
});

export const reportRow: Decoder<P.ReportRow> = obj<P.ReportRow>({
  group: str,
  tokens: tokens,
});

export const usageReportResult: Decoder<P.UsageReportResult> = obj<P.UsageReportResult>({
  by: str,
  since: optional(nullable(str)),
  until: optional(nullable(str)),
  projects: optional(nullable(arr(str))),
  rows: optional(arr(reportRow)),
  total: optional(tokens),
  subagents: optional(tokens),
  models: optional(arr(modelTokens)),
  prices: optional(str),
});

/** The decoder of each request's result. */
export const RESULT_DECODERS: { [M in P.RequestName]: Decoder<P.Requests[M]["result"]> } = {
  "builders/list": buildersListResult,
  "builders/get": builderInfo,
  "builders/name": builderInfo,
  "builders/sources": buildersSourcesResult,
  "transcripts/page": transcriptsPageResult,
  "transcripts/find": transcriptsFindResult,
  "export/builder": exportBuilderResult,
  "search/query": searchResults,
  "tasks/promote": tasksPromoteResult,
  "tasks/list": tasksListResult,
  "ask/run": askRunResult,
  "import/preview": importResult,
  "import/run": importResult,
  "capture/status": captureStatusResult,
  "doctor/run": doctorReport,
  "usage/report": usageReportResult,
  "team/status": teamStatusResult,
  "team/builders": teamBuildersResult,
  "team/page": teamPageResult,
  "team/search": teamSearchResult,
  "team/promote": teamPromoteResult,
  "team/push": teamPushResult,
};

/** The decoder of each notification's params. */
export const NOTIFICATION_DECODERS: { [N in P.NotificationName]: Decoder<P.Notifications[N]> } = {
  "builders/didChange": buildersDidChange,
  "capture/didFail": captureFailure,
};
