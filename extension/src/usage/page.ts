// The Usage webview's script: asks the extension for a report and draws it, a bar chart of
// cost (or output tokens, where no price is known) and a stacked one of tokens per group,
// with Chart.js bundled in this script (no remote load), in the theme's colours (--vscode-*).
// Group names are data: they reach the page as chart labels (canvas text) and textContent.
import { BarController, BarElement, CategoryScale, Chart, Legend, LinearScale, Tooltip } from "chart.js";
import type { Tokens } from "../protocol";
import { inputOf, money, tokensShort } from "./format";
import { type HostToUsage, parseHostUsage, series } from "./messages";

Chart.register(BarController, BarElement, CategoryScale, LinearScale, Tooltip, Legend);

declare function acquireVsCodeApi(): { postMessage(m: unknown): void };
const vscode = acquireVsCodeApi();

const $ = (id: string): HTMLElement => document.getElementById(id) as HTMLElement;
const canvas = (id: string): HTMLCanvasElement => $(id) as HTMLCanvasElement;
const by = $("by") as HTMLSelectElement;
const since = $("since") as HTMLSelectElement;
const charts: Chart[] = [];

function theme(name: string, fallback: string): string {
  return getComputedStyle(document.body).getPropertyValue(name).trim() || fallback;
}

function ask(): void {
  vscode.postMessage({ type: "report", by: by.value, since: since.value });
}

function bars(canvas: HTMLCanvasElement, labels: string[], sets: { label: string; data: number[]; color: string }[]): Chart {
  const fg = theme("--vscode-foreground", "#ccc");
  const grid = theme("--vscode-panel-border", "#444");
  return new Chart(canvas, {
    type: "bar",
    data: { labels, datasets: sets.map((s) => ({ label: s.label, data: s.data, backgroundColor: s.color })) },
    options: {
      animation: false,
      responsive: true,
      maintainAspectRatio: false,
      scales: {
        x: { stacked: sets.length > 1, ticks: { color: fg }, grid: { color: grid } },
        y: { stacked: sets.length > 1, ticks: { color: fg }, grid: { color: grid } },
      },
      plugins: { legend: { labels: { color: fg } } },
    },
  });
}

function row(cells: string[]): HTMLTableRowElement {
  const tr = document.createElement("tr");
  for (const c of cells) {
    const td = document.createElement("td");
    td.textContent = c;
    tr.append(td);
  }
  return tr;
}

const cellsOf = (group: string, t: Tokens): string[] => [
  group, String(t.responses ?? 0), tokensShort(inputOf(t)), tokensShort(t.cache_read ?? 0),
  tokensShort(t.output ?? 0), money(t),
];

function draw(m: Extract<HostToUsage, { type: "report" }>): void {
  $("error").hidden = true;
  for (const c of charts.splice(0)) c.destroy();
  const r = m.result;
  const s = series(r);
  const accent = theme("--vscode-charts-blue", "#3794ff");
  charts.push(bars(canvas("cost"), s.labels, [{ label: s.unit, data: s.values, color: accent }]));
  const rows = r.rows ?? [];
  charts.push(bars(canvas("tokens"), s.labels, [
    { label: "input", data: rows.map((x) => x.tokens.input ?? 0), color: theme("--vscode-charts-green", "#89d185") },
    { label: "cache read", data: rows.map((x) => x.tokens.cache_read ?? 0), color: theme("--vscode-charts-yellow", "#cca700") },
    { label: "cache write", data: rows.map((x) => x.tokens.cache_write ?? 0), color: theme("--vscode-charts-orange", "#d18616") },
    { label: "output", data: rows.map((x) => x.tokens.output ?? 0), color: theme("--vscode-charts-purple", "#b180d7") },
  ]));
  const total = r.total ?? {};
  $("totals").textContent = `${m.scope}: ${money(total)} · ${total.responses ?? 0} responses · ${tokensShort(total.output ?? 0)} out`
    + ((r.subagents?.responses ?? 0) > 0 ? ` · of it subagents ${money(r.subagents ?? {})}` : "");
  const body = $("table").querySelector("tbody");
  if (body) body.replaceChildren(...rows.map((x, i) => row(cellsOf(s.labels[i] ?? x.group, x.tokens))), row(cellsOf("total", total)));
  $("prices").textContent = r.prices ?? "";
}

window.addEventListener("message", (e: MessageEvent) => {
  const m = parseHostUsage(e.data);
  if (m instanceof Error) return;
  if (m.type === "error") {
    $("error").textContent = m.message;
    $("error").hidden = false;
  } else {
    draw(m);
  }
});
by.addEventListener("change", ask);
since.addEventListener("change", ask);
vscode.postMessage({ type: "ready" });
