// VS Code's own chat sees lazy's MCP server (`lazy mcp`) without a config file: the extension
// contributes it through VS Code's MCP server definition provider, run with what the sidecar
// runs (the same lazy, Python and store). `lazy.mcp.enabled` turns that off.
//
// The API (vscode.lm.registerMcpServerDefinitionProvider, vscode.McpStdioServerDefinition) is
// stable from VS Code 1.101; this extension pins @types/vscode 1.90 (engines ^1.90, and the
// tests' code-server 4.100.3 is VS Code 1.100), whose types lack it. So the few members used
// are declared here and looked up at run time: a VS Code without them gets no provider, and
// the log says why.
import * as vscode from "vscode";
import type { Launch } from "./sidecar/launch";

export const PROVIDER_ID = "lazy.mcp";
export const SETTING = "lazy.mcp.enabled";

/** A stdio server as VS Code's McpStdioServerDefinition takes it. */
export interface McpServer {
  label: string;
  command: string;
  args: string[];
  env: Record<string, string>;
}

interface McpProvider {
  onDidChangeMcpServerDefinitions: vscode.Event<void>;
  provideMcpServerDefinitions(): unknown[];
}

interface McpApi {
  lm?: { registerMcpServerDefinitionProvider?: (id: string, provider: McpProvider) => vscode.Disposable };
  McpStdioServerDefinition?: new (
    label: string,
    command: string,
    args?: string[],
    env?: Record<string, string>,
    version?: string,
  ) => unknown;
}

/** The server for what the sidecar runs: its command with `mcp` in place of `sidecar`, and
 * the environment it was given on top of the host's (the store, a bundled Python's path). */
export function mcpServer(launch: Launch): McpServer {
  const { command, args } = launch.sidecar;
  const mcpArgs = args.length > 0 && args[args.length - 1] === "sidecar" ? [...args.slice(0, -1), "mcp"] : [...args, "mcp"];
  const env: Record<string, string> = {};
  for (const key of ["LAZY_HOME", "PYTHONPATH"]) {
    const value = launch.env[key];
    if (value) env[key] = value;
  }
  return { label: "lazy", command, args: mcpArgs, env };
}

export interface McpHost {
  launch: () => Launch | undefined;
  /** Fires when the sidecar (re)starts: what it runs may have changed. */
  onDidChange: vscode.Event<unknown>;
  enabled: () => boolean;
  log: vscode.LogOutputChannel;
  version: string;
}

export function registerMcpProvider(host: McpHost): vscode.Disposable[] {
  const api = vscode as unknown as McpApi;
  const register = api.lm?.registerMcpServerDefinitionProvider;
  const Definition = api.McpStdioServerDefinition;
  if (!register || !Definition) {
    host.log.info("this VS Code has no MCP server definition API (1.101+): lazy's MCP server is not offered to its chat");
    return [];
  }
  const changed = new vscode.EventEmitter<void>();
  const provider: McpProvider = {
    onDidChangeMcpServerDefinitions: changed.event,
    provideMcpServerDefinitions: () => {
      const launch = host.launch();
      if (!host.enabled() || !launch) return [];
      const s = mcpServer(launch);
      return [new Definition(s.label, s.command, s.args, s.env, host.version)];
    },
  };
  let registered: vscode.Disposable;
  try {
    registered = register.call(api.lm, PROVIDER_ID, provider);
  } catch (e) {
    // VS Code 1.100 has the API but wants a contribution point of its own, and throws: the
    // rest of the extension must still activate
    changed.dispose();
    host.log.warn(`lazy's MCP server is not offered to VS Code's chat: ${e instanceof Error ? e.message : String(e)}`);
    return [];
  }
  return [
    new vscode.Disposable(() => { changed.dispose(); }),
    registered,
    host.onDidChange(() => { changed.fire(); }),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration(SETTING)) changed.fire();
    }),
  ];
}
