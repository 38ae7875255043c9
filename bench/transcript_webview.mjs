// The transcript webview in headless Chromium, fed real transcripts/page answers: time to first
// paint and time to render a page. Run by bench/transcript.py (python -m bench.transcript);
// by hand:
//
//   node bench/transcript_webview.mjs --repo . --pages pages.json --out webview.json \
//     [--reps 10] [--scrolls 4] [--chromium /usr/bin/chromium] [--screenshot shot.png]
//
// The contract with the webview (extension/src/webview/transcript.ts), the only things this
// relies on, so a new renderer is measured as long as it keeps them:
// - the page is the extension's own shell: `transcriptHtml(assets)` exported by
//   extension/src/transcript/panels.ts (bundled here with esbuild, `vscode` stubbed), given
//   { cspSource, nonce, scriptUri, styleUri } pointing at extension/dist/webview/transcript.js
//   and transcript.css (what extension/esbuild.mjs builds); any other file the page asks for
//   under the same origin is served from dist/webview/, anything else is refused and counted;
// - the script calls acquireVsCodeApi() and talks through it and window "message" events:
//   it posts {type:"ready"}, is sent {type:"init", builder, sessionId:null, focus:null}, posts
//   {type:"loadPage", sessionId, start, count} and is sent {type:"page", sessionId, start,
//   messages, total, nextStart} built from the captured transcripts/page result for that
//   start (as extension/src/transcript/panels.ts builds it);
// - the messages are rendered into #messages (document.body if there is none), and scrolling
//   to the bottom asks for the next page.
//
// Timing, in the page (performance.now(), 0 = navigation start): a page message is posted
// (t0), a MutationObserver sees #messages change, and the end is the first frame after which
// two more frames passed with no change (a requestAnimationFrame callback, then a
// MessageChannel task: after that frame was painted). First paint = navigation start to the
// end of the first page; page render = t0 to the end, for the first page and for each page
// loaded by scrolling (--scrolls per load, the DOM growing as a reader's does).
import { createRequire } from "node:module";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

const { values: opt } = parseArgs({
  options: {
    repo: { type: "string", default: "." },
    pages: { type: "string" },
    out: { type: "string" },
    reps: { type: "string", default: "10" },
    scrolls: { type: "string", default: "4" },
    chromium: { type: "string", default: process.env.LAZY_CHROMIUM || "/usr/bin/chromium" },
    screenshot: { type: "string" },
    width: { type: "string", default: "1200" },
    height: { type: "string", default: "900" },
  },
});
if (!opt.pages || !opt.out) throw new Error("--pages and --out are required");
const repo = path.resolve(opt.repo);
const dist = path.join(repo, "extension", "dist", "webview");
const requireExt = createRequire(path.join(repo, "extension", "package.json"));
const requirePw = createRequire(path.join(repo, "tests", "vscode", "package.json"));
const esbuild = requireExt("esbuild");
const { chromium } = requirePw("playwright-core");

