// Small runtime decoders for what crosses a trust boundary: the sidecar's results and
// notifications, and the messages between the transcript webview and the extension. The
// generated types say what *should* arrive; these make sure a mismatched sidecar version
// fails loudly at the edge instead of deep inside a tree item.
import type {
  AskRunResult,
  BuilderInfo,
  BuildersDidChange,
  BuildersListResult,
  BuildersSourcesResult,
  CaptureFailure,
  CaptureStatusResult,
  DoctorReport,
  HealthCheck,
  ImportReport,
  ImportResult,
  MessageView,
  NotificationName,
  Notifications,
  QuarantineInfo,
  RequestName,
  Requests,
  SearchGroup,
  SearchHit,
  SearchResults,
  SidechainInfo,
  SkipInfo,
  SourceFile,
  Task,
  TasksListResult,
  TasksPromoteResult,
  TranscriptsPageResult,
} from ".";

export class DecodeError extends Error {
  constructor(
    readonly path: string,
    readonly expected: string,
  ) {
    super(`${path || "value"}: expected ${expected}`);
    this.name = "DecodeError";
  }
}

export type Decoder<T> = (value: unknown, path: string) => T;

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export const str: Decoder<string> = (v, p) => {
  if (typeof v !== "string") throw new DecodeError(p, "a string");
  return v;
};

export const num: Decoder<number> = (v, p) => {
  if (typeof v !== "number" || !Number.isFinite(v)) throw new DecodeError(p, "a number");
  return v;
};

export const int: Decoder<number> = (v, p) => {
  if (!Number.isInteger(v)) throw new DecodeError(p, "an integer");
  return v as number;
};

export const bool: Decoder<boolean> = (v, p) => {
  if (typeof v !== "boolean") throw new DecodeError(p, "a boolean");
  return v;
};

export function literal<const T extends string>(...values: T[]): Decoder<T> {
  return (v, p) => {
    if (typeof v !== "string" || !(values as string[]).includes(v)) {
      throw new DecodeError(p, values.map((x) => JSON.stringify(x)).join(" | "));
    }
    return v as T;
  };
}

export function nullable<T>(d: Decoder<T>): Decoder<T | null> {
  return (v, p) => (v === null ? null : d(v, p));
}

/** An optional field: absent (or null, which pydantic may emit for a default) is undefined. */
export function optional<T>(d: Decoder<T>): Decoder<T | undefined> {
  return (v, p) => (v === undefined ? undefined : d(v, p));
}

export function arr<T>(d: Decoder<T>): Decoder<T[]> {
  return (v, p) => {
    if (!Array.isArray(v)) throw new DecodeError(p, "an array");
    return v.map((x, i) => d(x, `${p}[${i}]`));
  };
}

export function tuple2<A, B>(a: Decoder<A>, b: Decoder<B>): Decoder<[A, B]> {
  return (v, p) => {
    if (!Array.isArray(v) || v.length !== 2) throw new DecodeError(p, "a pair");
    return [a(v[0], `${p}[0]`), b(v[1], `${p}[1]`)];
  };
}

export function record<T>(d: Decoder<T>): Decoder<Record<string, T>> {
  return (v, p) => {
    if (!isRecord(v)) throw new DecodeError(p, "an object");
    const out: Record<string, T> = {};
    for (const [k, x] of Object.entries(v)) out[k] = d(x, `${p}.${k}`);
    return out;
  };
}

type Shape<T> = { [K in keyof T]-?: Decoder<T[K]> };

/** An object with exactly the fields of T checked; unknown extra fields are kept (a newer
 * sidecar may add some) but not trusted by any code. */
export function obj<T>(shape: Shape<T>): Decoder<T> {
  return (v, p) => {
    if (!isRecord(v)) throw new DecodeError(p, "an object");
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(v)) if (!(key in shape)) out[key] = value;
    for (const key of Object.keys(shape) as (keyof T & string)[]) {
      const value = shape[key](v[key], p ? `${p}.${key}` : key);
      if (value !== undefined) out[key] = value;
    }
    return out as T;
  };
}

// ---- the protocol's shapes ------------------------------------------------------------------

export const sidechainInfo: Decoder<SidechainInfo> = obj<SidechainInfo>({
  session_id: str,
  agent_id: optional(nullable(str)),
  message_count: optional(int),
});

export const builderInfo: Decoder<BuilderInfo> = obj<BuilderInfo>({
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
});

export const buildersListResult = obj<BuildersListResult>({
  items: arr(builderInfo),
  next_cursor: optional(nullable(str)),
});

