// End-to-end: the packaged extension in a real VS Code (code-server 4.100.3), driven through
// playwright-core and Debian's chromium, against a store of sessions written by the real Claude
// Code CLI (tests/agents' pinned `claude` against the scripted fake API; see write_sessions.py).
//
//   LAZY_CODE_SERVER_DIR=<dir from install.sh> node --test --test-concurrency=1 vscode.test.mjs
//
// Normally run through test_vscode.py (pytest), which checks the prerequisites. The tests run in
// order against one code-server and share its state (the live session, the killed sidecar come
// last). Knobs: LAZY_VSIX, LAZY_VENV, LAZY_CHROMIUM, LAZY_VSCODE_TMP (work dir, kept), LAZY_VSCODE_OUT
// (screenshots, logs), LAZY_SIDECAR_PATH (the lazy.sidecar.path setting; by default the sidecar
// packaged in the .vsix runs, under the first python3.1x or python3 on a PATH without any `lazy`:
// what a user with nothing but Python gets). No sleeps as synchronisation: every wait polls a
// condition with a deadline.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, "..", "..");
const VENV = process.env.LAZY_VENV || path.join(REPO, ".venv");
const LAZY = path.join(VENV, "bin", "lazy");
const PYTHON = path.join(VENV, "bin", "python");
const VSIX = process.env.LAZY_VSIX || path.join(REPO, "extension", "lazy-linux-x64.vsix");
const CS_DIR = process.env.LAZY_CODE_SERVER_DIR || "";
const CS_ENTRY = path.join(CS_DIR, "node_modules", "code-server", "out", "node", "entry.js");
const CHROMIUM = process.env.LAZY_CHROMIUM || "/usr/bin/chromium";
const OUT = process.env.LAZY_VSCODE_OUT || path.join(HERE, "out");
const CI = process.env.CI === "true";
const SIDECAR_PATH = process.env.LAZY_SIDECAR_PATH || "";
// the ask's one-shot: a Docker engine with the test agent image, and the fake model API on
// loopback (test_vscode.py starts both); code-server passes them on to the sidecar
const ASK_ENV = Object.fromEntries(
  ["DOCKER_HOST", "ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY"].flatMap((k) => (process.env[k] ? [[k, process.env[k]]] : [])),
);
// the team (test_vscode.py sets it up on a real PostgreSQL before the suite starts): this
// store's member joined, and a teammate's pushed Builder; or why there is none
const TEAM = process.env.LAZY_TEAM ? JSON.parse(process.env.LAZY_TEAM) : null;
const TEAM_MISSING =
  process.env.LAZY_TEAM_MISSING || (TEAM ? "" : "a team database (test_vscode.py sets one up on the postgres fixture)");
const ASK = {
  question: process.env.LAZY_ASK_QUESTION || "",
  answer: process.env.LAZY_ASK_ANSWER || "",
  hang: process.env.LAZY_ASK_HANG || "",
  missing:
    process.env.LAZY_ASK_MISSING ||
    (ASK_ENV.DOCKER_HOST && ASK_ENV.ANTHROPIC_BASE_URL && process.env.LAZY_ASK_QUESTION
      ? ""
      : "a Docker engine with the agent image and the fake model API (test_vscode.py starts them)"),
};

/** PATH without the dirs that hold a `lazy` (the repo's venv, a user install), so the extension
 * falls back to the sidecar bundled in the .vsix. */
const PATH_WITHOUT_LAZY = (process.env.PATH || "")
  .split(":")
  .filter((dir) => dir && !isExecutable(path.join(dir, "lazy")))
  .join(":");

function isExecutable(file) {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------------------------------------
// prerequisites: skip (or, with CI=true, fail) when one is missing
// ---------------------------------------------------------------------------------------------

// the session writer runs the CLI in a loopback-only network namespace
const UNSHARE =
  process.getuid() === 0 ? ["unshare", "--net", "--"] : ["unshare", "--user", "--map-root-user", "--net", "--"];

function missingPrerequisite() {
  if (!fs.existsSync(VSIX)) return `the packaged extension ${VSIX} (cd extension && npm run package)`;
  if (!CS_DIR || !fs.existsSync(CS_ENTRY))
    return `code-server in LAZY_CODE_SERVER_DIR=${CS_DIR || "(unset)"} (tests/vscode/install.sh)`;
  if (!fs.existsSync(CHROMIUM)) return `${CHROMIUM} (apt-get install chromium)`;
  if (!fs.existsSync(LAZY)) return `${LAZY} (make deps)`;
  if (!fs.existsSync(path.join(REPO, "tests", "agents", "node_modules", ".bin", "claude")))
    return "the claude CLI in tests/agents/node_modules (cd tests/agents && npm install)";
  if (spawnSync(UNSHARE[0], [...UNSHARE.slice(1), "true"]).status !== 0)
    return "unshare --net (root, or unprivileged user namespaces)";
  const py = spawnSync("python3", ["-c", "import sys; print(sys.version_info >= (3, 11))"], {
    env: { PATH: PATH_WITHOUT_LAZY },
    encoding: "utf8",
  });
  if (!SIDECAR_PATH && py.stdout?.trim() !== "True")
    return "a python3 ≥ 3.11 on PATH for the bundled sidecar (apt-get install python3)";
  return null;
}
const MISSING = missingPrerequisite();
const SKIP = MISSING && !CI ? `missing: ${MISSING}` : false;

// ---------------------------------------------------------------------------------------------
// helpers
// ---------------------------------------------------------------------------------------------

const delay = (ms) => new Promise((r) => setTimeout(r, ms));

/** Poll `fn` until it returns a truthy value; throw after `timeoutMs` naming `what`. */
async function until(what, fn, timeoutMs = 30_000, intervalMs = 200) {
  const deadline = Date.now() + timeoutMs;
  let last;
  for (;;) {
    try {
      const value = await fn();
      if (value) return value;
      last = undefined;
    } catch (e) {
      if (e?.fatal) throw e;
      last = e;
    }
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${last.message}` : ""}`);
    await delay(intervalMs);
  }
}

