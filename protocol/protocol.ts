// Generated from sidecar/lazy/server/protocol.py by .venv/bin/python protocol/generate.py; do not edit.
// Field names travel exactly as the pydantic models name them (snake_case).

/**
 * A question about a Builder (its id, any of its session ids, or a unique prefix) or a
 * task (its code: its prompt, then the messages it was promoted from), as `lazy ask`.
 */
export interface AskRunParams {
  id: string;
  question: string;
}

/** The answer, as `lazy ask --json` gives it. Nothing was written back. */
export interface AskRunResult {
  builder_id: string;
  task?: string | null;
  answer: string;
  chunks: number;
  relevant_chunks: number;
  warnings: string[];
}

export interface BuilderInfo {
  id: string;
  short_id: string;
  tool: string;
  project: string | null;
  started_at: string | null;
  updated_at: string | null;
  message_count: number;
  summary: string;
  title?: string | null;
  session_ids?: string[];
  sidechains?: SidechainInfo[];
  forked_from?: string | null;
  alias?: string | null;
  usage?: UsageInfo | null;
}

export interface BuildersDidChange {
  builder_ids: string[];
  reason: "captured" | "imported";
}

export interface BuildersGetParams {
  id: string;
}

export interface BuildersListParams {
  /** Default false. */
  all_projects?: boolean;
  workspace_folders?: string[];
  tools?: ("claude" | "codex" | "opencode")[];
  text?: string | null;
  cursor?: string | null;
  /** Default 50; at least 1; at most 500. */
  limit?: number;
}

export interface BuildersListResult {
  items: BuilderInfo[];
  next_cursor?: string | null;
  total?: number | null;
}

export interface BuildersNameParams {
  id: string;
  name: string | null;
}

export interface BuildersSourcesResult {
  builder_id: string;
  files: SourceFile[];
}

export interface CaptureFailure {
  file: string;
  line?: number | null;
  reason: string;
  code: string;
  /** Default "". */
  detail?: string;
  at: string;
}

export interface CaptureStatusResult {
  live: boolean;
  roots: string[];
  last_sweep_at: string | null;
  captured: number;
  last_failure?: CaptureFailure | null;
}

/** One file a tool call changed, as a unified diff (``---``/``+++`` header, hunks). */
export interface DiffFile {
  path: string;
  diff: string;
  /** Default 0. */
  added?: number;
  /** Default 0. */
  removed?: number;
  language?: string | null;
}

export interface DoctorReport {
  status: "ok" | "warn" | "fail";
  checks: HealthCheck[];
}

export interface ExportBuilderParams {
  builder_id: string;
  /** Default "html". */
  format?: "md" | "html" | "json";
  first?: number | null;
  last?: number | null;
  /** Default true. */
  redact?: boolean;
}

/** The export's text, to be written where the user says (``lazy export``). */
export interface ExportBuilderResult {
  text: string;
  format: string;
  first: number;
  last: number;
  of: number;
  redacted: boolean;
  redactions: Record<string, number>;
}

export interface FindMatch {
  number: number;
  count: number;
}

/** One line of `lazy doctor` (``lazy.doctor.report.Check`` as it travels). */
export interface HealthCheck {
  title: string;
  status: "ok" | "info" | "warn" | "fail";
  detail?: string[];
  fix?: string | null;
}

export interface ImportParams {
  /** Default false. */
  all_projects?: boolean;
  workspace_folders?: string[];
  tools?: ("claude" | "codex" | "opencode")[];
}

export interface ImportReport {
  /** Default 0. */
  found?: number;
  /** Default 0. */
  missing?: number;
  /** Default 0. */
  already_imported?: number;
  imported?: string[];
  updated?: string[];
  skipped?: SkipInfo[];
  refused?: SkipInfo[];
  /** Default 0. */
  ignored_oneshots?: number;
  quarantined?: QuarantineInfo[];
  /** Default 0. */
  messages_added?: number;
  /** Default 0. */
  bytes_read?: number;
  /** Default false. */
  dry_run?: boolean;
}

/**
 * What an import of conversations found (preview: nothing written) or did (run), per
 * agent; as ``lazy import-conversation --json`` reports it.
 */
export interface ImportResult {
  dry_run: boolean;
  /** Default false. */
  cancelled?: boolean;
  reports: Record<string, ImportReport>;
}

/** The initializationOptions of LSP's initialize: how the extension wants the sidecar. */
export interface InitializationOptions {
  /** Default true. */
  live_capture?: boolean;
  extra_roots?: Record<string, string[]>;
}

