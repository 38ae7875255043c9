// Where the sidecar comes from, in a fixed order the user can reason about:
// lazy.sidecar.path > lazy.python > `lazy` on PATH > the workspace's .venv > nothing.
// Pure over an injected file probe so the order is unit-tested without a file system.
import * as path from "node:path";
import type { Settings } from "./config";

export type SidecarSource = "setting" | "python" | "path" | "workspace-venv";

export interface SidecarCommand {
  source: SidecarSource;
  command: string;
  args: string[];
  /** The Python to check (version, `import lazy`) before starting; lazy.python only. */
  python?: string;
}

export type Discovery =
  | { kind: "found"; sidecar: SidecarCommand }
  | { kind: "missing"; problem?: string };

export interface DiscoveryEnv {
  /** PATH as the extension host sees it. */
  pathEnv: string | undefined;
  workspaceFolders: readonly string[];
  platform: NodeJS.Platform;
  homeDir: string;
  isExecutable(file: string): boolean;
}

export function expandHome(p: string, home: string): string {
  if (p === "~") return home;
  if (p.startsWith("~/") || p.startsWith("~\\")) return path.join(home, p.slice(2));
  return p;
}

function executableNames(name: string, platform: NodeJS.Platform): string[] {
  return platform === "win32" ? [`${name}.exe`, `${name}.cmd`, name] : [name];
}

export function whichOnPath(name: string, env: DiscoveryEnv): string | undefined {
  const sep = env.platform === "win32" ? ";" : ":";
  for (const dir of (env.pathEnv ?? "").split(sep)) {
    if (!dir) continue;
    for (const exe of executableNames(name, env.platform)) {
      const candidate = path.join(dir, exe);
      if (env.isExecutable(candidate)) return candidate;
    }
  }
  return undefined;
}

const SIDECAR_ARGS = ["sidecar"];
export const PYTHON_SIDECAR_ARGS = ["-m", "lazy.cli.main", "sidecar"];

export function findSidecar(settings: Settings, env: DiscoveryEnv): Discovery {
  if (settings.sidecarPath) {
    const exe = expandHome(settings.sidecarPath, env.homeDir);
    if (!env.isExecutable(exe)) {
      return {
        kind: "missing",
        problem: `lazy.sidecar.path is set to “${exe}”, which is not an executable file.`,
      };
    }
    return { kind: "found", sidecar: { source: "setting", command: exe, args: SIDECAR_ARGS } };
  }
  if (settings.python) {
    let python = expandHome(settings.python, env.homeDir);
    // a bare name such as "python3.12" is looked up on PATH, as a shell would
    if (!python.includes("/") && !python.includes("\\")) python = whichOnPath(python, env) ?? python;
    if (!env.isExecutable(python)) {
      return {
        kind: "missing",
        problem: `lazy.python is set to “${settings.python}”, which is not an executable file.`,
      };
    }
    return {
      kind: "found",
      sidecar: { source: "python", command: python, args: PYTHON_SIDECAR_ARGS, python },
    };
  }
  const onPath = whichOnPath("lazy", env);
  if (onPath) return { kind: "found", sidecar: { source: "path", command: onPath, args: SIDECAR_ARGS } };
  for (const folder of env.workspaceFolders) {
    const bin = env.platform === "win32" ? path.join(folder, ".venv", "Scripts", "lazy.exe") : path.join(folder, ".venv", "bin", "lazy");
    if (env.isExecutable(bin)) {
      return { kind: "found", sidecar: { source: "workspace-venv", command: bin, args: SIDECAR_ARGS } };
    }
  }
  return { kind: "missing" };
}

/** Runs a program and returns its stdout; rejects with its stderr when it fails. */
export type ExecFile = (file: string, args: string[]) => Promise<string>;

/** Whether a configured Python can run the sidecar; undefined when it can, else a message
 * that says how to check and fix it. */
export async function checkPython(python: string, exec: ExecFile): Promise<string | undefined> {
  const versionCheck = ["-c", "import sys; print(sys.version_info[:2])"];
  let out: string;
  try {
    out = await exec(python, versionCheck);
  } catch (e) {
    return `lazy.python “${python}” could not be run (${errorText(e)}). Check it with: ${python} -c "import sys; print(sys.version_info[:2])"`;
  }
  const m = /\((\d+),\s*(\d+)\)/.exec(out);
  const major = Number(m?.[1] ?? 0);
  const minor = Number(m?.[2] ?? 0);
  if (!m || major < 3 || (major === 3 && minor < 11)) {
    return `lazy.python “${python}” is Python ${m ? `${major}.${minor}` : "of unknown version"}; lazy needs Python 3.11 or newer. Point lazy.python to a newer Python (check with: ${python} -c "import sys; print(sys.version_info[:2])").`;
  }
  try {
    await exec(python, ["-c", "import lazy"]);
  } catch (e) {
    return `lazy.python “${python}” cannot import lazy (${errorText(e)}). Install it with: ${python} -m pip install lazy-builders (check with: ${python} -c "import lazy").`;
  }
  return undefined;
}

function errorText(e: unknown): string {
  if (e instanceof Error) return e.message.split("\n").filter(Boolean).slice(-1)[0] ?? e.message;
  return String(e);
}

/** The sidecar's environment: the host's, with LAZY_HOME when lazy.store is set. */
export function sidecarEnv(
  settings: Settings,
  base: NodeJS.ProcessEnv,
  homeDir: string,
): NodeJS.ProcessEnv {
  const env = { ...base };
  if (settings.store) env.LAZY_HOME = expandHome(settings.store, homeDir);
  // stdout is the protocol: keep Python from buffering it or writing anything else there
  env.PYTHONUNBUFFERED = "1";
  return env;
}