function run(argv, opts = {}) {
  const r = spawnSync(argv[0], argv.slice(1), { encoding: "utf8", timeout: 180_000, ...opts });
  if (r.status !== 0)
    throw new Error(`${argv.join(" ")} failed (${r.status ?? r.signal})\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

/** Parent pid of `pid` from /proc, or 0. */
function ppidOf(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  } catch {
    return 0;
  }
}

function cmdlineOf(pid) {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean);
  } catch {
    return [];
  }
}

function allPids() {
  return fs.readdirSync("/proc").filter((n) => /^\d+$/.test(n)).map(Number);
}

function descendsFrom(pid, ancestor) {
  for (let p = pid, n = 0; p > 1 && n < 64; p = ppidOf(p), n++) if (p === ancestor) return true;
  return false;
}

function descendantsOf(ancestor) {
  return allPids().filter((p) => p !== ancestor && descendsFrom(p, ancestor));
}

/** The sidecar processes under this test's code-server (never anyone else's). */
function sidecarPids() {
  return descendantsOf(cs.proc.pid).filter((p) => {
    const argv = cmdlineOf(p);
    return argv.some((a) => a.includes("lazy")) && argv.includes("sidecar");
  });
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const escapeRe = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

// ---------------------------------------------------------------------------------------------
// the fixture: sessions, store, code-server, browser
// ---------------------------------------------------------------------------------------------

const cs = { proc: null, port: 0, log: null, pids: [] };
let tmp, agentRoot, home, workspace, lazyHome, script, other, browser, page;

function writeSessions(name) {
  run([...UNSHARE, PYTHON, path.join(HERE, "write_sessions.py"), name, agentRoot], {
    env: { ...process.env, HOME: home },
  });
  const data = JSON.parse(fs.readFileSync(path.join(agentRoot, `script-${name}.json`), "utf8"));
  assert.equal(data.error, null, data.error);
  return data;
}

function isolatedEnv(extra = {}) {
  const env = {};
  for (const k of ["LANG", "LC_ALL", "TZ", "TERM"]) if (process.env[k]) env[k] = process.env[k];
  return {
    ...env,
    PATH: PATH_WITHOUT_LAZY,
    HOME: home,
    XDG_CONFIG_HOME: path.join(tmp, "xdg", "config"),
    XDG_DATA_HOME: path.join(tmp, "xdg", "data"),
    XDG_CACHE_HOME: path.join(tmp, "xdg", "cache"),
    XDG_STATE_HOME: path.join(tmp, "xdg", "state"),
    SHELL: "/bin/bash",
    ...ASK_ENV,
    ...extra,
  };
}

async function startCodeServer() {
  const dirs = { user: path.join(tmp, "cs", "user"), ext: path.join(tmp, "cs", "ext") };
  for (const d of Object.values(dirs)) fs.mkdirSync(d, { recursive: true });
  const config = path.join(tmp, "cs", "config.yaml");
  fs.writeFileSync(config, "bind-addr: 127.0.0.1:0\nauth: none\ncert: false\n");
  fs.mkdirSync(path.join(dirs.user, "User"), { recursive: true });
  fs.writeFileSync(
    path.join(dirs.user, "User", "settings.json"),
    JSON.stringify(
      {
        "workbench.startupEditor": "none",
        "workbench.tips.enabled": false,
        "workbench.welcomePage.walkthroughs.openOnInstall": false,
        "security.workspace.trust.enabled": false,
        "telemetry.telemetryLevel": "off",
        "extensions.autoUpdate": false,
        "extensions.autoCheckUpdates": false,
        "update.mode": "none",
        ...(SIDECAR_PATH ? { "lazy.sidecar.path": SIDECAR_PATH } : {}),
        "lazy.store": lazyHome,
      },
      null,
      2,
    ),
  );
  const common = ["--config", config, "--extensions-dir", dirs.ext, "--user-data-dir", dirs.user];
  const env = isolatedEnv();
  const installed = run([process.execPath, CS_ENTRY, ...common, "--install-extension", VSIX], { env });
  assert.match(installed, /successfully installed/i, installed);

  cs.log = fs.createWriteStream(path.join(OUT, "code-server.log"));
  // its own process group, so teardown reaches the extension host and the sidecar too
  cs.proc = spawn(
    process.execPath,
    [
      CS_ENTRY,
      "--auth", "none",
      "--bind-addr", "127.0.0.1:0",
      "--disable-telemetry",
      "--disable-update-check",
      "--disable-workspace-trust",
      "--disable-getting-started-override",
      ...common,
      workspace,
    ],
    { env, detached: true, stdio: ["ignore", "pipe", "pipe"] },
  );
  let output = "";
  const onData = (chunk) => {
    output += chunk;
    cs.log.write(chunk);
  };
  cs.proc.stdout.on("data", onData);
  cs.proc.stderr.on("data", onData);
  cs.port = await until(
    "code-server's 'HTTP server listening' line",
    () => {
      if (cs.proc.exitCode !== null) throw new Error(`code-server exited ${cs.proc.exitCode}: ${output}`);
      const m = output.match(/HTTP server listening on http:\/\/127\.0\.0\.1:(\d+)\//);
      return m && Number(m[1]);
    },
    60_000,
    100,
  );
}

async function stopCodeServer() {
  if (!cs.proc) return;
  const pid = cs.proc.pid;
  const tree = [pid, ...descendantsOf(pid)];
  try {
    process.kill(-pid, "SIGTERM");
  } catch {}
  try {
    await until("code-server to exit", () => !tree.some(alive), 10_000, 100);
  } catch {
    for (const p of tree) if (alive(p)) try { process.kill(p, "SIGKILL"); } catch {}
  }
  cs.proc = null;
  cs.log?.end();
}

// last resort on an abrupt exit: the group we started, by its pid
process.on("exit", () => {
  if (cs.proc) try { process.kill(-cs.proc.pid, "SIGKILL"); } catch {}
});

before(async () => {
  if (SKIP) return;
  if (MISSING) throw new Error(`missing (CI=true): ${MISSING}`);
  fs.mkdirSync(OUT, { recursive: true });
  tmp = process.env.LAZY_VSCODE_TMP || fs.mkdtempSync(path.join(os.tmpdir(), "lazy-vscode-"));
  fs.mkdirSync(tmp, { recursive: true });
  agentRoot = path.join(tmp, "agent");
  home = path.join(agentRoot, "home");
  lazyHome = path.join(tmp, "lazy");
  script = writeSessions("initial");
  workspace = script.project;
  // a project of one Builder outside the workspace
  other = writeSessions("other");
  const imported = run([LAZY, "import-conversation", "--all-projects", "--yes"], {
    cwd: workspace,
    env: isolatedEnv({ LAZY_HOME: lazyHome }),
  });
  assert.match(imported, /imported 4 conversation/, imported);

  await startCodeServer();
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    // its profile and crash reports in the work dir, not the real ~/.config/chromium
    env: { ...isolatedEnv(), HOME: path.join(tmp, "chromium-home") },
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-dev-shm-usage",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  page.setDefaultTimeout(30_000);
  await page.goto(`http://localhost:${cs.port}/?folder=${encodeURIComponent(workspace)}`);
  await page.locator(".monaco-workbench").waitFor({ timeout: 60_000 });
});

after(async () => {
  try {
    if (page && !SKIP) await page.screenshot({ path: path.join(OUT, "last.png") }).catch(() => {});
    await browser?.close();
  } finally {
    await stopCodeServer();
    copyExtensionLogs();
  }
});

/** The extension's own log (its output channel) next to the screenshots, for a failure's why. */
function copyExtensionLogs() {
  const logs = tmp && path.join(tmp, "cs", "user", "logs");
  if (!logs || !fs.existsSync(logs)) return;
  for (const rel of fs.readdirSync(logs, { recursive: true })) {
    if (String(rel).includes("lazy-builders.lazy") && String(rel).endsWith(".log"))
      fs.copyFileSync(path.join(logs, rel), path.join(OUT, `extension-${path.basename(String(rel))}`));
  }
}

// ---------------------------------------------------------------------------------------------
// driving the workbench
// ---------------------------------------------------------------------------------------------

/** F1, type the command's title, pick exactly that entry. The palette lists the commands known
 * when it opens, and an extension's arrive a few seconds after the workbench: reopen until listed. */
async function runCommand(title, timeoutMs = 60_000) {
  const input = page.locator(".quick-input-widget input.input");
  const row = page
    .locator(".quick-input-list .monaco-list-row")
    .filter({ has: page.locator(".label-name", { hasText: new RegExp(`^${escapeRe(title)}$`) }) })
    .first();
  await until(
    `the command "${title}" in the palette`,
    async () => {
      if (!(await input.isVisible())) await page.keyboard.press("F1");
      await input.waitFor({ state: "visible" });
      await input.fill(`>${title}`);
      // clicked here, not after: the palette may close under a row just found (a notification
      // or a view taking focus on a loaded machine), and is then opened again
      if (await row.click({ timeout: 2_000 }).then(() => true, () => false)) return true;
      if (await input.isVisible()) await page.keyboard.press("Escape");
      return false;
    },
    timeoutMs,
    0,
  );
  // the palette closes, or gives way to the command's own quick input
  await until(`the palette to close after "${title}"`, async () =>
    !(await input.isVisible()) || !(await input.inputValue()).startsWith(">"),
  );
}

const buildersView = () => page.locator('[id="workbench.view.extension.lazy"]');
const builderRows = () => buildersView().locator(".monaco-list-row");

async function showBuilders() {
  await runCommand("Lazy: Focus on Builders View");
  await buildersView().waitFor({ state: "visible" });
}

async function rowTexts() {
  return builderRows().allInnerTexts();
}

async function waitForRow(text, timeoutMs = 30_000) {
  await until(`a Builders row with "${text}"`, async () => (await rowTexts()).some((t) => t.includes(text)), timeoutMs);
  return builderRows().filter({ hasText: text }).first();
}