export interface MessageView {
  number: number;
  role: string;
  text: string;
  session_id: string;
  timestamp: string | null;
  kinds: string[];
  model?: string | null;
  tool_name?: string | null;
  parts?: Part[];
  absorbed?: number[];
  /** Default 0. */
  turn?: number;
  /** Default false. */
  harness?: boolean;
  tokens?: Tokens | null;
}

export interface ModelTokens {
  /** Default 0. */
  responses?: number;
  /** Default 0. */
  input?: number;
  /** Default 0. */
  output?: number;
  /** Default 0. */
  cache_read?: number;
  /** Default 0. */
  cache_write?: number;
  /** Default 0. */
  reasoning?: number;
  cost_micros?: number | null;
  /** Default 0. */
  unpriced?: number;
  model?: string | null;
  provider?: string | null;
}

export interface NoParams {}

/**
 * One piece of a message, in order. ``text``: Markdown source (text, thinking, harness,
 * notice); ``tool``: the call; ``label``: what a harness item or notice is.
 */
export interface Part {
  kind: "text" | "thinking" | "tool" | "image" | "file" | "harness" | "notice";
  /** Default "". */
  text?: string;
  label?: string | null;
  tool?: ToolCall | null;
  media_type?: string | null;
  bytes?: number | null;
  name?: string | null;
}

export interface QuarantineInfo {
  file: string;
  line: number;
  reason: string;
}

export interface ReportRow {
  group: string;
  tokens: Tokens;
}

export interface SearchGroup {
  builder_id: string;
  short_id: string;
  started_at: string | null;
  project: string | null;
  tool: string;
  summary: string;
  score: number;
  hits: SearchHit[];
}

export interface SearchHit {
  number: number;
  role: string;
  session_id: string;
  timestamp: string | null;
  score: number;
  snippet: string;
  highlights?: [number, number][];
  terms?: string[];
  /** Default false. */
  sidechain?: boolean;
  /** Default "conversation". */
  field?: "conversation" | "tools" | "memory";
  /** Default "conversation". */
  kind?: "conversation" | "task" | "memory";
  memory_path?: string | null;
  task_code?: string | null;
}

export interface SearchQueryParams {
  /** Default false. */
  all_projects?: boolean;
  workspace_folders?: string[];
  query: string;
  /** Default 20; at least 1; at most 200. */
  limit?: number;
}

export interface SearchResults {
  query: string;
  total_hits: number;
  groups: SearchGroup[];
}

export interface SidechainInfo {
  session_id: string;
  agent_id?: string | null;
  /** Default 0. */
  message_count?: number;
}

export interface SkipInfo {
  session_id: string;
  path: string;
  reason: string;
}

/** A file an agent wrote one of the Builder's sessions to, as capture last read it. */
export interface SourceFile {
  path: string;
  tool: "claude" | "codex" | "opencode";
  session_id: string;
  agent_id?: string | null;
  size: number;
  exists: boolean;
}

/** The subagent a tool call spawned, as its parent shows it. */
export interface SubagentRef {
  session_id: string;
  agent_id?: string | null;
  description?: string | null;
  agent_type?: string | null;
  /** Default 0. */
  message_count?: number;
  outcome?: string | null;
}

/**
 * A backlog task promoted from a range of a Builder's messages (``lazy conversations
 * promote``). Only the Builder's own line can be promoted from, not a subagent's.
 */
export interface Task {
  code: string;
  goal: string;
  prompt: string;
  parent?: string | null;
  /** Default "backlog". */
  status?: "backlog";
  created_at: string;
  builder_id: string;
  from_message: number;
  to_message: number;
  usage?: Tokens | null;
}

export interface TasksListParams {
  /** Default false. */
  all_projects?: boolean;
  workspace_folders?: string[];
  builder_id?: string | null;
}

export interface TasksListResult {
  items: Task[];
}

/**
 * A range of a Builder's own messages (numbers from 1, both ends included) to promote;
 * each field left out or empty falls back as `lazy conversations promote` does: the goal
 * to what the human said first in the range, the code to a slug of the goal, the parent
 * to none, the prompt to the messages verbatim.
 */
export interface TasksPromoteParams {
  builder_id: string;
  from_message: number;
  to_message: number;
  goal?: string | null;
  code?: string | null;
  parent?: string | null;
  prompt?: string | null;
}

export interface TasksPromoteResult {
  task: Task;
  overlapping: Task[];
}

