import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import type { MessageView, Tokens, UsageInfo, UsageReportResult } from "../../src/protocol";
import { money, tokensLine, tokensShort, usageSummary, usageTooltip } from "../../src/usage/format";
import { parseHostUsage, parseUsageMessage, series } from "../../src/usage/messages";
import { usageHtml } from "../../src/usage/panel";
import { headerUsage, tokensSpan } from "../../src/webview/usage";
import { renderMessage } from "../../src/webview/render";
import { BuildersProvider } from "../../src/views/builders";
import { UsagePanel } from "../../src/usage/panel";
import { builder, FakeClient, FakeMemento, FakeWebviewPanel, until } from "../fakes";
import { resetMock, Uri, window } from "../mocks/vscode";
import { page } from "../dom";

const t = (over: Partial<Tokens>): Tokens => ({ responses: 1, input: 0, output: 0, cache_read: 0, cache_write: 0, reasoning: 0, cost_micros: null, unpriced: 0, ...over });
const info = (over: Partial<UsageInfo> = {}): UsageInfo => ({
  total: t({ responses: 36, input: 1204, output: 20712, cache_read: 70000, cost_micros: 1_452_310 }),
  main: t({}), subagents: t({ responses: 0 }), models: [], context: 72410, prices: "prices of genai-prices 0.2.3", ...over,
});

describe("usage figures", () => {
  it("reads tokens and cost as lazy show does: unknown, never $0", () => {
    assert.equal(tokensShort(72410), "72.4k");
    assert.equal(tokensShort(1_240_000), "1.2M");
    assert.equal(money(t({ cost_micros: 1_452_310 })), "$1.45");
    assert.equal(money(t({ cost_micros: 120 })), "$0.0001");
    assert.equal(money(t({ cost_micros: null, unpriced: 1 })), "unknown");
    assert.equal(money(t({ cost_micros: 2_000_000, unpriced: 2 })), "$2.00+?");
    assert.equal(tokensLine(t({ input: 100, cache_read: 12000, output: 182 })), "12.1k in (12.0k cached) / 182 out");
  });

  it("the transcript header says context, output, turns and cost", () => {
    assert.equal(usageSummary(info()), "72.4k ctx / 20.7k out · 36 turns · $1.45");
    assert.equal(headerUsage(builder("b1", { usage: info() })), "72.4k ctx / 20.7k out · 36 turns · $1.45");
    assert.equal(headerUsage(builder("b2")), "", "no usage: nothing added");
  });

  it("each message shows its tokens, as text", () => {
    const p = page();
    const m: MessageView = { number: 2, role: "assistant", text: "hi", session_id: "s", timestamp: null, kinds: ["text"],
      tokens: t({ input: 3, cache_read: 27000, output: 412 }) };
    const entry = renderMessage(p.document, m, { formatTime: () => "" });
    assert.equal(entry.querySelector(".head .tokens")?.textContent, "27.0k in (27.0k cached) / 412 out");
    assert.equal(tokensSpan(p.document, { ...m, tokens: null }), null);
  });

  it("the Builders tree's tooltip carries tokens and cost, subagents apart", () => {
    const q = new BuildersProvider({ client: () => undefined, workspaceFolders: () => [], store: new FakeMemento() });
    const withSubs = info({ subagents: t({ responses: 6, output: 3600, cost_micros: 201_100 }) });
    const item = q.builderItem(builder("0197a3c2-aaaa", { usage: withSubs }));
    const tip = item.tooltip as string;
    assert.match(tip, /\nTokens: 71\.2k in \(70\.0k cached\), 20\.7k out, 36 responses\n/);
    assert.match(tip, /\nCost: \$1\.45\n/);
    assert.match(tip, /\nOf it subagents: \$0\.20, 3\.6k out\n/);
    assert.match(tip, /\(prices of genai-prices 0\.2\.3\)$/);
    assert.deepEqual(usageTooltip(null), []);
  });
});

