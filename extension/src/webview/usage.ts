// The transcript's figures of usage (its header: context size, output tokens, turns, cost;
// each message's tokens), kept apart from the renderer: render.ts and transcript.ts only
// call these. Text only: every figure is set with textContent.
import type { BuilderInfo, MessageView } from "../protocol";
import { tokensLine, usageSummary } from "../usage/format";

/** The header's usage line ("" when the Builder has no token counts). */
export function headerUsage(b: BuilderInfo): string {
  const u = b.usage;
  if (!u || !(u.total?.responses ?? 0)) return "";
  return usageSummary(u);
}

/** The span a message's header shows its tokens in, or null when it has none. */
export function tokensSpan(doc: Document, m: MessageView): HTMLElement | null {
  if (!m.tokens) return null;
  const span = doc.createElement("span");
  span.className = "tokens";
  span.textContent = tokensLine(m.tokens);
  return span;
}
