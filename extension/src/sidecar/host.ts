// The sidecar as this extension host runs it: commands run with a timeout, executables found
// on this machine, the sidecar the .vsix carries, the workspace's local folders.
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as vscode from "vscode";
import { readSettings } from "./config";
import type { DiscoveryEnv, ExecFile } from "./discovery";
import { connectLanguageClient } from "./languageClient";
import { Sidecar } from "./sidecar";

const execFileText: ExecFile = (file, args) =>
  new Promise((resolve, reject) => {
    execFile(file, args, { timeout: 15_000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(stderr.trim() || err.message));
      else resolve(stdout);
    });
  });

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/** The sidecar the .vsix carries (`make vsix`), when it does. */
function bundledDir(extensionPath: string): string | undefined {
  const dir = path.join(extensionPath, "bundled");
  return fs.existsSync(path.join(dir, "common", "lazy", "cli", "main.py")) ? dir : undefined;
}

export function workspaceFolders(): string[] {
  return (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === "file").map((f) => f.uri.fsPath);
}

export function createSidecar(extensionUri: vscode.Uri, log: vscode.LogOutputChannel): Sidecar {
  const discoveryEnv = (): DiscoveryEnv => ({
    pathEnv: process.env.PATH,
    workspaceFolders: workspaceFolders(),
    platform: process.platform,
    homeDir: os.homedir(),
    isExecutable,
    bundledDir: bundledDir(extensionUri.fsPath),
  });
  return new Sidecar({
    settings: () => readSettings((key) => vscode.workspace.getConfiguration("lazy").get(key)),
    discoveryEnv,
    exec: execFileText,
    log,
    homeDir: os.homedir(),
    connect: connectLanguageClient,
  });
}
