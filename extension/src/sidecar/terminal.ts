// "Resume in Terminal": `lazy builder --resume <alias or id>` in a terminal at the Builder's
// project, run by the same lazy the sidecar runs (its executable, its Python and packages).
// The command line is built from ids and the alias only, never from transcript text.
import type { BuilderInfo } from "../protocol";

/** How the sidecar was started: its executable, arguments and environment. */
export interface LazyCommand {
  command: string;
  args: string[]; // ends with "sidecar"
  env: Record<string, string | undefined>;
}

export interface ResumeTerminal {
  name: string;
  cwd: string | undefined;
  shellPath: string;
  shellArgs: string[];
  env: Record<string, string | undefined>;
}

/** The command line that runs `lazy <args>` the way the sidecar's lazy runs. */
export function lazyShellArgs(lazy: LazyCommand, args: string[]): string[] {
  return [...lazy.args.slice(0, lazy.args.lastIndexOf("sidecar")), ...args];
}

/** The terminal that resumes ``info`` (by its alias when it has one); undefined for a
 * conversation of another agent: lazy builder runs Claude Code. */
export function resumeTerminal(info: BuilderInfo, lazy: LazyCommand, alias?: string | null): ResumeTerminal | undefined {
  if (info.tool !== "claude") return undefined;
  return {
    name: `Lazy: ${alias ?? info.short_id}`,
    cwd: info.project ?? undefined,
    shellPath: lazy.command,
    shellArgs: lazyShellArgs(lazy, ["builder", "--resume", alias ?? info.id]),
    env: lazy.env,
  };
}
