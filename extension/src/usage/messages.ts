// The messages between the Usage webview and the extension, each checked on receipt. Shared
// by both bundles.
import { message, type MessageShapes, orError, str, usageReportResult, type UsageReportResult } from "../protocol";

export const BYS = ["day", "week", "project", "agent", "model"] as const;
export type By = (typeof BYS)[number];

export type UsageToHost = { type: "ready" } | { type: "report"; by: string; since: string };

export type HostToUsage = { type: "report"; result: UsageReportResult; scope: string } | { type: "error"; message: string };

const PAGE_MESSAGES: MessageShapes<UsageToHost> = { ready: {}, report: { by: str, since: str } };
const HOST_MESSAGES: MessageShapes<HostToUsage> = {
  report: { result: usageReportResult, scope: str },
  error: { message: str },
};

export function parseUsageMessage(raw: unknown): UsageToHost | Error {
  const m = orError(() => message(PAGE_MESSAGES, raw));
  if (!(m instanceof Error) && m.type === "report" && !(BYS as readonly string[]).includes(m.by)) {
    return new Error(`by: one of ${BYS.join(", ")}, not ${JSON.stringify(m.by)}`);
  }
  return m;
}

export function parseHostUsage(raw: unknown): HostToUsage | Error {
  return orError(() => message(HOST_MESSAGES, raw));
}

/** What a chart shows of a report: one bar a group, the cost in dollars where any group has
 * a price, else output tokens; the label of each group as people read it. */
export interface Series {
  labels: string[];
  values: number[];
  unit: "USD" | "output tokens";
}

export function series(r: UsageReportResult): Series {
  const rows = r.rows ?? [];
  const priced = rows.some((x) => (x.tokens.cost_micros ?? 0) > 0);
  return {
    labels: rows.map((x) => label(r.by, x.group)),
    values: rows.map((x) => (priced ? (x.tokens.cost_micros ?? 0) / 1_000_000 : x.tokens.output ?? 0)),
    unit: priced ? "USD" : "output tokens",
  };
}

function label(by: string, group: string): string {
  if (!group) return by === "project" ? "(no project)" : "(unknown)";
  if (by === "week") return `week of ${group}`;
  if (by === "project") return group.split("/").filter(Boolean).pop() ?? group;
  return group;
}
