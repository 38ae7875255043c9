// The typed face of the sidecar that every feature uses. Features depend on this interface,
// not on vscode-languageclient, so tests drive them with a fake client.
import type * as vscode from "vscode";
import { RESULT_DECODERS } from "../../../protocol/decode";
import { DecodeError, isRecord } from "./decoders";
import { ErrorCode, type RequestName, type Requests } from ".";

export interface LazyClient {
  request<M extends RequestName>(
    method: M,
    params: Requests[M]["params"],
    token?: vscode.CancellationToken,
  ): Promise<Requests[M]["result"]>;
}

/** What a failed request tells: the JSON-RPC code and data when the sidecar sent them. */
export interface RpcFailure {
  code: number | undefined;
  message: string;
  data: unknown;
}

export function rpcFailure(e: unknown): RpcFailure {
  if (isRecord(e) || e instanceof Error) {
    const r = e as unknown as Record<string, unknown>;
    const code = typeof r.code === "number" ? r.code : undefined;
    const message = typeof r.message === "string" ? r.message : "unknown error";
    return { code, message, data: r.data };
  }
  return { code: undefined, message: String(e), data: undefined };
}

export function isCancellation(e: unknown): boolean {
  const f = rpcFailure(e);
  return f.code === ErrorCode.RequestCancelled || (e instanceof Error && e.name === "Canceled");
}

/** A one-line description of a failure for the user, with the machine detail (invariant 6). */
export function describeFailure(e: unknown): string {
  const f = rpcFailure(e);
  const parts = [f.message];
  if (isRecord(f.data)) {
    if (typeof f.data.part === "string" && f.data.part) parts.push(`near “${f.data.part}”`);
    if (typeof f.data.code === "string") parts.push(`[${f.data.code}]`);
    if (typeof f.data.detail === "string" && f.data.detail) parts.push(f.data.detail);
  }
  if (f.code !== undefined) parts.push(`(code ${f.code})`);
  return parts.join(" ");
}

/** The raw transport: LanguageClient.sendRequest, or a fake in tests. */
export type SendRequest = (
  method: string,
  params: unknown,
  token?: vscode.CancellationToken,
) => Promise<unknown>;

/** A LazyClient over a raw transport, decoding every result so a sidecar of another
 * version fails at the edge with the field that did not match. */
export function typedClient(send: SendRequest): LazyClient {
  return {
    async request<M extends RequestName>(
      method: M,
      params: Requests[M]["params"],
      token?: vscode.CancellationToken,
    ): Promise<Requests[M]["result"]> {
      const raw = await send(method, params, token);
      const decode = RESULT_DECODERS[method];
      try {
        return decode(raw, "");
      } catch (e) {
        if (e instanceof DecodeError) {
          throw new Error(`unexpected ${method} result from the sidecar: ${e.message}`);
        }
        throw e;
      }
    },
  };
}
