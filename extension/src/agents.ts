// The agents as the extension shows them: the name each goes by (protocol/protocol.ts's
// AGENTS, from lazy.agents: the only list) and one icon each, for the tree, the search results
// and the transcript header.
import { AGENTS, type Agent } from "./protocol";

const ICONS: Readonly<Record<Agent, string>> = {
  claude: "hubot",
  codex: "terminal",
  opencode: "code",
};

const isAgent = (id: string): id is Agent => Object.hasOwn(AGENTS, id);

export function agentIcon(agent: string): string {
  return isAgent(agent) ? ICONS[agent] : "comment-discussion";
}

export function agentName(agent: string): string {
  return isAgent(agent) ? AGENTS[agent] : agent;
}