/** The webview frames' documents (the inner `active-frame`s), with their text. */
async function webviewTexts() {
  const found = [];
  for (const f of page.frames()) {
    if (f === page.mainFrame()) continue;
    try {
      const text = await f.evaluate(() => (document.body ? document.body.innerText : ""));
      found.push({ frame: f, text });
    } catch {}
  }
  return found;
}

/** The webview frame whose text contains every string of `needles` (polls). */
async function transcriptFrame(needles, timeoutMs = 30_000) {
  return until(
    `a webview showing ${JSON.stringify(needles)}`,
    async () => (await webviewTexts()).find(({ text }) => needles.every((n) => text.includes(n)))?.frame,
    timeoutMs,
  );
}

async function openBuilder(summary) {
  await showBuilders();
  const row = await waitForRow(summary);
  await row.click();
  // a click selects; the open command runs on click or on Enter, depending on the item
  await row.press("Enter").catch(() => {});
}

/** The extension's own log (its output channel's file) as written so far. */
function extensionLog() {
  const logs = path.join(tmp, "cs", "user", "logs");
  if (!fs.existsSync(logs)) return "";
  return fs
    .readdirSync(logs, { recursive: true })
    .map(String)
    .filter((rel) => rel.includes("lazy-builders.lazy") && rel.endsWith(".log"))
    .map((rel) => fs.readFileSync(path.join(logs, rel), "utf8"))
    .join("\n");
}

/** How many times the log says `needle`. */
const logCount = (needle) => extensionLog().split(needle).length - 1;

/** Message #n of the transcript in `frame`, holding `phrase`, is on screen. */
async function messageInView(frame, phrase, n) {
  await until(`message #${n} holding the phrase in view`, () =>
    frame.evaluate(
      ({ phrase, n }) => {
        const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
          const holder = node.parentElement;
          if (!holder || !(holder.closest("article")?.textContent ?? "").includes(phrase)) continue;
          if (!node.textContent.trim()) continue;
          const r = holder.getBoundingClientRect();
          const article = holder.closest("article");
          const number = article?.querySelector(".num")?.textContent?.trim() ?? article?.id;
          if (r.bottom > 0 && r.top < window.innerHeight && r.height > 0 && /(^|\D)(\d+)$/.exec(number)?.[2] === String(n))
            return true;
        }
        return false;
      },
      { phrase, n },
    ),
  );
}

/** Open `folder` in this browser tab, as a user opening another folder does (a new window:
 * its own extension host and sidecar), and show the Builders view (which starts the
 * extension). The window left behind keeps its extension host for a while: its sidecars (by
 * pid, from before) are stopped, so one sidecar serves, as before. */
async function openFolder(folder) {
  const before = sidecarPids();
  await page.goto(`http://localhost:${cs.port}/?folder=${encodeURIComponent(folder)}`);
  await page.locator(".monaco-workbench").waitFor({ timeout: 60_000 });
  await showBuilders();
  await until("the new window's sidecar", () => sidecarPids().some((p) => !before.includes(p)), 60_000);
  for (const pid of before) if (alive(pid)) process.kill(pid, "SIGTERM");
  await until("the old window's sidecar gone", () => !before.some(alive), 20_000);
}

// ---------------------------------------------------------------------------------------------
// the tests (in order)
// ---------------------------------------------------------------------------------------------

test("the Builders view lists the captured sessions", { skip: SKIP }, async () => {
  await showBuilders();
  for (const b of [script.tools, script.plan, script.hostile]) await waitForRow(b.summary, 60_000);
  await page.screenshot({ path: path.join(OUT, "builders.png") });
});

test("the sidecar running is the one packaged in the .vsix, under the system's Python", { skip: SKIP || !!SIDECAR_PATH }, async () => {
  const [pid] = await until("the sidecar process", () => sidecarPids().length === 1 && sidecarPids());
  const argv = cmdlineOf(pid);
  assert.deepEqual(argv.slice(1), ["-m", "lazy.cli.main", "sidecar"], argv.join(" "));
  assert.ok(!argv[0].startsWith(REPO), `the sidecar runs the repo's Python: ${argv[0]}`);
  const environ = fs.readFileSync(`/proc/${pid}/environ`, "utf8").split("\0");
  const pythonPath = (environ.find((e) => e.startsWith("PYTHONPATH=")) || "").slice("PYTHONPATH=".length);
  const extensions = path.join(tmp, "cs", "ext");
  const parts = pythonPath.split(":");
  assert.ok(parts.length >= 2 && parts.every((p) => p.startsWith(extensions)), `PYTHONPATH=${pythonPath}`);
  assert.ok(parts.some((p) => /bundled\/common$/.test(p)) && parts.some((p) => /bundled\/cp3\d+$/.test(p)), pythonPath);
});

test("opening a Builder shows its messages with their numbers", { skip: SKIP }, async () => {
  await openBuilder(script.plan.summary);
  const frame = await transcriptFrame(script.plan.messages.slice(0, 2).map((m) => m.split("\n")[0]));
  const text = await readTranscript(frame);
  // every message in order, each after its number (#1 … #4)
  const pattern = script.plan.messages
    .map((m, i) => `#${i + 1}\\b[\\s\\S]*?${escapeRe(m.split("\n")[0])}`)
    .join("[\\s\\S]*?");
  assert.match(text, new RegExp(pattern), `transcript text:\n${text.slice(0, 2000)}`);
  await page.screenshot({ path: path.join(OUT, "transcript.png") });
});

test("Export Builder… writes the transcript in front as HTML where the user says", { skip: SKIP }, async () => {
  await openBuilder(script.plan.summary);
  await transcriptFrame([script.plan.summary]);
  const before = new Set(fs.readdirSync(workspace));
  await runCommand("Lazy: Export Builder…");
  await page.locator(".quick-input-list .monaco-list-row").filter({ hasText: "one self-contained file" }).first().click();
  // VS Code's own save dialog in the browser, offering the workspace and a name from the
  // Builder's; accepted as it is (what it shows is updated as it lists the folder: typing
  // into it races that)
  const input = page.locator(".quick-input-widget input.input");
  await until("the save dialog", async () => (await input.isVisible()) && /\.html$/.test(await input.inputValue()));
  await input.press("Enter");
  const written = await until(
    "the export written in the workspace",
    () => fs.readdirSync(workspace).find((f) => !before.has(f) && f.endsWith(".html") && fs.statSync(path.join(workspace, f)).size > 0),
    60_000,
  );
  try {
    assert.match(written, /^Plan-the-tangerine-migration/);
    const html = fs.readFileSync(path.join(workspace, written), "utf8");
    assert.ok(html.startsWith("<!DOCTYPE html>") && html.includes(script.plan.summary), html.slice(0, 400));
    assert.ok(!/<script/i.test(html), "an export runs no script");
    const toast = page.locator(".notifications-toasts").filter({ hasText: "Exported messages 1–" });
    await toast.first().waitFor({ state: "visible", timeout: 30_000 });
    assert.match(await toast.first().innerText(), /to Plan-the-tangerine-migration\.html \(\d+ secrets? redacted\)/);
  } finally {
    fs.rmSync(path.join(workspace, written), { force: true });
  }
});

test("a tool call expands to show its output", { skip: SKIP }, async () => {
  await openBuilder(script.tools.summary);
  const frame = await transcriptFrame([script.tools.summary, "Read"]);
  const output = frame.getByText(script.tools.readOutput).first();
  assert.equal(await output.isVisible(), false, "the Read call's output is shown before it is expanded");
  const toggle = frame
    .locator("summary, button, [role=button], [aria-expanded]")
    .filter({ hasText: /\bRead\b/ })
    .first();
  await toggle.click();
  await output.waitFor({ state: "visible" });
});

