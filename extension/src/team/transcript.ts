// A teammate's transcript, host side: the same webview as a local one, its pages from the team
// database (team/page: the Builder's own line as the teammate pushed it, redacted) instead of
// this machine's store. Asking for a page marks the Builder seen on the server, which is what
// takes the Team view's "grew" mark away. Find runs here over the pushed messages, with the
// rule the sidecar's transcripts/find has for local ones (every text a person can see, case
// ignored), since the team has no find of its own.
import type { LazyClient } from "../protocol/client";
import type { BuilderInfo, FindMatch, MessageView, TeamPageResult } from "../protocol";
import type { HostToWebview, TeamOrigin } from "../transcript/messages";
import type { TeamRef } from "./tree";

/** team/page's largest page: what find reads the whole line with. */
const FIND_PAGE = 1000;

export interface TeamHead {
  builder: BuilderInfo;
  origin: TeamOrigin;
}

function originOf(r: TeamPageResult): TeamOrigin {
  return { member: r.member, email: r.email, project: r.project };
}

/** Who and what a teammate's Builder is (its first message's page, the smallest ask). */
export async function teamHead(client: LazyClient, ref: TeamRef): Promise<TeamHead> {
  const r = await client.request("team/page", { builder_id: ref.builderId, email: ref.email, start: 1, count: 1 });
  return { builder: r.builder, origin: originOf(r) };
}

/** A page of a teammate's Builder, as the webview takes a transcripts/page answer. */
export async function teamPage(
  client: LazyClient,
  ref: TeamRef,
  start: number,
  count: number,
): Promise<Extract<HostToWebview, { type: "page" }>> {
  const r = await client.request("team/page", { builder_id: ref.builderId, email: ref.email, start, count });
  return { type: "page", sessionId: null, start, messages: r.messages, total: r.total, nextStart: r.next_start };
}

/** A subagent shown inline on a teammate's transcript: the team holds only the Builder's own
 * line, so an empty page (the webview says "No messages."). */
export function noSubagentPage(sessionId: string, start: number): Extract<HostToWebview, { type: "page" }> {
  return { type: "page", sessionId, start, messages: [], total: 0, nextStart: null, inline: true };
}

/** Every piece of text a person can see in a message, expanded (the sidecar's `searchable`). */
export function searchable(m: MessageView): string[] {
  const parts = m.parts ?? [];
  if (parts.length === 0) return [m.text];
  const out: string[] = [];
  for (const p of parts) {
    if (p.text) out.push(p.text);
    if (p.label) out.push(p.label);
    const t = p.tool;
    if (!t) continue;
    out.push(t.summary);
    if (t.output) out.push(t.output);
    for (const d of t.diff ?? []) out.push(d.diff);
    for (const todo of t.todos ?? []) out.push(todo.text);
  }
  return out;
}

function occurrences(haystack: string, needle: string): number {
  let n = 0;
  for (let i = haystack.indexOf(needle); i >= 0; i = haystack.indexOf(needle, i + needle.length)) n++;
  return n;
}

/** Where `query` occurs (case ignored) in messages: each message's count, up to `limit`
 * messages listed, and the occurrences in all. */
export function findIn(messages: readonly MessageView[], query: string, limit: number): { matches: FindMatch[]; total: number } {
  const needle = query.toLowerCase();
  const matches: FindMatch[] = [];
  let total = 0;
  for (const m of messages) {
    const n = searchable(m).reduce((sum, t) => sum + occurrences(t.toLowerCase(), needle), 0);
    if (n === 0) continue;
    total += n;
    if (matches.length < limit) matches.push({ number: m.number, count: n });
  }
  return { matches, total };
}

/** Find over a teammate's whole Builder: its pages read from the team, then counted here. */
export async function teamFind(client: LazyClient, ref: TeamRef, query: string, limit: number): Promise<{ matches: FindMatch[]; total: number }> {
  const messages: MessageView[] = [];
  for (let start: number | null = 1; start !== null; ) {
    const r: TeamPageResult = await client.request("team/page", { builder_id: ref.builderId, email: ref.email, start, count: FIND_PAGE });
    messages.push(...r.messages);
    // a server that pages backwards would loop here for ever
    start = r.next_start !== null && r.next_start > start ? r.next_start : null;
  }
  return findIn(messages, query, limit);
}