/** A Builder on the team database, as its list shows it. */
export interface TeamBuilder {
  builder_id: string;
  member: string;
  email: string;
  project: string;
  agent: string;
  title: string;
  message_count: number;
  updated_at: string | null;
  grew: boolean;
}

export interface TeamBuildersParams {
  project?: string | null;
  member?: string | null;
  /** Default 200; at least 1; at most 1000. */
  limit?: number;
}

export interface TeamBuildersResult {
  items: TeamBuilder[];
}

export interface TeamHit {
  builder_id: string;
  member: string;
  email: string;
  project: string;
  title: string;
  number: number;
  role: string;
  at: string | null;
  snippet: string;
  marks?: [number, number][];
}

export interface TeamPageParams {
  builder_id: string;
  email?: string | null;
  /** Default 1; at least 1. */
  start?: number;
  /** Default 200; at least 1; at most 1000. */
  count?: number;
}

/** A page of a teammate's Builder, read-only; asking for it marks it seen (to its end). */
export interface TeamPageResult {
  member: string;
  email: string;
  project: string;
  builder: BuilderInfo;
  messages: MessageView[];
  total: number;
  next_start: number | null;
}

/**
 * A range of a teammate's Builder to promote to a task on the team database; each field
 * left out or empty falls back as `lazy team promote` does (the goal to what was said first,
 * the code to a slug of the goal unique in the project, the prompt to the messages).
 */
export interface TeamPromoteParams {
  builder_id: string;
  email?: string | null;
  from_message: number;
  to_message: number;
  goal?: string | null;
  code?: string | null;
  parent?: string | null;
  prompt?: string | null;
}

export interface TeamPromoteResult {
  task: TeamTask;
  overlaps: string[];
}

export interface TeamPushParams {
  /** Default false. */
  dry_run?: boolean;
}

export interface TeamPushResult {
  builders: number;
  messages: number;
  unchanged: number;
  redactions: Record<string, number>;
  skipped: string[];
}

export interface TeamSearchParams {
  query: string;
  project?: string | null;
  member?: string | null;
  /** Default 20; at least 1; at most 500. */
  limit?: number;
}

export interface TeamSearchResult {
  hits: TeamHit[];
}

/** This machine's side of the team (``lazy team status`` without asking the server). */
export interface TeamStatusResult {
  joined: boolean;
  database?: string | null;
  email?: string | null;
  last_push_at?: string | null;
  /** Default 0. */
  last_push_builders?: number;
  /** Default 0. */
  last_push_messages?: number;
  /** Default 0. */
  unpushed?: number;
  failing_since?: string | null;
  last_error?: string | null;
}

export interface TeamTask {
  code: string;
  goal: string;
  by: string;
  project: string;
  builder_id: string;
  from_message: number;
  to_message: number;
}

export interface TodoItem {
  text: string;
  /** Default "pending". */
  status?: string;
}

/**
 * Tokens of some model responses, each counted once, and what they cost.
 *
 * ``input`` is the input billed at the full rate (cache reads and writes apart);
 * ``output`` includes ``reasoning``. ``cost_micros`` is in millionths of a US dollar, of
 * the responses whose model has a known price; ``unpriced`` responses had none (their
 * cost is unknown, never counted as 0); None when no response has a price.
 */
export interface Tokens {
  /** Default 0. */
  responses?: number;
  /** Default 0. */
  input?: number;
  /** Default 0. */
  output?: number;
  /** Default 0. */
  cache_read?: number;
  /** Default 0. */
  cache_write?: number;
  /** Default 0. */
  reasoning?: number;
  cost_micros?: number | null;
  /** Default 0. */
  unpriced?: number;
}

/** One tool call paired with its result: the input in full, what came back. */
export interface ToolCall {
  id?: string | null;
  name: string;
  /** Default "other". */
  kind?: "shell" | "read" | "edit" | "write" | "search" | "todo" | "web" | "task" | "mcp" | "plan" | "other";
  summary: string;
  input?: unknown;
  output?: string | null;
  output_chars?: number | null;
  /** Default false. */
  is_error?: boolean;
  exit_code?: number | null;
  duration_ms?: number | null;
  matches?: number | null;
  first_line?: number | null;
  language?: string | null;
  diff?: DiffFile[];
  todos?: TodoItem[];
  subagent?: SubagentRef | null;
  mcp_server?: string | null;
  result_number?: number | null;
}

