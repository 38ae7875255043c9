// The generated contract (protocol/protocol.ts and protocol/decode.ts at the repo root) is the
// single source of the wire types, their decoders and the sidecar's error codes; it is bundled
// by esbuild, never copied. This module adds the standard JSON-RPC codes the extension also
// tells apart.
import { AGENTS, ErrorCodes, type Agent } from "../../../protocol/protocol";

export * from "../../../protocol/protocol";
export * from "../../../protocol/decode";
export * from "./decoders";

/** The error codes the extension acts on: the sidecar's own, and two of JSON-RPC's. */
export const ErrorCode = {
  NotFound: ErrorCodes.NOT_FOUND,
  Ambiguous: ErrorCodes.AMBIGUOUS,
  BadQuery: ErrorCodes.BAD_QUERY,
  StoreError: ErrorCodes.STORE_ERROR,
  AskFailed: ErrorCodes.ASK_FAILED,
  InvalidParams: -32602,
  RequestCancelled: -32800,
} as const;

/** Every agent's id, in lazy.agents' order. */
export const AGENT_IDS = Object.keys(AGENTS) as Agent[];

/** Which projects a request covers: the workspace folders, or everything. */
export interface Scope {
  all_projects: boolean;
  workspace_folders: string[];
}
