// What a start of the sidecar resolved from the lazy.* settings: the command (discovery.ts),
// its checked Python, its environment (LAZY_HOME from lazy.store) and its initialization
// options, computed once. The Sidecar keeps it and every restart runs exactly it again, so a
// restart never re-discovers its way to another sidecar or store (issue 13: a restart after a
// killed sidecar ran the bundled copy against ~/.lazy). Settings the user changed since are
// applied only when the user says so (settingChanges names them).
import * as path from "node:path";
import { initializationOptions, type Settings } from "./config";
import {
  bundledPythonPath,
  checkPython,
  expandHome,
  findSidecar,
  sidecarEnv,
  type DiscoveryEnv,
  type ExecFile,
  type SidecarCommand,
} from "./discovery";

export interface Launch {
  /** The settings this launch was resolved from. */
  settings: Settings;
  sidecar: SidecarCommand;
  env: NodeJS.ProcessEnv;
  /** The store it serves (LAZY_HOME): lazy.store, else the host's LAZY_HOME, else ~/.lazy. */
  store: string;
  initializationOptions: ReturnType<typeof initializationOptions>;
}

export type Resolved =
  | { kind: "launch"; launch: Launch }
  /** Nothing to run; `setting` is the one to open when the problem is in it. */
  | { kind: "missing"; problem?: string; setting?: string };

export interface LaunchEnv {
  discovery: DiscoveryEnv;
  exec: ExecFile;
  /** The extension host's environment, which the sidecar's starts from. */
  baseEnv: NodeJS.ProcessEnv;
  homeDir: string;
}

/** Find the sidecar for `settings` and check it can run (a configured or bundled Python). */
export async function resolveLaunch(settings: Settings, env: LaunchEnv): Promise<Resolved> {
  const found = findSidecar(settings, env.discovery);
  if (found.kind === "missing") return { kind: "missing", problem: found.problem, setting: "lazy." };
  const sidecar = found.sidecar;
  if (sidecar.python) {
    const problem = await checkPython(sidecar.python, env.exec);
    if (problem) return { kind: "missing", problem, setting: "lazy.python" };
  }
  let pythonPath: string | undefined;
  if (sidecar.bundled) {
    const got = await bundledPythonPath(sidecar.bundled, sidecar.command, env.exec);
    if ("problem" in got) return { kind: "missing", problem: got.problem };
    pythonPath = got.pythonPath;
  }
  const processEnv = sidecarEnv(settings, env.baseEnv, env.homeDir, pythonPath);
  const store = processEnv.LAZY_HOME || path.join(env.homeDir, ".lazy");
  return {
    kind: "launch",
    launch: { settings, sidecar, env: processEnv, store, initializationOptions: initializationOptions(settings) },
  };
}

const SHOWN: [keyof Settings, string][] = [
  ["sidecarPath", "lazy.sidecar.path"],
  ["python", "lazy.python"],
  ["store", "lazy.store"],
  ["extraSourceRoots", "lazy.extraSourceRoots"],
  ["liveCapture", "lazy.liveCapture"],
];

function shown(value: unknown, homeDir: string): string {
  if (typeof value === "string") return value ? `“${expandHome(value, homeDir)}”` : "(not set)";
  return JSON.stringify(value);
}

/** One line per setting that differs between two reads, "lazy.store: “/a” → (not set)". */
export function settingChanges(before: Settings, after: Settings, homeDir: string): string[] {
  return SHOWN.filter(([key]) => JSON.stringify(before[key]) !== JSON.stringify(after[key])).map(
    ([key, name]) => `${name}: ${shown(before[key], homeDir)} → ${shown(after[key], homeDir)}`,
  );
}