export interface TranscriptsFindParams {
  builder_id: string;
  session_id?: string | null;
  /** Length at least 1; length at most 1000. */
  query: string;
  /** Default 5000; at least 1; at most 100000. */
  limit?: number;
}

export interface TranscriptsFindResult {
  matches: FindMatch[];
  total: number;
}

export interface TranscriptsPageParams {
  builder_id: string;
  session_id?: string | null;
  /** Default 1; at least 1. */
  start?: number;
  /** Default 200; at least 1; at most 1000. */
  count?: number;
}

export interface TranscriptsPageResult {
  builder: BuilderInfo;
  session_id: string | null;
  messages: MessageView[];
  total: number;
  next_start: number | null;
}

/**
 * A Builder's usage: totals, its subagents' part apart, per model, and the provenance
 * of the prices (``prices of genai-prices 0.2.3``).
 */
export interface UsageInfo {
  total?: Tokens;
  main?: Tokens;
  subagents?: Tokens;
  models?: ModelTokens[];
  context?: number | null;
  /** Default "". */
  prices?: string;
}

export interface UsageReportParams {
  /** Default "day". */
  by?: "day" | "week" | "project" | "agent" | "model";
  since?: string | null;
  until?: string | null;
  workspace_folders?: string[];
  /** Default false. */
  all_projects?: boolean;
}

/** Tokens and cost per group (``lazy usage --json``). */
export interface UsageReportResult {
  by: string;
  since?: string | null;
  until?: string | null;
  projects?: string[] | null;
  rows?: ReportRow[];
  total?: Tokens;
  subagents?: Tokens;
  models?: ModelTokens[];
  /** Default "". */
  prices?: string;
}

/** Every custom method: a request or a notification, and who sends it. */
export const METHODS = {
  "builders/list": { kind: "request", direction: "client->server" },
  "builders/get": { kind: "request", direction: "client->server" },
  "builders/name": { kind: "request", direction: "client->server" },
  "builders/sources": { kind: "request", direction: "client->server" },
  "transcripts/page": { kind: "request", direction: "client->server" },
  "transcripts/find": { kind: "request", direction: "client->server" },
  "export/builder": { kind: "request", direction: "client->server" },
  "search/query": { kind: "request", direction: "client->server" },
  "tasks/promote": { kind: "request", direction: "client->server" },
  "tasks/list": { kind: "request", direction: "client->server" },
  "ask/run": { kind: "request", direction: "client->server" },
  "import/preview": { kind: "request", direction: "client->server" },
  "import/run": { kind: "request", direction: "client->server" },
  "capture/status": { kind: "request", direction: "client->server" },
  "doctor/run": { kind: "request", direction: "client->server" },
  "usage/report": { kind: "request", direction: "client->server" },
  "team/status": { kind: "request", direction: "client->server" },
  "team/builders": { kind: "request", direction: "client->server" },
  "team/page": { kind: "request", direction: "client->server" },
  "team/search": { kind: "request", direction: "client->server" },
  "team/promote": { kind: "request", direction: "client->server" },
  "team/push": { kind: "request", direction: "client->server" },
  "builders/didChange": { kind: "notification", direction: "server->client" },
  "capture/didFail": { kind: "notification", direction: "server->client" },
} as const;

export type MethodName = keyof typeof METHODS;

export const ErrorCodes = {
  NOT_FOUND: -32001,
  AMBIGUOUS: -32002,
  BAD_QUERY: -32003,
  STORE_ERROR: -32004,
  NAME_TAKEN: -32005,
  ALREADY_PROMOTED: -32006,
  ASK_FAILED: -32007,
  TEAM_FAILED: -32008,
} as const;

/** The agents lazy captures, each with the name it is shown by. */
export const AGENTS = {
  claude: "Claude Code",
  codex: "Codex CLI",
  opencode: "OpenCode",
} as const;

export type Agent = keyof typeof AGENTS;

