// The sidecar's connection over vscode-languageclient: a Launch (launch.ts) run as a stdio
// language server. Kept apart from sidecar.ts, which only sees SidecarConnection, so the
// start/stop/restart logic is unit-tested without a LanguageClient.
import type * as vscode from "vscode";
import {
  CloseAction,
  ErrorAction,
  LanguageClient,
  State,
  WorkDoneProgress,
  WorkDoneProgressCreateRequest,
  type LanguageClientOptions,
  type ServerOptions,
} from "vscode-languageclient/node";
import type { Launch } from "./launch";
import type { SidecarConnection } from "./sidecar";

export function connectLanguageClient(launch: Launch, log: vscode.LogOutputChannel): SidecarConnection {
  // no `transport`: with TransportKind.stdio the client would append --stdio to the
  // command line, which `lazy sidecar` does not take (stdio is its only transport)
  const serverOptions: ServerOptions = {
    command: launch.sidecar.command,
    args: launch.sidecar.args,
    options: { env: launch.env },
  };
  const clientOptions: LanguageClientOptions = {
    // the transcript opened as text: the sidecar offers "Promote messages N–M to task" on a
    // selection there (textDocument/codeAction), so those documents are synced to it
    documentSelector: [{ scheme: "lazy-transcript" }],
    outputChannel: log,
    initializationOptions: launch.initializationOptions,
    // the status bar offers the restart: a crash loop restarting itself would only hide it
    errorHandler: {
      error: () => ({ action: ErrorAction.Continue, handled: true }),
      closed: () => ({ action: CloseAction.DoNotRestart, handled: true }),
    },
  };
  const lc = new LanguageClient("lazy", "Lazy Sidecar", serverOptions, clientOptions);
  return {
    start: () => lc.start(),
    stop: (timeoutMs) => lc.stop(timeoutMs),
    sendRequest: (method, params, token) => (token ? lc.sendRequest(method, params, token) : lc.sendRequest(method, params)),
    onStopped: (handler) => lc.onDidChangeState((e) => { if (e.newState === State.Stopped) handler(); }),
    onNotification: (name, handler) => lc.onNotification(name, handler),
    // our own handler replaces the client's default progress UI, so that the import shows
    // the sidecar's $/progress inside its one cancellable notification
    onProgressCreated: (handler) => lc.onRequest(WorkDoneProgressCreateRequest.type, (p) => { handler(p.token); }),
    onProgress: (token, handler) => lc.onProgress(WorkDoneProgress.type, token, handler),
  };
}