test("search finds a known phrase and opens its message", { skip: SKIP }, async () => {
  const { phrase, phrase_message: n } = script.plan;
  await runCommand("Lazy: Search Conversations");
  const input = page.locator(".quick-input-widget input.input");
  await input.waitFor({ state: "visible" });
  await input.fill(phrase);
  const item = page.locator(".quick-input-list .monaco-list-row").filter({ hasText: /periwinkle/i }).first();
  await item.waitFor({ timeout: 30_000 });
  await item.click();
  const frame = await transcriptFrame([script.plan.summary, phrase]);
  // the message holding the phrase (#n: the first reply is long enough to push it below the
  // fold when the transcript opens at the top) is scrolled into view
  await messageInView(frame, phrase, n);
  // the panel was sent to #n with what the query matched there (SearchHit.terms)
  const reveal = `reveal #${n}, terms ${JSON.stringify(phrase.split(" "))}`;
  await until(`the extension's log saying ${reveal}`, () => logCount(reveal) === 1);
});

test("a `lazy search` link opens the transcript at its message, with its words", { skip: SKIP }, async () => {
  const { phrase, phrase_message: n } = script.plan;
  // as on a terminal: each hit's "#N role" an OSC 8 link into the editor (code-server's scheme)
  const out = run([LAZY, "search", "lighthouse"], {
    cwd: workspace,
    env: isolatedEnv({ LAZY_HOME: lazyHome, TTY_COMPATIBLE: "1", LAZY_EDITOR_SCHEME: "code-oss" }),
  });
  const links = [...out.matchAll(/\x1b\]8;[^;]*;([^\x1b]+)\x1b\\/g)].map((m) => m[1]);
  assert.equal(links.length, 1, JSON.stringify(out));
  const url = new URL(links[0]);
  assert.equal(`${url.protocol}//${url.host}${url.pathname}`, "code-oss://lazy-builders.lazy/open");
  assert.deepEqual([url.searchParams.get("n"), url.searchParams.getAll("t")], [String(n), ["lighthouse"]]);
  await runCommand("View: Close All Editors");
  await runCommand("Developer: Open URL");
  await page.locator(".quick-input-widget input.input").fill(links[0]);
  await page.keyboard.press("Enter");
  // VS Code may ask first whether the extension may open the link, as for a link from outside
  const frame = await until("the link's transcript (VS Code's question answered, if it asks)", async () => {
    const ask = page.locator(".monaco-dialog-box").filter({ hasText: /open this URI/i });
    if (await ask.isVisible()) {
      await page.screenshot({ path: path.join(OUT, "link-confirm.png") });
      await ask.locator(".monaco-button", { hasText: /^Open$/ }).first().click();
    }
    return (await webviewTexts()).find(({ text }) => text.includes(script.plan.summary) && text.includes(phrase))?.frame;
  });
  await messageInView(frame, phrase, n);
  await until("the extension's log saying the link's reveal", () => logCount(`reveal #${n}, terms ["lighthouse"]`) === 1);
});

test("Lazy: Open Builder… opens a Builder by its alias", { skip: SKIP }, async () => {
  const alias = "checks-run";
  const env = isolatedEnv({ LAZY_HOME: lazyHome });
  run([LAZY, "alias", "set", alias, script.tools.session_id, "--scope", workspace], { cwd: workspace, env });
  try {
    await runCommand("View: Close All Editors");
    await runCommand("Lazy: Open Builder…");
    const input = page.locator(".quick-input-widget input.input");
    await input.fill(alias);
    await page.locator(".quick-input-list .monaco-list-row").filter({ hasText: `Open “${alias}”` }).first().click();
    // its transcript, its tab under its name (builders/get resolved the alias, and labels with it)
    await transcriptFrame([script.tools.summary, "Read"]);
    const tab = page.locator(".tabs-container .tab").filter({ hasText: alias });
    await until(`the transcript's tab titled ${alias}`, async () => (await tab.count()) === 1);
  } finally {
    run([LAZY, "alias", "rm", alias, "--scope", workspace], { cwd: workspace, env });
  }
});

/** The Team view's pane in the Lazy container, and its rows. */
const teamPane = () =>
  buildersView().locator(".pane", { has: page.locator(".pane-header h3.title", { hasText: /^Team$/i }) });
const teamRows = () => teamPane().locator(".monaco-list-row");

test("the Team view lists a teammate's Builder marked as grown; opening it shows their messages read-only, and the mark goes", { skip: SKIP || (!CI && TEAM_MISSING ? `missing: ${TEAM_MISSING}` : false) }, async () => {
  if (TEAM_MISSING) throw new Error(`missing (CI=true): ${TEAM_MISSING}`);
  assert.equal(TEAM.store, lazyHome, "the team was joined with another store than code-server's");
  assert.ok(fs.existsSync(path.join(lazyHome, "team.json")), "this store has not joined the team");
  await runCommand("View: Close All Editors");
  // folded until a member unfolds it (the Builders view keeps the room)
  await runCommand("Lazy: Focus on Team View");
  await teamPane().locator(".pane-header[aria-expanded=true]").waitFor();
  const row = teamRows().filter({ hasText: TEAM.title }).first();
  const description = () => row.locator(".label-description").innerText();
  try {
    await until(`the Team view listing ${TEAM.member}'s "${TEAM.title}"`, async () => (await teamRows().allInnerTexts()).some((t) => t.includes(TEAM.title)), 60_000);
    // under its project, grown (never opened by this member): the dot before member · agent
    await until(`the project ${TEAM.project} above it`, async () => (await teamRows().allInnerTexts()).some((t) => t.includes(TEAM.project)));
    assert.equal(await row.getAttribute("aria-level"), "2");
    assert.match(await description(), new RegExp(`^● ${escapeRe(TEAM.member)} · Claude Code · `));
    assert.equal(await row.locator(".codicon-circle-filled").count(), 1, "the grown Builder's icon");
    await page.screenshot({ path: path.join(OUT, "team.png") });

    await row.click();
    const frame = await transcriptFrame(TEAM.messages, 60_000);
    const shown = await frame.evaluate(() => ({
      meta: document.getElementById("meta")?.textContent ?? "",
      text: document.getElementById("messages")?.innerText ?? "",
      rangeButtons: document.querySelectorAll("button.range-start, button.range-end").length,
      ask: document.getElementById("ask")?.hidden,
      asText: document.getElementById("open-as-text")?.hidden,
    }));
    // whose it is, each message after its number, and nothing offered that writes or asks
    assert.ok(shown.meta.startsWith(`${TEAM.member} · ${TEAM.project} · `), shown.meta);
    assert.match(shown.meta, /read-only$/);
    assert.match(shown.text, new RegExp(`#1\\b[\\s\\S]*?${escapeRe(TEAM.messages[0])}[\\s\\S]*?#2\\b[\\s\\S]*?${escapeRe(TEAM.messages[1])}`), shown.text);
    assert.equal(shown.rangeButtons, 0, "Start here / End here offered on a teammate's transcript");
    assert.equal(shown.ask, true, "Ask about this Builder… offered on a teammate's transcript");
    assert.equal(shown.asText, true, "Open as text offered on a teammate's transcript");
    await page.screenshot({ path: path.join(OUT, "team-transcript.png") });

    // opened, it is seen (on the server): the view asks again and the mark is gone
    await until("the grown mark gone", async () => !(await description()).startsWith("●"), 60_000);
    assert.match(await description(), new RegExp(`^${escapeRe(TEAM.member)} · `));
    assert.equal(await row.locator(".codicon-circle-filled").count(), 0);

    // the search pick's toggle (offered: this machine joined) searches the team; a hit opens
    // the teammate's transcript at its message
    await runCommand("View: Close All Editors");
    await runCommand("Lazy: Search Conversations");
    const toggle = page
      .locator('.quick-input-widget .action-label[aria-label="Search the team"], .quick-input-widget .action-label[title="Search the team"]')
      .first();
    await toggle.click();
    await page.locator('.quick-input-widget .action-label[aria-label="Search this machine"], .quick-input-widget .action-label[title="Search this machine"]').first().waitFor();
    const reveals = logCount("reveal #1");
    await page.locator(".quick-input-widget input.input").fill("kumquat");
    const hit = page.locator(".quick-input-list .monaco-list-row").filter({ hasText: `${TEAM.member} · ${TEAM.project} · #1` }).first();
    await hit.click();
    await transcriptFrame(TEAM.messages, 60_000);
    await until("the log saying the team hit's landing", () => logCount("reveal #1") > reveals);
  } finally {
    await runCommand("View: Close All Editors");
    // folded again: the views below have their room back for the tests after this one
    await foldViews(["Team"], true);
  }
});