export const sourceFile = obj<SourceFile>({
  path: str,
  tool: literal("claude", "codex", "opencode"),
  session_id: str,
  agent_id: optional(nullable(str)),
  size: int,
  exists: bool,
});

export const buildersSourcesResult = obj<BuildersSourcesResult>({
  builder_id: str,
  files: arr(sourceFile),
});

export const messageView = obj<MessageView>({
  number: int,
  role: str,
  text: str,
  session_id: str,
  timestamp: nullable(str),
  kinds: arr(str),
  model: optional(nullable(str)),
  tool_name: optional(nullable(str)),
  calls: optional(arr(str)),
});

export const transcriptsPageResult = obj<TranscriptsPageResult>({
  builder: builderInfo,
  session_id: nullable(str),
  messages: arr(messageView),
  total: int,
  next_start: nullable(int),
});

export const searchHit = obj<SearchHit>({
  number: int,
  role: str,
  session_id: str,
  timestamp: nullable(str),
  score: num,
  snippet: str,
  highlights: optional(arr(tuple2(int, int))),
  sidechain: optional(bool),
  field: optional(literal("conversation", "tools", "memory")),
  kind: optional(literal("conversation", "task", "memory")),
  memory_path: optional(nullable(str)),
  task_code: optional(nullable(str)),
});

export const searchGroup = obj<SearchGroup>({
  builder_id: str,
  short_id: str,
  started_at: nullable(str),
  project: nullable(str),
  tool: str,
  summary: str,
  score: num,
  hits: arr(searchHit),
});

export const searchResults = obj<SearchResults>({
  query: str,
  total_hits: int,
  groups: arr(searchGroup),
});

export const task = obj<Task>({
  code: str,
  goal: str,
  prompt: str,
  parent: optional(nullable(str)),
  status: optional(literal("backlog")),
  created_at: str,
  builder_id: str,
  from_message: int,
  to_message: int,
});

export const tasksPromoteResult = obj<TasksPromoteResult>({
  task,
  overlapping: arr(task),
});

export const tasksListResult = obj<TasksListResult>({ items: arr(task) });

export const askRunResult = obj<AskRunResult>({
  builder_id: str,
  task: optional(nullable(str)),
  answer: str,
  chunks: int,
  relevant_chunks: int,
  warnings: arr(str),
});

const skipInfo = obj<SkipInfo>({ session_id: str, path: str, reason: str });
const quarantineInfo = obj<QuarantineInfo>({ file: str, line: int, reason: str });

export const importReport = obj<ImportReport>({
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

export const importResult = obj<ImportResult>({
  dry_run: bool,
  cancelled: optional(bool),
  reports: record(importReport),
});

export const captureFailure = obj<CaptureFailure>({
  file: str,
  line: optional(nullable(int)),
  reason: str,
  code: str,
  detail: optional(str),
  at: str,
});

export const captureStatusResult = obj<CaptureStatusResult>({
  live: bool,
  roots: arr(str),
  last_sweep_at: nullable(str),
  captured: int,
  last_failure: optional(nullable(captureFailure)),
});

const checkStatus = literal("ok", "warn", "fail");

export const healthCheck = obj<HealthCheck>({
  title: str,
  status: checkStatus,
  detail: optional(arr(str)),
  fix: optional(nullable(str)),
});

export const doctorReport = obj<DoctorReport>({
  status: checkStatus,
  checks: arr(healthCheck),
});

export const buildersDidChange = obj<BuildersDidChange>({
  builder_ids: arr(str),
  reason: literal("captured", "imported"),
});

/** The decoder of each request's result. */
export const RESULT_DECODERS: { [M in RequestName]: Decoder<Requests[M]["result"]> } = {
  "builders/list": buildersListResult,
  "builders/get": builderInfo,
  "builders/name": builderInfo,
  "builders/sources": buildersSourcesResult,
  "transcripts/page": transcriptsPageResult,
  "search/query": searchResults,
  "tasks/promote": tasksPromoteResult,
  "tasks/list": tasksListResult,
  "ask/run": askRunResult,
  "import/preview": importResult,
  "import/run": importResult,
  "capture/status": captureStatusResult,
  "doctor/run": doctorReport,
};

/** The decoder of each notification's params. */
export const NOTIFICATION_DECODERS: { [N in NotificationName]: Decoder<Notifications[N]> } = {
  "builders/didChange": buildersDidChange,
  "capture/didFail": captureFailure,
};
