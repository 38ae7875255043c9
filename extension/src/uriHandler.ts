// Links into VS Code: vscode://lazy-builders.lazy/open?builder=…&n=…[&session=…]&t=…, the
// link `lazy search` prints for each hit (sidecar/lazy/cli/links.py writes the same query).
// It opens the transcript at that message, its words highlighted, as picking the hit in
// Lazy: Search Conversations does. builder is what builders/get takes: an id, a session id,
// a unique prefix or an alias. Anything can send such a link (a web page, another program):
// it only ever opens a transcript, and what it names is checked here and by the sidecar.
import * as vscode from "vscode";
import { termsArg } from "./text";
import { describeFailure } from "./protocol/client";
import type { Ctx } from "./ctx";

export interface OpenLink {
  builder: string;
  number: number | null;
  sessionId: string | null;
  terms: string[];
}

const MAX_ID = 300;

/** What an /open link asks for, or an Error saying what is wrong with it (never quoting
 * the link: a notification renders Markdown links). */
export function parseOpenUri(uri: vscode.Uri): OpenLink | Error {
  if (uri.path !== "/open") return new Error("not a link lazy makes (it opens /open?builder=…)");
  const q = new URLSearchParams(uri.query);
  const builder = q.get("builder")?.trim() ?? "";
  if (!builder || builder.length > MAX_ID) return new Error("the link names no Builder");
  const n = q.get("n");
  if (n !== null && !/^[1-9]\d{0,8}$/.test(n)) return new Error("the link's message number is not a number");
  const session = q.get("session");
  if (session !== null && (!session || session.length > MAX_ID)) return new Error("the link's session is not a session id");
  return { builder, number: n === null ? null : Number(n), sessionId: session, terms: termsArg(q.getAll("t")) };
}

/** The handler of every lazy link VS Code is asked to open. */
export function registerUriHandler(ctx: Ctx): vscode.Disposable {
  return vscode.window.registerUriHandler({
    handleUri: async (uri: vscode.Uri): Promise<void> => {
      const link = parseOpenUri(uri);
      if (link instanceof Error) {
        ctx.log.warn(`a lazy link was refused: ${link.message}`);
        void vscode.window.showErrorMessage(`Lazy: ${link.message}`);
        return;
      }
      ctx.log.info(`opening a lazy link: ${JSON.stringify(link.builder)} #${link.number ?? "-"}`);
      await ctx.panels.open(link.builder, link.number, link.sessionId, link.terms).catch((e: unknown) => {
        // the failure quotes the link's text: into the log (plain), not the notification
        ctx.log.error(`a lazy link could not be opened: ${describeFailure(e)}`);
        void vscode.window.showErrorMessage("Lazy: the link's conversation could not be opened (Lazy: Show Log says why).");
      });
    },
  });
}
