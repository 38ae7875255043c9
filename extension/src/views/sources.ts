// "Reveal Source Files": the files an agent wrote a Builder's sessions to, as the sidecar's
// capture recorded them (builders/sources), including those the agent has since deleted.
import type { LazyClient } from "../protocol/client";
import type { BuildersSourcesResult, SourceFile } from "../protocol";

export interface SourcePick {
  label: string;
  description: string;
  detail: string;
  file: SourceFile;
}

function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

function basename(p: string): string {
  return p.slice(p.lastIndexOf("/") + 1);
}

/** One quick-pick row per file: its name, where it is, and what it holds or that it is gone. */
export function sourcePicks(result: BuildersSourcesResult): SourcePick[] {
  return result.files.map((file) => {
    const what = file.agent_id ? `subagent ${file.agent_id}` : `session ${file.session_id}`;
    const state = file.exists
      ? `${size(file.size)} captured`
      : `deleted by ${file.tool}; lazy keeps its copy (${size(file.size)})`;
    return {
      label: `${file.exists ? "$(file)" : "$(trash)"} ${basename(file.path)}`,
      description: file.path,
      detail: `${what} · ${state}`,
      file,
    };
  });
}

/** The picks for a Builder (its id, a session id or a unique prefix), asked of the sidecar. */
export async function sourcePicksOf(client: LazyClient, id: string): Promise<SourcePick[]> {
  return sourcePicks(await client.request("builders/sources", { id }));
}