/** A page of Builders, newest first. */
export const BuildersList = { method: "builders/list", kind: "request" } as const;
/** One Builder by id, session id or unique prefix. */
export const BuildersGet = { method: "builders/get", kind: "request" } as const;
/** Name a Builder (its alias, which `lazy builder --resume` takes); null unnames it. */
export const BuildersName = { method: "builders/name", kind: "request" } as const;
/** The agents' files a Builder was captured from. */
export const BuildersSources = { method: "builders/sources", kind: "request" } as const;
/** A range of a Builder's (or a subagent's) messages. */
export const TranscriptsPage = { method: "transcripts/page", kind: "request" } as const;
/** Where a text occurs in a whole Builder (or subagent), as shown. */
export const TranscriptsFind = { method: "transcripts/find", kind: "request" } as const;
/** A Builder (or a range) as Markdown, HTML or JSON, redacted. */
export const ExportBuilder = { method: "export/builder", kind: "request" } as const;
/** Search everything captured (lazy search's query language). */
export const SearchQuery = { method: "search/query", kind: "request" } as const;
/** Promote a range of a Builder's messages to a backlog task. */
export const TasksPromote = { method: "tasks/promote", kind: "request" } as const;
/** Tasks of the workspace, or those promoted from one Builder. */
export const TasksList = { method: "tasks/list", kind: "request" } as const;
/** Ask a Builder or a task a question in a sandboxed one-shot, reporting $/progress (excerpts read); cancellable. */
export const AskRun = { method: "ask/run", kind: "request" } as const;
/** What an import would find; nothing is written. */
export const ImportPreview = { method: "import/preview", kind: "request" } as const;
/** Import the agents' sessions, reporting $/progress; cancellable. */
export const ImportRun = { method: "import/run", kind: "request" } as const;
/** Whether live capture runs, and its last failure. */
export const CaptureStatus = { method: "capture/status", kind: "request" } as const;
/** lazy doctor's health sweep: one line per check; it only looks. */
export const DoctorRun = { method: "doctor/run", kind: "request" } as const;
/** Tokens and cost by day, week, project, agent or model over a span. */
export const UsageReport = { method: "usage/report", kind: "request" } as const;
/** Whether this machine joined a team, its last push and any failure since. */
export const TeamStatus = { method: "team/status", kind: "request" } as const;
/** The team's Builders the viewer can see, newest first, each marked when it grew. */
export const TeamBuilders = { method: "team/builders", kind: "request" } as const;
/** A page of a teammate's Builder (read-only); marks it seen. */
export const TeamPage = { method: "team/page", kind: "request" } as const;
/** Full-text search of the team's Builders the viewer can see. */
export const TeamSearch = { method: "team/search", kind: "request" } as const;
/** Promote a range of a team Builder's messages to a task on the team database. */
export const TeamPromote = { method: "team/promote", kind: "request" } as const;
/** Push this machine's new and grown Builders now (or say what would go). */
export const TeamPush = { method: "team/push", kind: "request" } as const;
/** Builders captured or imported (debounced). */
export const BuildersDidChange = { method: "builders/didChange", kind: "notification" } as const;
/** A capture failed; the file, line and reason. */
export const CaptureDidFail = { method: "capture/didFail", kind: "notification" } as const;

/** Each request's params and result. */
export interface Requests {
  "builders/list": { params: BuildersListParams; result: BuildersListResult };
  "builders/get": { params: BuildersGetParams; result: BuilderInfo };
  "builders/name": { params: BuildersNameParams; result: BuilderInfo };
  "builders/sources": { params: BuildersGetParams; result: BuildersSourcesResult };
  "transcripts/page": { params: TranscriptsPageParams; result: TranscriptsPageResult };
  "transcripts/find": { params: TranscriptsFindParams; result: TranscriptsFindResult };
  "export/builder": { params: ExportBuilderParams; result: ExportBuilderResult };
  "search/query": { params: SearchQueryParams; result: SearchResults };
  "tasks/promote": { params: TasksPromoteParams; result: TasksPromoteResult };
  "tasks/list": { params: TasksListParams; result: TasksListResult };
  "ask/run": { params: AskRunParams; result: AskRunResult };
  "import/preview": { params: ImportParams; result: ImportResult };
  "import/run": { params: ImportParams; result: ImportResult };
  "capture/status": { params: NoParams; result: CaptureStatusResult };
  "doctor/run": { params: NoParams; result: DoctorReport };
  "usage/report": { params: UsageReportParams; result: UsageReportResult };
  "team/status": { params: NoParams; result: TeamStatusResult };
  "team/builders": { params: TeamBuildersParams; result: TeamBuildersResult };
  "team/page": { params: TeamPageParams; result: TeamPageResult };
  "team/search": { params: TeamSearchParams; result: TeamSearchResult };
  "team/promote": { params: TeamPromoteParams; result: TeamPromoteResult };
  "team/push": { params: TeamPushParams; result: TeamPushResult };
}

/** Each notification's params. */
export interface Notifications {
  "builders/didChange": BuildersDidChange;
  "capture/didFail": CaptureFailure;
}

export type RequestName = keyof Requests;
export type NotificationName = keyof Notifications;
