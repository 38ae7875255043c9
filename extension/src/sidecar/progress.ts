// Following the sidecar's server-created $/progress from a request's own notification.
import * as vscode from "vscode";
import type { ProgressSource, ProgressValue } from "./sidecar";

/** Every value of every $/progress the sidecar creates from now until disposed, for a request
 * to show in its own notification (the sidecar's tokens are its own: nothing ties one to the
 * request, so whoever follows during a request takes them all). */
export function followProgress(source: ProgressSource | undefined, onValue: (value: ProgressValue) => void): vscode.Disposable {
  const subs: { dispose(): unknown }[] = [];
  if (source) subs.push(source.onDidCreateProgress((t) => subs.push(source.onProgress(t, onValue))));
  return new vscode.Disposable(() => {
    for (const s of subs) s.dispose();
  });
}

export type NotificationProgress = vscode.Progress<{ message?: string; increment?: number }>;

/** A long request in one cancellable notification showing the sidecar's $/progress (`show`
 * turns each value into the notification's report). The request gets the notification's
 * token: cancelling sends $/cancelRequest. */
export function withRequestProgress<T>(
  title: string,
  source: ProgressSource | undefined,
  show: (progress: NotificationProgress) => (value: ProgressValue) => void,
  request: (token: vscode.CancellationToken) => Promise<T>,
): Thenable<T> {
  return vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: true }, async (progress, token) => {
    const following = followProgress(source, show(progress));
    try {
      return await request(token);
    } finally {
      following.dispose();
    }
  });
}
