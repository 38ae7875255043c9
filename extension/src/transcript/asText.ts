// "Open as text": a Builder's transcript as a read-only plain-text document (scheme
// lazy-transcript), for the editor's own find, selection and copy. Plain text, not Markdown:
// the content is agent output and must not be rendered.
import * as vscode from "vscode";
import { builderLabel } from "../views/builders";
import type { LazyClient } from "../protocol/client";
import type { BuilderInfo, MessageView, TranscriptsPageResult } from "../protocol";
import { plainText } from "../text";
import { formatTimestamp } from "../time";
import { agentName } from "../agents";

export const SCHEME = "lazy-transcript";
const PAGE = 1000;

export function transcriptUri(builderId: string, sessionId: string | null, label = "transcript"): vscode.Uri {
  const slug = label.replace(/[^\w.-]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 60) || "transcript";
  const query = new URLSearchParams({ id: builderId, ...(sessionId ? { session: sessionId } : {}) });
  return vscode.Uri.from({ scheme: SCHEME, path: `/${slug}.txt`, query: query.toString() });
}

export function parseTranscriptUri(uri: vscode.Uri): { builderId: string; sessionId: string | null } | undefined {
  const q = new URLSearchParams(uri.query);
  const id = q.get("id");
  return id ? { builderId: id, sessionId: q.get("session") } : undefined;
}

export function formatMessage(m: MessageView): string {
  const head = [`#${m.number}`, m.role, m.tool_name ?? "", formatTimestamp(m.timestamp)].filter(Boolean).join(" · ");
  const lines = [`── ${head} ──`, plainText(m.text)];
  for (const part of m.parts ?? []) if (part.tool) lines.push(`  → ${plainText(part.tool.summary)}`);
  return lines.join("\n");
}

export function formatHeader(b: BuilderInfo, sessionId: string | null): string {
  return [
    builderLabel(b),
    [agentName(b.tool), b.project ?? "", formatTimestamp(b.started_at), `${b.message_count} messages`].filter(Boolean).join(" · "),
    `id: ${b.id}${sessionId ? `\nsubagent session: ${sessionId}` : ""}`,
    "",
  ].map(plainText).join("\n");
}

export class TranscriptTextProvider implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.emitter.event;

  constructor(private readonly client: () => LazyClient | undefined) {}

  async provideTextDocumentContent(uri: vscode.Uri, token: vscode.CancellationToken): Promise<string> {
    const target = parseTranscriptUri(uri);
    const client = this.client();
    if (!target) return "Not a lazy transcript address.";
    if (!client) return "The lazy sidecar is not running (Lazy: Restart Sidecar).";
    const parts: string[] = [];
    let start: number | null = 1;
    let header = false;
    while (start !== null && !token.isCancellationRequested) {
      const page: TranscriptsPageResult = await client.request(
        "transcripts/page",
        { builder_id: target.builderId, session_id: target.sessionId, start, count: PAGE },
        token,
      );
      if (!header) {
        parts.push(formatHeader(page.builder, target.sessionId));
        header = true;
      }
      parts.push(...page.messages.map(formatMessage));
      start = page.next_start;
    }
    return parts.join("\n\n") + "\n";
  }

  dispose(): void {
    this.emitter.dispose();
  }
}

export async function openAsText(builderId: string, sessionId: string | null, label?: string): Promise<void> {
  const doc = await vscode.workspace.openTextDocument(transcriptUri(builderId, sessionId, label));
  await vscode.window.showTextDocument(doc, { preview: false });
}
