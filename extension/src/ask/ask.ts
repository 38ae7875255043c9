// "Ask About This Builder…": a question answered in the background by the sidecar's ask/run (a
// sandboxed one-shot reading the transcript in excerpts; minutes, possibly), its $/progress in
// one cancellable notification, the answer in a panel beside the transcript with its warnings
// and how many excerpts it stands on. The answer is model output: the panel shows it as text.
import * as vscode from "vscode";
import { describeFailure, isCancellation, rpcFailure, type LazyClient } from "../protocol/client";
import { type AskRunResult, ErrorCode, isRecord } from "../protocol";
import { parseAnswerMessage, type HostToAnswer } from "./messages";
import { withRequestProgress, type NotificationProgress } from "../sidecar/progress";
import type { ProgressSource, ProgressValue } from "../sidecar/sidecar";
import { nonce, webviewPage, type PageAssets } from "../webviewPage";

export type AskOutcome = "dismissed" | "answered" | "cancelled" | "failed";

export interface AskDeps {
  client: LazyClient;
  progress?: ProgressSource;
  log: vscode.LogOutputChannel;
  /** Where the answer goes (AnswerPanels.show in the extension). */
  show(label: string, question: string, result: AskRunResult): void;
}

export interface AskTarget {
  id: string;
  label: string;
}

/** The sidecar's progress while the request runs, as the notification's message. */
const showMessages = (progress: NotificationProgress) => (v: ProgressValue): void => {
  if (v.kind === "end") return;
  const message = v.message ?? (v.kind === "begin" ? v.title : undefined);
  if (message) progress.report({ message });
};

/** A failed ask as `lazy ask` prints it: the sidecar's sentence (for a missing credential,
 * Docker or agent image, the one sentence with the fix), then [code: detail]. A failure that
 * is not the ask's own (a store error, a protocol one) keeps its JSON-RPC code. */
export function askFailure(e: unknown): string {
  const f = rpcFailure(e);
  if (f.code !== ErrorCode.AskFailed || !isRecord(f.data) || typeof f.data.code !== "string") {
    return `ask failed: ${describeFailure(e)}`;
  }
  const detail = typeof f.data.detail === "string" && f.data.detail ? `: ${f.data.detail}` : "";
  return `${f.message} [${f.data.code}${detail}]`;
}

export async function askAbout(deps: AskDeps, target: AskTarget, question?: string): Promise<AskOutcome> {
  const client = deps.client;
  const asked =
    question ??
    (await vscode.window.showInputBox({
      title: `Ask about ${target.label}`,
      prompt: "A question about this conversation: a sandboxed one-shot answers from its transcript (nothing is written back).",
      placeHolder: "e.g. what did we decide about retention, and why?",
      ignoreFocusOut: true,
      validateInput: (v) => (v.trim() ? undefined : "a question"),
    }));
  if (!asked?.trim()) return "dismissed";
  let result: AskRunResult;
  try {
    // cancelling sends $/cancelRequest and the sidecar kills the one-shot
    result = await withRequestProgress(`Lazy: asking about ${target.label}`, deps.progress, showMessages, (token) =>
      client.request("ask/run", { id: target.id, question: asked.trim() }, token),
    );
  } catch (e) {
    if (isCancellation(e)) {
      void vscode.window.showInformationMessage("Lazy: ask cancelled.");
      return "cancelled";
    }
    const data = rpcFailure(e).data;
    if (isRecord(data) && Array.isArray(data.warnings)) for (const w of data.warnings) deps.log.warn(`ask: ${String(w)}`);
    deps.log.error(`ask/run: ${describeFailure(e)}`);
    void vscode.window.showErrorMessage(`Lazy: ${askFailure(e)}`, "Show Log").then((pick) => {
      if (pick) deps.log.show();
    });
    return "failed";
  }
  for (const w of result.warnings) deps.log.warn(`ask: ${w}`);
  deps.show(target.label, asked.trim(), result);
  return "answered";
}

export const ANSWER_VIEW_TYPE = "lazy.answer";

/** The answer page's shell: static markup, the answer arrives as data. */
export function answerHtml(assets: PageAssets): string {
  return webviewPage(
    assets,
    "Answer",
    `<h1 id="title"></h1>
<p id="question" class="question"></p>
<div id="answer" class="answer"></div>
<p id="counts" class="counts"></p>
<ul id="warnings" class="warnings" hidden></ul>`,
  );
}

/** Answer panels, each beside the editor it was asked from; a `#12` in the answer reveals
 * message 12 in the Builder's transcript. */
export class AnswerPanels implements vscode.Disposable {
  private readonly panels = new Set<vscode.WebviewPanel>();

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly reveal: (builderId: string, number: number) => void,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  show(label: string, question: string, result: AskRunResult): void {
    const root = vscode.Uri.joinPath(this.extensionUri, "dist", "webview");
    const title = `Answer: ${label.length > 30 ? `${label.slice(0, 29)}…` : label}`;
    const panel = vscode.window.createWebviewPanel(ANSWER_VIEW_TYPE, title, { viewColumn: vscode.ViewColumn.Beside, preserveFocus: false }, {
      enableScripts: true,
      localResourceRoots: [root],
    });
    const message: HostToAnswer = { type: "answer", label, question, result };
    panel.webview.html = answerHtml({
      cspSource: panel.webview.cspSource,
      nonce: nonce(),
      scriptUri: panel.webview.asWebviewUri(vscode.Uri.joinPath(root, "answer.js")).toString(),
      styleUri: panel.webview.asWebviewUri(vscode.Uri.joinPath(root, "answer.css")).toString(),
    });
    const subs = [
      panel.webview.onDidReceiveMessage((raw: unknown) => {
        const m = parseAnswerMessage(raw);
        if (m instanceof Error) {
          this.log.warn(`answer webview: rejected a message (${m.message})`);
        } else if (m.type === "ready") {
          // also after the panel was hidden and shown again: its page starts over
          void panel.webview.postMessage(message);
        } else {
          this.reveal(result.builder_id, m.number);
        }
      }),
      panel.onDidDispose(() => {
        this.panels.delete(panel);
        for (const s of subs) s.dispose();
      }),
    ];
    this.panels.add(panel);
  }

  dispose(): void {
    for (const p of [...this.panels]) p.dispose();
  }
}
