// A teammate's transcript's header line: whose it is and of which project first, then what a
// local one says (agent, start, size), and that it is read-only. Shared with the webview
// bundle, so nothing here imports vscode (agents.ts does).
import { AGENTS, type BuilderInfo } from "../protocol";
import type { TeamOrigin } from "../transcript/messages";

export function teamMeta(origin: TeamOrigin, b: BuilderInfo, formatTime: (iso: string | null) => string): string {
  const agent = Object.hasOwn(AGENTS, b.tool) ? AGENTS[b.tool as keyof typeof AGENTS] : b.tool;
  return [origin.member, origin.project, agent, formatTime(b.started_at), `${b.message_count} messages`, "read-only"]
    .filter(Boolean)
    .join(" · ");
}
