// The agents as the extension shows them: the name each goes by (protocol/protocol.ts's
// AGENTS, from lazy.agents: the only list), a mark of its own in the tree (media/agents/,
// a light and a dark variant each), and a codicon where only codicons go (quick pick labels).
import * as vscode from "vscode";
import { AGENTS, type Agent } from "./protocol";

const CODICONS: Readonly<Record<Agent, string>> = {
  claude: "sparkle",
  codex: "terminal",
  opencode: "primitive-square",
};

// the files of each mark: media/agents/<agent>-light.svg and -dark.svg
const MARKS: Readonly<Record<Agent, string>> = {
  claude: "claude",
  codex: "codex",
  opencode: "opencode",
};

const isAgent = (id: string): id is Agent => Object.hasOwn(AGENTS, id);

/** The codicon of an agent, for `$(…)` in a label. */
export function agentIcon(agent: string): string {
  return isAgent(agent) ? CODICONS[agent] : "comment-discussion";
}

/** The agent's own mark, for a tree item's iconPath; undefined for an agent lazy does not
 * know (its codicon then). */
export function agentMark(extensionUri: vscode.Uri, agent: string): { light: vscode.Uri; dark: vscode.Uri } | undefined {
  if (!isAgent(agent)) return undefined;
  const file = MARKS[agent];
  return {
    light: vscode.Uri.joinPath(extensionUri, "media", "agents", `${file}-light.svg`),
    dark: vscode.Uri.joinPath(extensionUri, "media", "agents", `${file}-dark.svg`),
  };
}

export function agentName(agent: string): string {
  return isAgent(agent) ? AGENTS[agent] : agent;
}
