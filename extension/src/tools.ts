// One icon per agent, used by the tree, the search results and the transcript header.
export const TOOL_ICONS: Readonly<Record<string, string>> = {
  claude: "hubot",
  codex: "terminal",
  opencode: "code",
};

export const TOOL_NAMES: Readonly<Record<string, string>> = {
  claude: "Claude Code",
  codex: "Codex CLI",
  opencode: "OpenCode",
};

export function toolIcon(tool: string): string {
  return TOOL_ICONS[tool] ?? "comment-discussion";
}

export function toolName(tool: string): string {
  return TOOL_NAMES[tool] ?? tool;
}
