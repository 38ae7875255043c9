// "Reveal Source Files": where the agents keep a Builder's sessions. The protocol does not
// carry paths (the store is the record, and files come and go), so this looks in the agents'
// usual folders for files named after the Builder's session ids; best effort by design.
import * as fs from "node:fs/promises";
import * as path from "node:path";
import type { BuilderInfo, Tool } from "./protocol";

export function agentRoots(tool: string, env: NodeJS.ProcessEnv, home: string, extra: Record<Tool, string[]>): string[] {
  const data = env.XDG_DATA_HOME || path.join(home, ".local", "share");
  const roots: Record<string, string[]> = {
    claude: [path.join(env.CLAUDE_CONFIG_DIR || path.join(home, ".claude"), "projects")],
    codex: [path.join(env.CODEX_HOME || path.join(home, ".codex"), "sessions"), path.join(env.CODEX_HOME || path.join(home, ".codex"), "archived_sessions")],
    opencode: [path.join(data, "opencode", "storage"), path.join(data, "opencode")],
  };
  const more: Partial<Record<string, string[]>> = extra;
  return [...(roots[tool] ?? []), ...(more[tool] ?? [])];
}

/** Files under roots whose name holds one of the ids, breadth-first, bounded. */
export async function findFilesNamed(roots: string[], ids: string[], maxEntries = 50_000, maxDepth = 6): Promise<string[]> {
  const found = new Set<string>();
  const wanted = ids.filter((id) => id.length >= 8);
  let seen = 0;
  let level = roots.map((r) => ({ dir: r, depth: 0 }));
  while (level.length > 0 && seen < maxEntries) {
    const next: { dir: string; depth: number }[] = [];
    for (const { dir, depth } of level) {
      let entries: import("node:fs").Dirent[];
      try {
        entries = await fs.readdir(dir, { withFileTypes: true });
      } catch {
        continue; // an agent not installed, or a folder that went away
      }
      for (const e of entries) {
        if (++seen > maxEntries) break;
        const full = path.join(dir, e.name);
        if (wanted.some((id) => e.name.includes(id))) found.add(full);
        else if (e.isDirectory() && depth < maxDepth) next.push({ dir: full, depth: depth + 1 });
      }
    }
    level = next;
  }
  return [...found].sort();
}

export function sessionIdsOf(info: BuilderInfo): string[] {
  const ids = new Set<string>(info.session_ids ?? []);
  ids.add(info.id);
  // a subagent's session id is "<parent>:<agent>"; its file is named after the agent
  for (const s of info.sidechains ?? []) ids.add(s.agent_id ?? s.session_id);
  return [...ids];
}