const CORPUS = process.env.LAZY_CORPUS || path.join(REPO, "..", "shared", "corpus");
const CCL_DATA = path.join(CORPUS, "claude-code", "handgemacht-ai__claude-code-log", "test", "test_data");

/** Open a Builder by its id through Lazy: Open Builder… and return its transcript frame. */
async function openById(id, needles) {
  await runCommand("View: Close All Editors");
  await runCommand("Lazy: Open Builder…");
  const input = page.locator(".quick-input-widget input.input");
  await input.fill(id);
  await page.locator(".quick-input-list .monaco-list-row").filter({ hasText: `Open “${id}”` }).first().click();
  return transcriptFrame(needles, 60_000);
}

async function colorTheme(name) {
  await runCommand("Preferences: Color Theme");
  const input = page.locator(".quick-input-widget input.input");
  await input.fill(name);
  await page.locator(".quick-input-list .monaco-list-row").filter({ hasText: name }).first().click();
  await until("the theme picker to close", async () => !(await input.isVisible()));
}

/** Scroll the transcript in `frame` down a screen at a time until `selector` matches: its
 * messages' bodies are built as they near the view, as a reader scrolling meets them. */
async function scrollToFind(frame, selector) {
  for (let screens = 0; screens < 400; screens++) {
    if ((await frame.locator(selector).count()) > 0) return;
    await frame.evaluate(
      () =>
        new Promise((resolve) => {
          window.scrollBy(0, window.innerHeight);
          // two frames: the observer has seen the new position and built what it found
          requestAnimationFrame(() => requestAnimationFrame(resolve));
        }),
    );
  }
  throw new Error(`no ${selector} in the transcript, scrolled to its end`);
}

/** The text of every message of the transcript in `frame`, in order, read as a reader does:
 * scrolled from the top to the end a screen at a time (bodies are built near the view). */
async function readTranscript(frame) {
  const seen = new Map();
  await frame.evaluate(() => window.scrollTo(0, 0));
  for (let screens = 0; screens < 400; screens++) {
    const { texts, end } = await frame.evaluate(
      () =>
        new Promise((resolve) =>
          // two frames: the observer has seen this position and built what it found
          requestAnimationFrame(() =>
            requestAnimationFrame(() => {
              const texts = [...document.querySelectorAll("article.msg[id]")]
                .filter((a) => a.querySelector(":scope > .parts")?.childElementCount)
                .map((a) => [Number(a.id.slice(2)), a.textContent]);
              const root = document.documentElement;
              const end = window.scrollY + window.innerHeight >= root.scrollHeight - 2;
              window.scrollBy(0, window.innerHeight);
              resolve({ texts, end });
            }),
          ),
        ),
    );
    for (const [n, t] of texts) seen.set(n, t);
    if (end) break;
  }
  return [...seen].sort((a, b) => a[0] - b[0]).map(([n, t]) => `#${n} ${t}`).join("\n");
}

/** Open the first `details` matching `selector` (its summary clicked) and shoot it. */
async function shoot(frame, selector, file, check) {
  await frame.evaluate(() => window.scrollTo(0, 0));
  await scrollToFind(frame, selector);
  const el = frame.locator(selector).first();
  await el.scrollIntoViewIfNeeded();
  if (!(await el.evaluate((d) => d.tagName !== "DETAILS" || d.open))) await el.locator(":scope > summary").click();
  await until(`${selector} shown`, async () => (await el.evaluate(check)) === true);
  await el.screenshot({ path: path.join(OUT, file) });
}

test("the corpus session 7acd37a8 reads as Markdown, diffs, checklists, shell output, thinking and subagents, light and dark", { skip: SKIP }, async () => {
  const env = isolatedEnv({ LAZY_HOME: lazyHome });
  const staged = path.join(tmp, "corpus-projects");
  fs.cpSync(path.join(CCL_DATA, "real_projects", "-Users-dain-workspace-JSSoundRecorder"), path.join(staged, "jss"), { recursive: true });
  fs.cpSync(path.join(CCL_DATA, "async_agents"), path.join(staged, "async"), { recursive: true });
  run([LAZY, "import-conversation", "--source", staged, "--all-projects", "--yes"], { cwd: workspace, env });
  for (const [theme, suffix] of [["Light Modern", "light"], ["Dark Modern", "dark"]]) {
    await colorTheme(theme);
    const frame = await openById("7acd37a8", ["CLAUDE.md"]);
    await shoot(frame, ".part.text .md:has(pre.md-code)", `md-code-${suffix}.png`, (e) => (e.querySelector("pre.md-code code")?.textContent ?? "").length > 0);
    await shoot(frame, "details.part.tool.kind-edit", `edit-diff-${suffix}.png`, (e) => e.querySelectorAll(".dl-add").length > 0 && e.querySelectorAll(".dl-del").length > 0);
    await shoot(frame, "details.part.tool.kind-todo", `todo-${suffix}.png`, (e) => e.querySelectorAll("li.todo").length === 6);
    await shoot(frame, "details.part.tool.kind-shell", `bash-${suffix}.png`, (e) => (e.querySelector("pre.output")?.textContent ?? "").length > 0);
    await scrollToFind(frame, "details.part.thinking");
    const thinking = frame.locator("details.part.thinking").first();
    await thinking.scrollIntoViewIfNeeded();
    assert.equal(await thinking.evaluate((d) => d.open), false, "thinking is folded");
    await thinking.screenshot({ path: path.join(OUT, `thinking-folded-${suffix}.png`) });
    await shoot(frame, "details.part.thinking", `thinking-open-${suffix}.png`, (e) => e.open && (e.textContent ?? "").length > 40);
    // find over the whole Builder: a word in a later page, counted by the sidecar, marked
    await frame.locator("#find").fill("webkitAudioContext");
    await frame.locator("#find").press("Enter");
    await until("find's count", async () => /\d+ of \d+/.test((await frame.locator("#find-count").textContent()) ?? ""));
    const hit = frame.locator("mark.hit.current").first();
    await hit.waitFor({ state: "visible", timeout: 30_000 });
    await hit.locator("xpath=ancestor::article").first().screenshot({ path: path.join(OUT, `find-hit-${suffix}.png`) });
    const sub = await openById("eb000000", ["Coverage analysis"]);
    await shoot(sub, "details.part.tool.kind-task", `subagent-${suffix}.png`, (e) => (e.querySelector(".subagent")?.textContent ?? "").includes("Coverage analysis"));
  }
});

test("the hostile transcript renders markup, links and ANSI escapes as inert text", { skip: SKIP }, async () => {
  await openBuilder(script.hostile.summary);
  const frame = await transcriptFrame(["<script>window.__pwned=1</script>"]);
  const text = await frame.evaluate(() => document.body.innerText);
  for (const literal of ['<img src=x onerror="window.__pwned=1">', "javascript:window.__pwned=1", "red"])
    assert.ok(text.includes(literal), `"${literal}" is not shown as text:\n${text.slice(0, 2000)}`);
  // escapes stripped (or shown escaped): no raw ESC in any element's own text
  const raw = await frame.evaluate(() =>
    [...document.querySelectorAll("body *")]
      .filter((e) => [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.includes("\x1b")))
      .map((e) => `<${e.tagName.toLowerCase()}${e.id ? ` id=${e.id}` : ""}${e.className ? ` class="${e.className}"` : ""}>`),
  );
  assert.deepEqual(raw, [], "a raw ESC character reached the page in these elements");
  for (const f of page.frames()) {
    const state = await f
      .evaluate(() => ({
        pwned: typeof window.__pwned,
        scripts: [...document.querySelectorAll("script")].filter((s) => s.textContent.includes("__pwned")).length,
        handlers: document.querySelectorAll("[onerror]").length,
        jsLinks: [...document.querySelectorAll("a[href]")].filter((a) => /^\s*javascript:/i.test(a.getAttribute("href"))).length,
      }))
      .catch((e) => ({ error: String(e) }));
    if (state.error) continue; // a frame that went away
    assert.deepEqual(state, { pwned: "undefined", scripts: 0, handlers: 0, jsLinks: 0 }, `frame ${f.url()}`);
  }
});

