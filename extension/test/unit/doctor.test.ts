import * as assert from "node:assert/strict";
import type * as vscode from "vscode";
import { fixTerminal, HealthProvider, lazyArgs, type HealthNode } from "../../src/views/doctor";
import type { DoctorReport } from "../../src/protocol";
import { FakeClient, RpcError, until } from "../fakes";
import fixture from "../../../protocol/fixtures/doctor_run.json";

const report = fixture.result as DoctorReport;

describe("the Health view (lazy doctor)", () => {
  it("is empty until asked (its welcome offers the run), then one row per check", async () => {
    const client = new FakeClient().on("doctor/run", () => Promise.resolve(report));
    const h = new HealthProvider(() => client);
    assert.deepEqual(h.getChildren(), []);
    await h.refresh();
    const rows = h.getChildren();
    assert.deepEqual(rows.map((n) => (n.kind === "check" ? n.check.title : n.kind)), report.checks.map((c) => c.title));
    const failing = rows.find((n) => n.kind === "check" && n.check.status === "fail") as HealthNode;
    const item = h.getTreeItem(failing);
    assert.equal((item.iconPath as vscode.ThemeIcon).id, "error");
    assert.equal(item.contextValue, "check.fixable");
    assert.equal(item.description, "lazy doctor --reimport-conversations");
    const detail = h.getChildren(failing).map((n) => (n.kind === "detail" ? n.text : ""));
    assert.ok(detail[0]?.includes("never reached the store") || detail[1]?.includes("never reached the store"), detail.join("|"));
  });

  it("offers a fix button only for a lazy command, never for a check that passed", async () => {
    const h = new HealthProvider(() => new FakeClient().on("doctor/run", () => Promise.resolve(report)));
    await h.refresh();
    const items = h.getChildren().map((n) => h.getTreeItem(n));
    const docker = items.find((i) => typeof i.label === "string" && i.label.startsWith("Docker"));
    assert.equal(docker?.contextValue, "check"); // "start the Docker engine …" is for the user to do
    const ok = items.find((i) => (i.iconPath as vscode.ThemeIcon).id === "pass");
    assert.equal(ok?.contextValue, "check");
  });

  it("runs a fix with the sidecar's own lazy, in a terminal", () => {
    const check = { title: "t", status: "fail" as const, detail: [], fix: "lazy doctor --reimport-conversations" };
    const t = fixTerminal(check, { command: "/usr/bin/python3", args: ["-m", "lazy.cli.main", "sidecar"], env: { PYTHONPATH: "/b" } });
    assert.ok(t);
    assert.deepEqual(t.shellArgs, ["-m", "lazy.cli.main", "doctor", "--reimport-conversations"]);
    assert.equal(t.shellPath, "/usr/bin/python3");
    assert.equal(lazyArgs("sudo systemctl start docker"), undefined);
    assert.equal(lazyArgs("lazy"), undefined);
  });

  it("says why when the sweep failed or the sidecar is not running", async () => {
    const failing = new HealthProvider(() =>
      new FakeClient().on("doctor/run", () => Promise.reject(new RpcError(-32004, "store operation failed", { code: "SQLITE_IOERR", detail: "disk I/O error" }))),
    );
    await failing.refresh();
    const label = (h: HealthProvider): string => {
      const [n] = h.getChildren();
      assert.ok(n && n.kind === "notice");
      return n.text;
    };
    assert.match(label(failing), /lazy doctor failed: store operation failed \[SQLITE_IOERR\] disk I\/O error/);
    const stopped = new HealthProvider(() => undefined);
    await stopped.refresh();
    assert.match(label(stopped), /not running/);
  });

  it("shows the sidecar down while it is down, never the last store's checks, and runs them again once back", async () => {
    let running = true;
    const client = new FakeClient().on("doctor/run", () => Promise.resolve(report));
    const h = new HealthProvider(() => (running ? client : undefined));
    await h.refresh();
    assert.equal(h.getChildren().length, report.checks.length);
    running = false;
    h.setSidecarState({ kind: "stopped", reason: "the sidecar process exited" });
    const rows = h.getChildren();
    assert.equal(rows.length, 1, "the old checks are still shown");
    const [down] = rows;
    assert.ok(down?.kind === "notice");
    assert.match(down.text, /not running \(the sidecar process exited\)/);
    const item = h.getTreeItem(down);
    assert.equal((item.iconPath as vscode.ThemeIcon).id, "debug-disconnect");
    assert.equal(item.command?.command, "lazy.restartSidecar");
    running = true;
    const changed = new Promise<void>((resolve) => { h.onDidChangeTreeData(() => { if (h.getChildren().length > 1) resolve(); }); });
    h.setSidecarState({ kind: "running", store: "/stores/one" });
    await changed;
    assert.equal(client.callsOf("doctor/run").length, 2, "the checks did not run again for the restarted sidecar");
    assert.deepEqual(h.getChildren().map((n) => (n.kind === "check" ? n.check.title : n.kind)), report.checks.map((c) => c.title));
  });

  it("shows an info (the hooks while VS Code captures live) as such: no warning, no fix button", async () => {
    const h = new HealthProvider(() => new FakeClient().on("doctor/run", () => Promise.resolve(report)));
    await h.refresh();
    const row = h.getChildren().find((n) => n.kind === "check" && n.check.status === "info");
    assert.ok(row && row.kind === "check", "the fixture has an info check");
    const item = h.getTreeItem(row);
    assert.equal((item.iconPath as vscode.ThemeIcon).id, "info");
    assert.equal(item.contextValue, "check");
    assert.equal(item.description, "optional: lazy hooks install");
    assert.match(item.tooltip as string, /VS Code captures live[\s\S]*Optional: lazy hooks install/);
  });

  it("drops a sweep's answer that comes back after the sidecar went down", async () => {
    let answer: (r: DoctorReport) => void = () => undefined;
    const client = new FakeClient().on("doctor/run", () => new Promise<DoctorReport>((resolve) => { answer = resolve; }));
    const h = new HealthProvider(() => client);
    const running = h.refresh();
    await until("doctor/run asked", () => client.callsOf("doctor/run").length === 1);
    h.setSidecarState({ kind: "stopped", reason: "killed" });
    answer(report);
    await running;
    const rows = h.getChildren();
    assert.deepEqual(rows.map((n) => n.kind), ["notice"], "the dead sidecar's checks are shown");
  });

  it("does not run the checks on its own when they were never asked for", () => {
    const client = new FakeClient().on("doctor/run", () => Promise.resolve(report));
    const h = new HealthProvider(() => client);
    h.setSidecarState({ kind: "running", store: "/stores/one" });
    assert.equal(client.callsOf("doctor/run").length, 0);
    assert.deepEqual(h.getChildren(), []);
  });
});
