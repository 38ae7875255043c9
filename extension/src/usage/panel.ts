// Lazy: Usage — tokens and cost by day, week, project, agent or model as charts, from the
// sidecar's usage/report (the figures of `lazy usage`). One panel; the page asks for a report
// (its grouping and span) and draws it with the bundled Chart.js, under the strict CSP every
// lazy webview has (nonce script, no remote loads), in the theme's colours.
import * as vscode from "vscode";
import type { LazyClient } from "../protocol/client";
import { nonce, type PageAssets, webviewPage } from "../webviewPage";
import { type HostToUsage, parseUsageMessage } from "./messages";

export const USAGE_VIEW_TYPE = "lazy.usage";

export function usageHtml(assets: PageAssets): string {
  return webviewPage(
    assets,
    "Usage",
    `<header class="bar">
<h1>Usage</h1>
<label>By <select id="by"><option>day</option><option>week</option><option>project</option><option>agent</option><option>model</option></select></label>
<label>Since <select id="since"><option value="7d">7 days</option><option value="30d" selected>30 days</option><option value="3m">3 months</option><option value="1y">a year</option><option value="">all time</option></select></label>
</header>
<p id="totals" class="totals"></p>
<p id="error" class="error" hidden></p>
<div class="chart"><canvas id="cost" aria-label="cost per group" role="img"></canvas></div>
<div class="chart"><canvas id="tokens" aria-label="tokens per group" role="img"></canvas></div>
<table id="table"><thead><tr><th>group</th><th>responses</th><th>input</th><th>cached</th><th>output</th><th>cost</th></tr></thead><tbody></tbody></table>
<p id="prices" class="prices"></p>`,
  );
}

export interface UsageDeps {
  extensionUri: vscode.Uri;
  client: () => LazyClient | undefined;
  scope: () => { all_projects: boolean; workspace_folders: string[] };
  log: vscode.LogOutputChannel;
}

/** The one Usage panel: shown again when open, else made. */
export class UsagePanel implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;

  constructor(private readonly deps: UsageDeps) {}

  show(): void {
    if (this.panel) {
      this.panel.reveal();
      return;
    }
    const root = vscode.Uri.joinPath(this.deps.extensionUri, "dist", "webview");
    const panel = vscode.window.createWebviewPanel(USAGE_VIEW_TYPE, "Lazy: Usage", vscode.ViewColumn.Active, {
      enableScripts: true,
      localResourceRoots: [root],
    });
    panel.webview.html = usageHtml({
      cspSource: panel.webview.cspSource,
      nonce: nonce(),
      scriptUri: panel.webview.asWebviewUri(vscode.Uri.joinPath(root, "usage.js")).toString(),
      styleUri: panel.webview.asWebviewUri(vscode.Uri.joinPath(root, "usage.css")).toString(),
    });
    const post = (m: HostToUsage): void => { void panel.webview.postMessage(m); };
    const subs = [
      panel.webview.onDidReceiveMessage(async (raw: unknown) => {
        const m = parseUsageMessage(raw);
        if (m instanceof Error) {
          this.deps.log.warn(`usage webview: rejected a message (${m.message})`);
          return;
        }
        const by = m.type === "report" ? m.by : "day";
        const since = m.type === "report" ? m.since : "30d";
        post(await this.report(by, since));
      }),
      panel.onDidDispose(() => {
        this.panel = undefined;
        for (const s of subs) s.dispose();
      }),
    ];
    this.panel = panel;
  }

  private async report(by: string, since: string): Promise<HostToUsage> {
    const client = this.deps.client();
    if (!client) return { type: "error", message: "The lazy sidecar is not running." };
    const scope = this.deps.scope();
    try {
      const result = await client.request("usage/report", {
        by: by as "day",
        since: since || null,
        until: null,
        ...scope,
      });
      const where = scope.all_projects ? "every project" : `${scope.workspace_folders.length} workspace folder(s)`;
      return { type: "report", result, scope: where };
    } catch (e) {
      return { type: "error", message: e instanceof Error ? e.message : String(e) };
    }
  }

  dispose(): void {
    this.panel?.dispose();
  }
}