/** Right-click `target` and run the context menu's `title`. The item is focused by hovering
 * and run with Enter: a click landing while the menu still settles is ignored by the menu. */
async function contextMenu(target, title) {
  await target.click({ button: "right" });
  const item = page.locator(".context-view .monaco-menu .action-item").filter({ hasText: title }).first();
  await item.waitFor({ state: "visible" });
  await until(`"${title}" focused in the context menu`, async () => {
    await item.hover();
    return /\bfocused\b/.test((await item.getAttribute("class")) ?? "");
  });
  await page.keyboard.press("Enter");
  await item.waitFor({ state: "hidden" });
}

/** The transcript frame's promote form, once shown, with its texts. */
async function promoteForm(frame) {
  const form = frame.locator("#promote");
  await form.waitFor({ state: "visible" });
  return form;
}

/** Click "Start here" on message `from` and "End here" on message `to` in the transcript. */
async function pickRange(frame, from, to) {
  await frame.locator(`#m-${from} button.range-start`).click();
  await frame.locator(`#m-${to} button.range-end`).click();
}

/** The tasks `lazy tasks list --json` reads from the test's store. */
function storedTasks() {
  const out = run([LAZY, "tasks", "list", "--all-projects", "--json"], { env: isolatedEnv({ LAZY_HOME: lazyHome }) });
  return JSON.parse(out).tasks.map((t) => ({
    code: t.code,
    from: t.from_message ?? t.fromMessage,
    to: t.to_message ?? t.toMessage,
  }));
}

async function tasksViewText() {
  await runCommand("Lazy: Focus on Tasks View");
  return buildersView().innerText();
}

let promotedCode = "";

test("the Tasks view, with no task yet, says what a task is and how to promote one", { skip: SKIP }, async () => {
  await until("the Tasks view's welcome", async () => {
    const text = await tasksViewText();
    return /No tasks yet\. A task is a range of a Builder's messages/.test(text) && /Start here[\s\S]*End here/.test(text);
  });
  await page.screenshot({ path: path.join(OUT, "tasks-empty.png") });
});