describe("the Usage page", () => {
  const report: UsageReportResult = {
    by: "model", since: null, until: null, projects: null, prices: "prices of genai-prices 0.2.3",
    rows: [
      { group: "claude-sonnet-4-5", tokens: t({ cost_micros: 1_500_000, output: 10 }) },
      { group: "grok-code", tokens: t({ cost_micros: null, unpriced: 1, output: 5 }) },
    ],
    total: t({ responses: 2, cost_micros: 1_500_000, unpriced: 1, output: 15 }), subagents: t({ responses: 0 }), models: [],
  };

  it("charts cost in dollars where any group has a price, else output tokens", () => {
    assert.deepEqual(series(report), { labels: ["claude-sonnet-4-5", "grok-code"], values: [1.5, 0], unit: "USD" });
    const unpriced = { ...report, rows: [{ group: "", tokens: t({ output: 7 }) }] };
    assert.deepEqual(series({ ...unpriced, by: "project" }), { labels: ["(no project)"], values: [7], unit: "output tokens" });
  });

  it("takes only the messages it knows, each field checked", () => {
    assert.deepEqual(parseUsageMessage({ type: "report", by: "week", since: "30d" }), { type: "report", by: "week", since: "30d" });
    assert.ok(parseUsageMessage({ type: "report", by: "'; drop", since: "" }) instanceof Error);
    assert.ok(parseUsageMessage({ type: "exec", cmd: "x" }) instanceof Error);
    const ok = parseHostUsage({ type: "report", result: report, scope: "every project" });
    assert.ok(!(ok instanceof Error) && ok.type === "report");
    assert.ok(parseHostUsage({ type: "report", result: { rows: "x" }, scope: "" }) instanceof Error);
  });

  it("has a strict CSP: its own script by nonce, no remote loads", () => {
    const html = usageHtml({ cspSource: "vscode-resource:", nonce: "N0NCE", scriptUri: "vscode-resource:/usage.js", styleUri: "vscode-resource:/usage.css" });
    const csp = /Content-Security-Policy" content="([^"]+)"/.exec(html)?.[1] ?? "";
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /script-src 'nonce-N0NCE'/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|https?:/);
    assert.doesNotMatch(html, /<script(?![^>]*nonce="N0NCE")/);
  });

  it("bundles Chart.js from node_modules into its own script: nothing loaded remotely", () => {
    const root = path.join(__dirname, "..", "..");
    const build = fs.readFileSync(path.join(root, "esbuild.mjs"), "utf8");
    assert.match(build, /\{ in: "src\/usage\/page\.ts", out: "usage" \}/);
    const src = fs.readFileSync(path.join(root, "src", "usage", "page.ts"), "utf8");
    assert.match(src, /from "chart\.js"/);
    assert.doesNotMatch(src, /https?:\/\//);
    assert.ok(fs.existsSync(path.join(root, "node_modules", "chart.js", "package.json")));
  });
});

describe("Lazy: Usage", () => {
  afterEach(resetMock);

  it("asks the sidecar for the report the page picks, in the Builders view's scope", async () => {
    const result: UsageReportResult = { by: "week", since: "2026-01-01T00:00:00.000Z", until: null, projects: ["/ws/app"],
      rows: [{ group: "2026-03-02", tokens: t({ cost_micros: 10, output: 3 }) }], total: t({ cost_micros: 10 }),
      subagents: t({ responses: 0 }), models: [], prices: "prices of genai-prices 0.2.3" };
    const client = new FakeClient().on("usage/report", () => result);
    const panel = new FakeWebviewPanel();
    window.createWebviewPanel = () => panel.asPanel();
    const log = { warn: () => undefined } as unknown as import("vscode").LogOutputChannel;
    const usage = new UsagePanel({ extensionUri: Uri.file("/ext") as unknown as import("vscode").Uri, client: () => client,
      scope: () => ({ all_projects: false, workspace_folders: ["/ws/app"] }), log });
    usage.show();
    assert.match(panel.webview.html, /script-src 'nonce-/);
    panel.send({ type: "ready" });
    await until("the first report", () => panel.posted.length === 1);
    panel.send({ type: "report", by: "week", since: "7d" });
    await until("the second report", () => panel.posted.length === 2);
    assert.deepEqual(client.callsOf("usage/report").map((c) => c.params), [
      { by: "day", since: "30d", until: null, all_projects: false, workspace_folders: ["/ws/app"] },
      { by: "week", since: "7d", until: null, all_projects: false, workspace_folders: ["/ws/app"] },
    ]);
    assert.equal(panel.posted[1]?.type, "report");
    panel.send({ type: "report", by: "hour", since: "" });  // refused: never reaches the sidecar
    usage.show();  // one panel: shown again
    assert.equal(client.callsOf("usage/report").length, 2);
    usage.dispose();
  });
});
