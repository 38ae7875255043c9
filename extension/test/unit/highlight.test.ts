// The webview's highlighter registers a grammar when it is first asked for: its table of names
// and embedded languages must be highlight.js's own, or a fence would go plain (an alias
// missing) or a grammar would lose what it embeds (CSS in HTML, bash in a Dockerfile).
import * as assert from "node:assert/strict";
import hljsCommon from "highlight.js/lib/common";
import type { Language, Mode } from "highlight.js";
import { GRAMMARS, highlightHtml, knownLanguage } from "../../src/webview/highlight";

/** The languages a grammar's modes name as `subLanguage`. */
function embeds(mode: unknown, seen = new Set<unknown>(), out = new Set<string>()): Set<string> {
  if (!mode || typeof mode !== "object" || seen.has(mode)) return out;
  seen.add(mode);
  const m = mode as Mode & Record<string, unknown>;
  const sub = m.subLanguage;
  for (const s of typeof sub === "string" ? [sub] : Array.isArray(sub) ? sub : []) out.add(s);
  for (const k of ["contains", "variants", "starts"]) {
    const v = m[k];
    if (Array.isArray(v)) for (const x of v) embeds(x, seen, out);
    else embeds(v, seen, out);
  }
  return out;
}

describe("the webview's highlighter", () => {
  it("knows highlight.js's common languages by the names and aliases their definitions give", () => {
    const common = hljsCommon.listLanguages().filter((n) => n !== "plaintext");
    assert.deepEqual(Object.keys(GRAMMARS).filter((n) => n !== "dockerfile").sort(), [...common].sort());
    for (const [name, g] of Object.entries(GRAMMARS)) {
      const lang: Language = g.define(hljsCommon.newInstance());
      assert.deepEqual([...g.aliases].sort(), [...(lang.aliases ?? [])].sort(), `${name}'s aliases`);
      // what it embeds and is in the set (perl's mojolicious is not: shown plain there, as before)
      const inSet = [...embeds(lang)].filter((e) => e in GRAMMARS).sort();
      assert.deepEqual([...g.embeds].sort(), inSet, `${name}'s embedded languages`);
    }
  });

  it("highlights by an alias, with the embedded language registered too", () => {
    assert.equal(knownLanguage("py"), "py");
    assert.match(highlightHtml("def f(): return 1", "py") ?? "", /hljs-keyword/);
    // HTML with a <style>: css registered with xml, so the rule inside is highlighted
    const html = highlightHtml("<style>a { color: red }</style>", knownLanguage("html")) ?? "";
    assert.match(html, /hljs-selector-tag|hljs-attribute/);
    assert.match(highlightHtml("FROM debian\nRUN apt-get update", knownLanguage("Dockerfile")) ?? "", /hljs-keyword/);
  });

  it("leaves unknown, plain and huge code unhighlighted", () => {
    assert.equal(knownLanguage("klingon"), undefined);
    assert.equal(knownLanguage("text"), undefined);
    assert.equal(highlightHtml("x", undefined), undefined);
    assert.equal(highlightHtml("x = 1\n".repeat(20_000), "python"), undefined);
  });
});
