// The answer page: an ask's answer (model output) as text, its `#12` references as buttons that
// reveal the message in the transcript, the excerpt counts and the warnings. Text reaches the
// page through textContent only.
import { answerParts, chunkCounts, parseHostAnswer, type AnswerToHost, type HostToAnswer } from "../ask/messages";
import { plainText } from "../text";
import { el } from "./dom";

interface VsCodeApi {
  postMessage(message: AnswerToHost): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const vscode = acquireVsCodeApi();
const doc = document;

function byId(id: string): HTMLElement {
  const e = doc.getElementById(id);
  if (!e) throw new Error(`missing #${id}`);
  return e;
}

function render(m: HostToAnswer): void {
  const r = m.result;
  byId("title").textContent = plainText(`Answer about ${m.label}${r.task ? ` (task ${r.task})` : ""}`);
  byId("question").textContent = plainText(`Q: ${m.question}`);
  const answer = byId("answer");
  answer.replaceChildren(
    ...answerParts(plainText(r.answer)).map((p) => {
      if ("text" in p) return doc.createTextNode(p.text);
      const b = el(doc, "button", "ref", `#${p.ref}`);
      b.type = "button";
      b.title = `Show message #${p.ref} in the transcript`;
      b.addEventListener("click", () => { vscode.postMessage({ type: "reveal", number: p.ref }); });
      return b;
    }),
  );
  byId("counts").textContent = chunkCounts(r);
  const warnings = byId("warnings");
  warnings.replaceChildren(...r.warnings.map((w) => el(doc, "li", undefined, w)));
  warnings.hidden = r.warnings.length === 0;
}

window.addEventListener("message", (event: MessageEvent<unknown>) => {
  const m = parseHostAnswer(event.data);
  if (m instanceof Error) {
    console.warn(`lazy: ignored a malformed message: ${m.message}`);
    return;
  }
  render(m);
});

vscode.postMessage({ type: "ready" });
