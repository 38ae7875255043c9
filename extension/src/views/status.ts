// The status bar item: whether live capture runs, its last failure, and a dead sidecar with
// a click to restart it.
import * as vscode from "vscode";
import { describeFailure, type LazyClient } from "../protocol/client";
import type { CaptureFailure, CaptureStatusResult } from "../protocol";
import type { SidecarState } from "../sidecar/sidecar";
import { formatTimestamp } from "../time";

export function failureText(f: CaptureFailure): string {
  const where = f.line !== null && f.line !== undefined ? `${f.file}:${f.line}` : f.file;
  return [`Last capture failure (${formatTimestamp(f.at)}):`, where, `${f.reason} [${f.code}]`, f.detail ?? ""]
    .filter(Boolean)
    .join("\n");
}

export class StatusBar implements vscode.Disposable {
  private live: CaptureStatusResult | undefined;
  private failure: CaptureFailure | undefined;
  private sidecar: SidecarState = { kind: "starting" };

  constructor(
    readonly item: vscode.StatusBarItem,
    private readonly client: () => LazyClient | undefined,
    private readonly log?: vscode.LogOutputChannel,
  ) {
    item.name = "Lazy";
    this.render();
    item.show();
  }

  setSidecarState(state: SidecarState): Promise<void> {
    this.sidecar = state;
    if (state.kind !== "running") {
      this.live = undefined;
      this.render();
      return Promise.resolve();
    }
    return this.poll();
  }

  /** Ask capture/status (on start, and when the sidecar tells of a change). */
  async poll(): Promise<void> {
    const client = this.client();
    if (!client || this.sidecar.kind !== "running") return;
    try {
      this.live = await client.request("capture/status", {});
      if (this.live.last_failure) this.failure = this.live.last_failure;
    } catch (e) {
      this.log?.warn(`capture/status: ${describeFailure(e)}`);
      this.live = undefined;
    }
    this.render();
  }

  onCaptureDidFail(f: CaptureFailure): void {
    this.failure = f;
    this.render();
  }

  private render(): void {
    const item = this.item;
    item.backgroundColor = undefined;
    switch (this.sidecar.kind) {
      case "starting":
        item.text = "$(sync~spin) Lazy";
        item.tooltip = "Starting the lazy sidecar…";
        item.command = "lazy.showLog";
        return;
      case "missing":
        item.text = "$(warning) Lazy: no sidecar";
        item.tooltip = this.sidecar.problem ?? "The lazy sidecar was not found: install lazy-builders or set lazy.sidecar.path.";
        item.command = { title: "Open Settings", command: "workbench.action.openSettings", arguments: ["lazy."] };
        return;
      case "stopped":
        item.text = "$(error) Lazy: sidecar stopped";
        item.tooltip = `${this.sidecar.reason ?? "The lazy sidecar is not running."}\nClick to restart it.`;
        item.command = "lazy.restartSidecar";
        item.backgroundColor = new vscode.ThemeColor("statusBarItem.errorBackground");
        return;
      case "running":
        break;
    }
    const s = this.live;
    const lines: string[] = [`Store: ${this.sidecar.store}`];
    if (s) {
      lines.push(s.live ? "Live capture is on." : "Live capture is off (lazy.liveCapture, or it could not start).");
      if (s.roots.length > 0) lines.push(`Watching: ${s.roots.join(", ")}`);
      lines.push(`Captured since start: ${s.captured}`);
      if (s.last_sweep_at) lines.push(`Last sweep: ${formatTimestamp(s.last_sweep_at)}`);
    } else {
      lines.push("Capture status unknown.");
    }
    if (this.failure) {
      item.text = "$(error) Lazy";
      lines.push("", failureText(this.failure));
      item.backgroundColor = new vscode.ThemeColor("statusBarItem.warningBackground");
    } else if (s?.live) {
      item.text = "$(database) Lazy: live";
    } else {
      item.text = "$(warning) Lazy: not live";
    }
    lines.push("", "Click to show the log.");
    item.tooltip = lines.join("\n");
    item.command = "lazy.showLog";
  }

  dispose(): void {
    this.item.dispose();
  }
}