test("promoting messages 2–3 through the transcript's form, the same range refused, an overlap shown", { skip: SKIP }, async () => {
  // the Builders view's Promote Messages to Task… leads to the transcript's form: pick a range
  await showBuilders();
  const row = await waitForRow(script.plan.summary);
  await contextMenu(row, "Promote Messages to Task…");
  const frame = await transcriptFrame(["Pick the messages to promote", ...script.plan.messages.slice(0, 2).map((m) => m.split("\n")[0])]);
  await pickRange(frame, 2, 3);
  const form = await promoteForm(frame);
  assert.match(await frame.locator("#promote-range").innerText(), /#2–3/);
  // the fallbacks shown as placeholders
  assert.match(await frame.locator("#promote-goal").getAttribute("placeholder"), /what the human said/);
  assert.match(await frame.locator("#promote-code").getAttribute("placeholder"), /from the goal/);
  assert.ok(await frame.locator("#m-2").evaluate((e) => e.closest(".entry").classList.contains("in-range")), "#2 is not highlighted");
  await frame.locator("#promote-goal").fill("Settle the palette");
  await page.screenshot({ path: path.join(OUT, "promote.png") }); // the form, filled in
  await form.locator("button", { hasText: "Promote to task" }).click();
  const notice = frame.locator("#notice");
  await until("the promoted notice", async () => /Promoted #2–3 to task \S+\./.test(await notice.innerText()));
  promotedCode = /to task (\S+)\./.exec(await notice.innerText())[1];
  assert.ok(!(await form.isVisible()), "the form stays open after the promotion");
  // the promoted range is marked
  await until("#2 and #3 marked with the task", () =>
    frame.evaluate((code) => [2, 3].every((n) => document.getElementById(`m-${n}`)?.textContent.includes(`task ${code}`)), promotedCode),
  );
  assert.deepEqual(storedTasks().filter((t) => t.code === promotedCode), [{ code: promotedCode, from: 2, to: 3 }]);
  await page.screenshot({ path: path.join(OUT, "promoted.png") });
  await until(`the Tasks view listing ${promotedCode}`, async () => (await tasksViewText()).includes(promotedCode));

  // the same range again: the refusal, naming the task, before submit ...
  await pickRange(frame, 2, 3);
  await promoteForm(frame);
  const same = frame.locator("#promote-same");
  await until("the same-range warning", async () => (await same.isVisible()) && (await same.innerText()).includes(`already promoted to task ${promotedCode}`));
  // ... and the sidecar's own refusal when submitted anyway
  await form.locator("button", { hasText: "Promote to task" }).click();
  await until("the sidecar's refusal", async () => /Refused:.*already promoted.*\(code -32006\)/s.test(await same.innerText()));
  assert.equal(storedTasks().length, 1);

  // an overlapping range: shown before submit
  await pickRange(frame, 3, 4);
  await promoteForm(frame);
  await until("the overlap", async () => (await frame.locator("#promote-overlap").innerText()).includes(`task ${promotedCode} (#2–3)`));
  assert.ok(!(await same.isVisible()), "an overlap is shown as the same range");
  await form.locator("button", { hasText: "Cancel" }).click();
  await form.waitFor({ state: "hidden" });
});

test("the transcript as text offers the sidecar's code action for a selection spanning messages, into the same form", { skip: SKIP }, async () => {
  await openBuilder(script.plan.summary);
  const frame = await transcriptFrame([script.plan.summary]);
  await frame.locator("#open-as-text").click();
  const editor = page.locator(".editor-instance .monaco-editor").filter({ hasText: "── #1" }).first();
  await editor.waitFor({ state: "visible" });
  await editor.locator(".view-lines").click();
  // select from message 3's header to message 4's: the editor's find, a multi-line regex
  await page.keyboard.press("Control+f");
  const find = page.locator(".find-widget textarea, .find-widget input").first();
  await find.waitFor({ state: "visible" });
  const regex = page.locator(".find-widget .codicon-regex").first();
  if ((await regex.getAttribute("aria-checked")) !== "true") await regex.click();
  await find.fill("── #3 ·(?:.|\\n)*?── #4 ·");
  await until("the find widget to match", async () => /1 of 1/.test(await page.locator(".find-widget .matchesCount").innerText()));
  await page.keyboard.press("Enter");
  await page.keyboard.press("Escape");
  // the sidecar's code action (textDocument/codeAction) for that selection; VS Code asks for
  // none in a read-only editor, so Promote Selected Messages to Task… asks and offers it
  await runCommand("Lazy: Promote Selected Messages to Task…");
  const title = "Promote messages 3–4 to task";
  const action = page.locator(".quick-input-list .monaco-list-row").filter({ hasText: title }).first();
  await action.waitFor({ timeout: 30_000 });
  await page.screenshot({ path: path.join(OUT, "code-action.png") });
  await action.click();
  const formFrame = await transcriptFrame(["Promote messages #3–4 to a task"]);
  const form = await promoteForm(formFrame);
  assert.ok(await formFrame.locator("#m-3").evaluate((e) => e.closest(".entry").classList.contains("in-range")), "#3 is not highlighted");
  // it overlaps the task of the test before
  if (promotedCode) assert.match(await formFrame.locator("#promote-overlap").innerText(), new RegExp(`task ${escapeRe(promotedCode)}`));
  await form.locator("button", { hasText: "Promote to task" }).click();
  await until("the promoted notice", async () => /Promoted #3–4 to task \S+\./.test(await formFrame.locator("#notice").innerText()));
  assert.ok(storedTasks().some((t) => t.from === 3 && t.to === 4), JSON.stringify(storedTasks()));
});

test("Ask About This Builder… answers beside the transcript through the real one-shot", { skip: SKIP || (!CI && ASK.missing ? `missing: ${ASK.missing}` : false) }, async () => {
  if (ASK.missing) throw new Error(`missing (CI=true): ${ASK.missing}`);
  await showBuilders();
  const row = await waitForRow(script.plan.summary);
  await contextMenu(row, "Ask About This Builder…");
  const input = page.locator(".quick-input-widget input.input");
  await input.waitFor({ state: "visible" });
  await input.fill(ASK.question);
  await page.keyboard.press("Enter");
  // the background progress: a notification, cancellable
  const toast = page.locator(".notification-toast").filter({ hasText: /asking about/i }).first();
  await toast.waitFor({ state: "visible", timeout: 30_000 });
  await page.screenshot({ path: path.join(OUT, "ask-progress.png") });
  // the answer beside, with its counts (a model in a container: minutes at worst)
  // a failed ask says so, or names what it lacks (the credential, Docker, the agent image)
  const failed = page.locator(".notification-toast").filter({ hasText: /ask failed|Lazy: (lazy ask|the agent image) /i }).first();
  const frame = await until(
    "the answer beside",
    async () => {
      // a failure fails now, with the sidecar's reason, not at the deadline
      if (await failed.isVisible()) throw Object.assign(new Error(await failed.innerText()), { fatal: true });
      return (await webviewTexts()).find(({ text }) => text.includes(ASK.answer) && text.includes("1 excerpt read, 1 relevant"))?.frame;
    },
    300_000,
  );
  assert.ok((await page.locator(".editor-group-container").count()) >= 2, "the answer is not beside the editor");
  await page.screenshot({ path: path.join(OUT, "answer.png") });
  // its #2 reveals message 2 in the transcript
  await frame.locator("button.ref", { hasText: "#2" }).first().click();
  await transcriptFrame([script.plan.summary, script.plan.messages[1].split("\n")[0]]);
});

/** lazy's one-shot containers on the test's Docker engine (never anyone else's). */
function oneshotContainers() {
  return run(["docker", "ps", "-a", "-q", "--filter", "label=lazy.oneshot"], { env: { ...process.env, ...ASK_ENV } })
    .split("\n")
    .filter(Boolean);
}

test("cancelling an ask stops its one-shot", { skip: SKIP || (!CI && ASK.missing ? `missing: ${ASK.missing}` : false) }, async () => {
  if (ASK.missing) throw new Error(`missing (CI=true): ${ASK.missing}`);
  assert.ok(ASK.hang, "LAZY_ASK_HANG: a question the fake model never answers");
  await showBuilders();
  await contextMenu(await waitForRow(script.plan.summary), "Ask About This Builder…");
  const input = page.locator(".quick-input-widget input.input");
  await input.waitFor({ state: "visible" });
  await input.fill(ASK.hang);
  await page.keyboard.press("Enter");
  const toast = page.locator(".notification-toast").filter({ hasText: /asking about/i }).first();
  await toast.waitFor({ state: "visible", timeout: 30_000 });
  // the one-shot is running (the model asked, and never answering) when it is cancelled
  await until("the one-shot's container", () => oneshotContainers().length > 0, 120_000);
  await toast.hover();
  await toast.locator(".monaco-button", { hasText: "Cancel" }).first().click();
  await page.locator(".notification-toast").filter({ hasText: "Lazy: ask cancelled." }).first().waitFor({ timeout: 60_000 });
  await until("the one-shot's container removed", () => oneshotContainers().length === 0, 60_000);
});

test("an empty workspace says how many conversations other projects hold; Show All Projects lists them, a project of one Builder at the top, each with its agent's icon", { skip: SKIP }, async () => {
  const empty = path.join(tmp, "empty");
  fs.mkdirSync(empty, { recursive: true });
  await openFolder(empty);
  try {
    // the workspace's three, the other project's one, and the two corpus sessions imported above
    const said = "No conversations for this workspace; 6 in other projects.";
    await until(`the Builders view saying "${said}"`, async () => (await buildersView().innerText()).includes(said), 60_000);
    const showAll = await waitForRow("Show All Projects");
    await page.screenshot({ path: path.join(OUT, "empty-workspace.png") });
    await showAll.click();
    // the workspace's project of three Builders is a folder; the other project's one Builder
    // is at the top, its project in its description
    const lone = await waitForRow(other.other.summary);
    assert.match(await lone.locator(".label-description").innerText(), /^other · /);
    assert.equal(await lone.getAttribute("aria-level"), "1", "the one Builder of its project is not in a folder");
    const folder = await waitForRow("project");
    assert.equal(await folder.getAttribute("aria-expanded"), "true");
    const plan = await waitForRow(script.plan.summary);
    assert.equal(await plan.getAttribute("aria-level"), "2");
    // each Builder with its agent's mark (Claude Code's, in the theme's variant)
    for (const row of [lone, plan]) {
      const icon = await row.locator(".custom-view-tree-node-item-icon").first().evaluate((e) => getComputedStyle(e).backgroundImage);
      assert.match(decodeURIComponent(icon), /\/lazy-builders\.lazy-[^/]+\/media\/agents\/claude-(light|dark)\.svg/, icon);
    }
    assert.ok(!(await buildersView().innerText()).includes(said), "the message stays once it shows them");
    await page.screenshot({ path: path.join(OUT, "builders-icons.png") });
  } finally {
    await openFolder(workspace);
  }
  await waitForRow(script.plan.summary, 60_000);
});

test("a session written while VS Code is open appears without a refresh", { skip: SKIP }, async () => {
  await showBuilders();
  const live = writeSessions("live").live;
  await waitForRow(live.summary, 60_000);
});

test("a killed sidecar shows in the status bar and Restart Sidecar recovers", { skip: SKIP }, async () => {
  const items = page.locator('[id^="lazy-builders.lazy"]');
  const status = () => items.allInnerTexts().then((t) => t.join(" | "));
  await items.first().waitFor({ state: "visible" });
  const healthy = await status();
  // VS Code captures live: no hooks and no daemon are an info with the reason, not warnings
  // (the other views folded, so the Health view's rows down to them are drawn)
  await runCommand("Lazy: Run Health Checks (lazy doctor)");
  await foldViews(["Builders", "Tasks"], true);
  await until("the Health view's hooks and daemon checks an info while VS Code captures live", async () => {
    const text = await buildersView().innerText();
    for (const title of ["Claude Code hooks installed", "Capture daemon running"]) {
      const row = buildersView().locator(".monaco-list-row").filter({ hasText: title }).first();
      if ((await row.count()) === 0 || (await row.locator(".codicon-info").count()) === 0) return false;
      assert.equal(await row.locator(".codicon-warning").count(), 0, `${title} warns`);
    }
    return (text.match(/not needed now: VS Code captures live/g) ?? []).length === 2;
  }, 60_000);
  await page.screenshot({ path: path.join(OUT, "health.png") });
  await foldViews(["Builders", "Tasks"], false);
  const [pid] = await until("the sidecar process", () => sidecarPids().length === 1 && sidecarPids());
  process.kill(pid, "SIGKILL");
  await until(`the status bar to report the stopped sidecar (was "${healthy}")`, async () =>
    /stop|exit|crash|not running|error/i.test(await status()),
  );
  // the Health view says it is down while it is, none of the checks of the sidecar gone
  await until("the Health view showing the sidecar down", async () => {
    const text = await healthViewText();
    return /The lazy sidecar is not running/.test(text) && !text.includes("Claude Code hooks installed");
  });
  await runCommand("Lazy: Restart Sidecar");
  const [fresh] = await until("a new sidecar process", () => {
    const pids = sidecarPids().filter((p) => p !== pid);
    return pids.length === 1 && pids;
  });
  assert.notEqual(fresh, pid);
  // live, not merely starting (a search typed while it starts is told it is not running)
  await until(`the status bar healthy again (it was "${healthy}")`, async () => /Lazy: live/.test(await status()));
  // it serves again: a search answers
  await runCommand("Lazy: Search Conversations");
  await page.locator(".quick-input-widget input.input").fill(script.plan.phrase);
  await page.locator(".quick-input-list .monaco-list-row").filter({ hasText: /periwinkle/i }).first().waitFor();
  await page.keyboard.press("Escape");
});

/** The sidecar process's LAZY_HOME (from /proc: what it really serves). */
function lazyHomeOf(pid) {
  const environ = fs.readFileSync(`/proc/${pid}/environ`, "utf8").split("\0");
  return (environ.find((e) => e.startsWith("LAZY_HOME=")) || "").slice("LAZY_HOME=".length);
}

/** The transcript page of `title` (a frame with its #messages; found anew each time, as VS
 * Code may recreate a webview's frame): its banner and whether its messages hold `text`. */
async function transcriptPage(title, text) {
  for (const f of page.frames()) {
    if (f === page.mainFrame()) continue;
    const state = await f
      .evaluate(
        ({ title, text }) => {
          const banner = document.getElementById("banner");
          const messages = document.getElementById("messages");
          if (!banner || !messages || document.getElementById("title")?.textContent !== title) return null;
          return { banner: banner.hidden ? "" : banner.textContent, shows: messages.innerText.includes(text) };
        },
        { title, text },
      )
      .catch(() => null);
    if (state) return state;
  }
  return null;
}

/** Fold (or unfold) the Lazy views named `titles`, by their headers. */
async function foldViews(titles, fold) {
  for (const title of titles) {
    const header = buildersView().locator(".pane-header", { has: page.locator("h3.title", { hasText: new RegExp(`^${title}$`, "i") }) }).first();
    await header.waitFor({ state: "visible" });
    if (((await header.getAttribute("aria-expanded")) === "true") === fold) await header.click();
    await until(`the ${title} view ${fold ? "folded" : "unfolded"}`, async () => (await header.getAttribute("aria-expanded")) === String(!fold));
  }
}

async function healthViewText() {
  await runCommand("Lazy: Focus on Health View");
  return buildersView().innerText();
}

/** The Health view's row for the store check passed, naming `store`'s database. */
async function healthGreenFor(store) {
  const text = await healthViewText();
  const row = buildersView().locator(".monaco-list-row").filter({ hasText: "Store is intact" }).first();
  return (
    text.includes(path.join(store, "store.db")) &&
    !/lazy sidecar is not running/.test(text) &&
    (await row.count()) > 0 &&
    (await row.locator(".codicon-pass").count()) > 0
  );
}

test("Restart Sidecar after the sidecar is killed runs lazy.sidecar.path against lazy.store again, and every view follows", { skip: SKIP }, async () => {
  // a second store of its own, holding the sessions and a task only it has
  const store = path.join(tmp, "lazy-restart");
  run([LAZY, "import-conversation", "--all-projects", "--yes"], { cwd: workspace, env: isolatedEnv({ LAZY_HOME: store }) });
  const code = "restart-probe";
  run([LAZY, "conversations", "promote", script.plan.session_ids[0], "--from", "1", "--to", "2", "--goal", "Probe the restart", "--code", code, "--yes"], {
    cwd: workspace,
    env: isolatedEnv({ LAZY_HOME: store }),
  });
  // a wrapper around the repo's lazy that records each start (its pid: it execs lazy)
  const used = path.join(tmp, "wrapper-used.log");
  const wrapper = path.join(tmp, "lazy-wrapper");
  fs.writeFileSync(wrapper, `#!/bin/sh\necho "$$ $*" >> '${used}'\nexec '${LAZY}' "$@"\n`, { mode: 0o755 });
  const starts = () => (fs.existsSync(used) ? fs.readFileSync(used, "utf8").trim().split("\n").map((l) => Number(l.split(" ")[0])) : []);

  // the user points the extension at both in settings.json, and applies them (the settings
  // prompt's Restart); edited in VS Code, as a user does (a write behind its back is not seen)
  const settingsFile = path.join(tmp, "cs", "user", "User", "settings.json");
  const settings = JSON.parse(fs.readFileSync(settingsFile, "utf8"));
  await runCommand("Preferences: Open User Settings (JSON)");
  const editor = page.locator(".editor-instance .monaco-editor").filter({ hasText: "workbench.startupEditor" }).first();
  await editor.waitFor({ state: "visible" });
  await editor.locator(".view-lines").click();
  await page.keyboard.press("Control+a");
  // one line (no auto-indent), then whatever the editor auto-closed after it removed
  await page.keyboard.insertText(JSON.stringify({ ...settings, "lazy.sidecar.path": wrapper, "lazy.store": store }));
  await page.keyboard.press("Control+Shift+End");
  await page.keyboard.press("Delete");
  await page.keyboard.press("Control+s");
  await until("settings.json saved", () => JSON.parse(fs.readFileSync(settingsFile, "utf8"))["lazy.store"] === store);
  const prompt = page.locator(".notification-toast").filter({ hasText: /restart the sidecar/i }).first();
  await prompt.waitFor({ state: "visible", timeout: 30_000 });
  await prompt.locator(".monaco-button", { hasText: "Restart" }).first().click();
  const [pid] = await until("the wrapper's sidecar", () => starts().length === 1 && sidecarPids().includes(starts()[0]) && starts());
  assert.equal(lazyHomeOf(pid), store);
  const items = page.locator('[id^="lazy-builders.lazy"]');
  const status = () => items.allInnerTexts().then((t) => t.join(" | "));
  await until("the status bar live", async () => /Lazy: live/.test(await status()));

  // what this store holds: its task, a transcript, the checks green for it
  await until(`the Tasks view listing ${code}`, async () => (await tasksViewText()).includes(code));
  await openBuilder(script.plan.summary);
  const firstLine = script.plan.messages[0].split("\n")[0];
  await until("the transcript showing its first message", async () => (await transcriptPage(script.plan.summary, firstLine))?.shows);
  await runCommand("Lazy: Run Health Checks (lazy doctor)");
  await until(`the Health view green for ${store}`, () => healthGreenFor(store), 60_000);

  // killed: every view says it is down
  process.kill(pid, "SIGKILL");
  await until("the status bar to report the stopped sidecar", async () => /sidecar stopped/.test(await status()));
  await until("the Health view showing the sidecar down", async () => {
    const text = await healthViewText();
    return /The lazy sidecar is not running/.test(text) && !text.includes("Store is intact");
  });
  await until("the transcript saying the sidecar is down", async () =>
    /not running|exited/.test((await transcriptPage(script.plan.summary, firstLine))?.banner ?? ""),
  );
  await page.screenshot({ path: path.join(OUT, "sidecar-down.png") });

  // Restart Sidecar: the same wrapper, the same store; every view back on it
  await runCommand("Lazy: Restart Sidecar");
  const [fresh] = await until("a new sidecar through the wrapper", () => {
    const s = starts();
    return s.length === 2 && sidecarPids().includes(s[1]) && [s[1]];
  });
  assert.notEqual(fresh, pid);
  assert.equal(lazyHomeOf(fresh), store, "the restarted sidecar serves another store");
  await until("the status bar live again", async () => /Lazy: live/.test(await status()));
  await until(`the Tasks view listing ${code} again`, async () => (await tasksViewText()).includes(code));
  await until(`the Health view green for ${store} again`, () => healthGreenFor(store), 60_000);
  await until("the open transcript reloaded", async () => {
    const state = await transcriptPage(script.plan.summary, firstLine);
    return state && state.banner === "" && state.shows;
  });
  assert.equal(starts().length, 2, `the wrapper was not the only sidecar started: ${starts()}`);
  await page.screenshot({ path: path.join(OUT, "sidecar-restarted.png") });
});
