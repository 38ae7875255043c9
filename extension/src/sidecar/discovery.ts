// Where the sidecar comes from, in a fixed order the user can reason about:
// lazy.sidecar.path > lazy.python > `lazy` on PATH > the workspace's .venv > the copy bundled
// in the .vsix (run by a Python 3.11+ on PATH) > nothing.
// Pure over an injected file probe so the order is unit-tested without a file system.
import * as path from "node:path";
import type { Settings } from "./config";

export type SidecarSource = "setting" | "python" | "path" | "workspace-venv" | "bundled";

export interface SidecarCommand {
  source: SidecarSource;
  command: string;
  args: string[];
  /** The Python to check (version, `import lazy`) before starting; lazy.python only. */
  python?: string;
  /** The bundled sidecar's folder (its Python's packages are chosen by version). */
  bundled?: string;
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
  /** The extension's `bundled` folder, when the .vsix carries the sidecar. */
  bundledDir?: string;
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
  if (env.bundledDir) {
    for (const name of BUNDLED_PYTHONS) {
      const python = whichOnPath(name, env);
      if (python) {
        return {
          kind: "found",
          sidecar: { source: "bundled", command: python, args: PYTHON_SIDECAR_ARGS, bundled: env.bundledDir },
        };
      }
    }
    return {
      kind: "missing",
      problem: "lazy's sidecar needs Python 3.11 or newer on PATH (python3.11, python3.12, python3.13 or python3), or set lazy.python.",
    };
  }
  return { kind: "missing" };
}

// the Pythons the bundled sidecar has packages for, newest first; then whatever python3 is
const BUNDLED_PYTHONS = ["python3.13", "python3.12", "python3.11", "python3"];
export const BUNDLED_VERSIONS = ["3.11", "3.12", "3.13"];

/** PYTHONPATH for the bundled sidecar under ``python`` (its common packages and those built
 * for its version), or a message saying why that Python cannot run it. */
export async function bundledPythonPath(
  bundled: string,
  python: string,
  exec: ExecFile,
): Promise<{ pythonPath: string } | { problem: string }> {
  let out: string;
  try {
    out = await exec(python, ["-c", "import sys; print(sys.version_info[:2])"]);
  } catch (e) {
    return { problem: `${python} could not be run (${errorText(e)}); set lazy.python to a Python 3.11 or newer.` };
  }
  const m = /\((\d+),\s*(\d+)\)/.exec(out);
  const version = m ? `${m[1]}.${m[2]}` : "unknown";
  if (!BUNDLED_VERSIONS.includes(version)) {
    return {
      problem: `${python} is Python ${version}; the sidecar in this extension is built for Python ${BUNDLED_VERSIONS.join(", ")}. Install one of them, or install lazy (pip install lazy-builders) and set lazy.python.`,
    };
  }
  const tag = `cp${version.replace(".", "")}`;
  return { pythonPath: [path.join(bundled, "common"), path.join(bundled, tag)].join(path.delimiter) };
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
  pythonPath?: string,
): NodeJS.ProcessEnv {
  const env = { ...base };
  if (pythonPath) env.PYTHONPATH = pythonPath;
  if (settings.store) env.LAZY_HOME = expandHome(settings.store, homeDir);
  // stdout is the protocol: keep Python from buffering it or writing anything else there
  env.PYTHONUNBUFFERED = "1";
  return env;
}