/** The extension's own transcript shell, from its TypeScript source, `vscode` stubbed. */
async function shellHtml(nonce) {
  const stub = {
    name: "vscode-stub",
    setup(b) {
      b.onResolve({ filter: /^vscode$/ }, () => ({ path: "vscode", namespace: "stub" }));
      b.onLoad({ filter: /.*/, namespace: "stub" }, () => ({
        loader: "js",
        contents: `const h = { get: (t, p) => (p === "then" || p === "__esModule" ? undefined : s),
          apply: () => s, construct: () => s };
        const s = new Proxy(function () {}, h);
        module.exports = s;`,
      }));
    },
  };
  const built = await esbuild.build({
    stdin: {
      contents: 'export { transcriptHtml } from "./transcript/panels";',
      resolveDir: path.join(repo, "extension", "src"),
      loader: "ts",
    },
    bundle: true,
    platform: "node",
    format: "cjs",
    write: false,
    logLevel: "error",
    plugins: [stub],
  });
  const dir = await mkdtemp(path.join(os.tmpdir(), "lazy-shell-"));
  try {
    const file = path.join(dir, "shell.cjs");
    await writeFile(file, built.outputFiles[0].text);
    const { transcriptHtml } = createRequire(file)(file);
    return transcriptHtml({
      cspSource: "file:",
      nonce,
      scriptUri: pathToFileURL(path.join(dist, "transcript.js")).href,
      styleUri: pathToFileURL(path.join(dist, "transcript.css")).href,
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

// In the page before any of its scripts (not subject to its CSP): VS Code's webview API, the
// host's replies from the captured pages (passed in as JSON text, one string per page), and
// the timing.
function initScript(data) {
  const theme = {
    "--vscode-font-family": "system-ui, sans-serif",
    "--vscode-font-size": "13px",
    "--vscode-editor-font-family": "monospace",
    "--vscode-editor-font-size": "14px",
    "--vscode-foreground": "#cccccc",
    "--vscode-editor-background": "#1e1e1e",
    "--vscode-editor-foreground": "#d4d4d4",
    "--vscode-textLink-foreground": "#3794ff",
    "--vscode-textCodeBlock-background": "#2b2b2b",
    "--vscode-panel-border": "#80808059",
    "--vscode-descriptionForeground": "#ccccccb3",
  };
  new MutationObserver((_, obs) => {
    const root = document.documentElement;
    if (!root) return;
    for (const [k, v] of Object.entries(theme)) root.style.setProperty(k, v);
    if (document.body) {
      document.body.classList.add("vscode-dark");
      document.body.dataset.vscodeThemeKind = "vscode-dark";
      obs.disconnect();
    }
  }).observe(document, { childList: true, subtree: true });

  // marks: [what, ms] for each message the webview posts and each reply it is sent
  const bench = (window.__bench = { records: [], errors: [], marks: [], busy: false });
  // what the page's CSP refused, and where (a console message alone does not say)
  document.addEventListener("securitypolicyviolation", (e) => {
    bench.errors.push(`CSP ${e.violatedDirective} refused ${e.blockedURI || "inline"} at ${e.sourceFile}:${e.lineNumber}:${e.columnNumber} ${e.sample}`.slice(0, 300));
  });
  const afterPaint = () =>
    new Promise((resolve) =>
      requestAnimationFrame(() => {
        const ch = new MessageChannel();
        ch.port1.onmessage = () => resolve(performance.now());
        ch.port2.postMessage(0);
      }),
    );
  async function timePage(reply) {
    const list = document.getElementById("messages") || document.body;
    let changed = 0;
    const obs = new MutationObserver((ms) => {
      changed += ms.length;
    });
    obs.observe(list, { childList: true, subtree: true, characterData: true });
    bench.busy = true;
    const t0 = performance.now();
    window.postMessage(reply, "*");
    let end = null;
    let quiet = 0;
    let frames = 0;
    while (quiet < 2 && performance.now() - t0 < 20000) {
      const at = await afterPaint();
      frames++;
      if (changed > 0) {
        end = at;
        changed = 0;
        quiet = 0;
      } else if (end !== null) {
        quiet++;
      }
    }
    obs.disconnect();
    const entries = list.querySelectorAll("[id^='m-']").length;
    bench.records.push({ start: reply.start, messages: reply.messages.length, t0, end, frames, entries });
    bench.busy = false;
  }
  // the host (extension/src/transcript/panels.ts) answering from the captured pages, in a
  // task of its own as an IPC reply would come; a page's JSON is parsed when it is asked for
  const pages = new Map();
  window.__benchPages = (more) => {
    for (const [k, v] of Object.entries(more)) pages.set(Number(k), v);
  };
  window.__benchPages(data.pages);
  function answer(m) {
    if (m.type === "ready") return [{ type: "init", builder: data.builder, sessionId: null, focus: null }];
    if (m.type !== "loadPage") return [];
    const raw = pages.get(m.start);
    if (!raw) return [{ type: "error", message: `bench: no captured page at ${m.start}` }];
    const r = JSON.parse(raw);
    return [{ type: "page", sessionId: m.sessionId, start: m.start, messages: r.messages, total: r.total, nextStart: r.next_start }];
  }
  window.acquireVsCodeApi = () => {
    let state;
    return {
      postMessage(m) {
        bench.marks.push([m.type, performance.now(), m.start ?? null, m.count ?? null]);
        setTimeout(() => {
          for (const reply of answer(m)) {
            bench.marks.push([`host:${reply.type}`, performance.now()]);
            if (reply.type === "page") void timePage(reply);
            else window.postMessage(reply, "*");
          }
        }, 0);
      },
      getState: () => state,
      setState: (s) => {
        state = s;
      },
    };
  };
}

/** Counts in the rendered list: did Markdown and highlighting happen. */
function domCounts() {
  const list = document.getElementById("messages") || document.body;
  const n = (sel) => list.querySelectorAll(sel).length;
  return {
    entries: n("[id^='m-']"),
    elements: n("*"),
    headings: n("h1, h2, h3, h4, h5, h6"),
    strong: n("strong, b"),
    links: n("a[href]"),
    lists: n("ul, ol"),
    tables: n("table"),
    pre: n("pre"),
    code: n("code"),
    highlighted_spans: n("[class^='hljs-'], [class*=' hljs-']"),
    hljs_blocks: n(".hljs"),
    details: n("details"),
    marks: n("mark"),
    heap_bytes: performance.memory ? performance.memory.usedJSHeapSize : null,
  };
}

async function oneLoad(page, url, later, scrolls) {
  const refused = [];
  const onRequest = (r) => {
    if (!r.url().startsWith("file:")) refused.push(r.url().slice(0, 200));
  };
  page.on("request", onRequest);
  await page.goto(url, { waitUntil: "load" });
  const done = (k) => page.waitForFunction((k) => window.__bench.records.length >= k && !window.__bench.busy, k, { timeout: 60000 });
  await done(1);
  // the pages after the first, for the scrolls (sent now: not part of the first load)
  await page.evaluate((more) => window.__benchPages(more), later);
  for (let i = 0; i < scrolls; i++) {
    const before = await page.evaluate(() => window.__bench.records.length);
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    try {
      await done(before + 1);
    } catch {
      break; // no more pages asked for (the end, or no page captured there)
    }
  }
  const state = await page.evaluate(() => ({
    records: window.__bench.records,
    errors: window.__bench.errors,
    marks: window.__bench.marks,
  }));
  const counts = await page.evaluate(domCounts);
  page.off("request", onRequest);
  const requests = state.marks.filter((m) => m[0] === "loadPage").map((m) => [m[2], m[3]]);
  return { ...state, counts, refused, requests };
}

async function main() {
  const data = JSON.parse(await readFile(opt.pages, "utf8"));
  const nonce = "bench" + Math.random().toString(36).slice(2);
  const home = await mkdtemp(path.join(os.tmpdir(), "lazy-chromium-"));
  const index = path.join(home, "index.html");
  await writeFile(index, await shellHtml(nonce));
  const browser = await chromium.launch({
    executablePath: opt.chromium,
    headless: true,
    env: { ...process.env, HOME: home },
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
      "--disable-component-update", "--disable-sync", "--no-first-run", "--enable-precise-memory-info"],
  });
  const loads = [];
  const consoleErrors = [];
  let version = null;
  try {
    const ctx = await browser.newContext({ viewport: { width: Number(opt.width), height: Number(opt.height) } });
    // anything but the page's own files is refused (the webview loads nothing remote)
    await ctx.route(/^(https?|wss?|ftp):/, (route) => route.abort());
    const [first, ...rest] = data.pages.map((p) => [p.params.start, JSON.stringify(p.result)]);
    await ctx.addInitScript(initScript, { builder: data.builder, pages: Object.fromEntries([first]) });
    const later = Object.fromEntries(rest);
    for (let rep = 0; rep < Number(opt.reps); rep++) {
      // a new page each time, as VS Code opens a transcript in a new webview (a new frame,
      // nothing of the last one to tear down)
      const page = await ctx.newPage();
      page.on("console", (m) => {
        if (m.type() === "error" || m.type() === "warning") consoleErrors.push(m.text().slice(0, 300));
      });
      page.on("pageerror", (e) => consoleErrors.push(String(e).slice(0, 300)));
      loads.push(await oneLoad(page, pathToFileURL(index).href, later, Number(opt.scrolls)));
      if (rep === 0 && opt.screenshot) {
        await page.evaluate(() => window.scrollTo(0, 0));
        await page.screenshot({ path: opt.screenshot });
      }
      await page.close();
    }
  } finally {
    version = browser.version();
    await browser.close();
    await rm(home, { recursive: true, force: true });
  }
  const bundle = (await readFile(path.join(dist, "transcript.js"))).length;
  await writeFile(opt.out, JSON.stringify({ chromium: version, bundle_bytes: bundle, loads, console: consoleErrors.slice(0, 20) }, null, 1));
}

await main();
