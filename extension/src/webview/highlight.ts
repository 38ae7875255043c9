// Code highlighting: highlight.js (core and its common languages, bundled), by the language a
// fence or a diff names; never guessed (auto-detection runs every grammar on the text). The
// HTML it returns is escaped text in <span class="hljs-…">, and still goes through sanitize.ts.
//
// A language is registered the first time it is asked for, with the languages its grammar
// embeds: registering all of them when the webview starts builds ~37 grammars (a third of the
// bundle's start-up on a cold open), most of which a transcript never shows.
import hljs from "highlight.js/lib/core";
import type { LanguageFn } from "highlight.js";
import bash from "highlight.js/lib/languages/bash";
import c from "highlight.js/lib/languages/c";
import cpp from "highlight.js/lib/languages/cpp";
import csharp from "highlight.js/lib/languages/csharp";
import css from "highlight.js/lib/languages/css";
import diff from "highlight.js/lib/languages/diff";
import dockerfile from "highlight.js/lib/languages/dockerfile";
import go from "highlight.js/lib/languages/go";
import graphql from "highlight.js/lib/languages/graphql";
import ini from "highlight.js/lib/languages/ini";
import java from "highlight.js/lib/languages/java";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import kotlin from "highlight.js/lib/languages/kotlin";
import less from "highlight.js/lib/languages/less";
import lua from "highlight.js/lib/languages/lua";
import makefile from "highlight.js/lib/languages/makefile";
import markdown from "highlight.js/lib/languages/markdown";
import objectivec from "highlight.js/lib/languages/objectivec";
import perl from "highlight.js/lib/languages/perl";
import php from "highlight.js/lib/languages/php";
import phpTemplate from "highlight.js/lib/languages/php-template";
import python from "highlight.js/lib/languages/python";
import pythonRepl from "highlight.js/lib/languages/python-repl";
import r from "highlight.js/lib/languages/r";
import ruby from "highlight.js/lib/languages/ruby";
import rust from "highlight.js/lib/languages/rust";
import scss from "highlight.js/lib/languages/scss";
import shell from "highlight.js/lib/languages/shell";
import sql from "highlight.js/lib/languages/sql";
import swift from "highlight.js/lib/languages/swift";
import typescript from "highlight.js/lib/languages/typescript";
import vbnet from "highlight.js/lib/languages/vbnet";
import wasm from "highlight.js/lib/languages/wasm";
import xml from "highlight.js/lib/languages/xml";
import yaml from "highlight.js/lib/languages/yaml";

hljs.configure({ ignoreUnescapedHTML: true });

interface Grammar {
  define: LanguageFn;
  /** Other names highlight.js gives it (its definition's `aliases`). */
  aliases: readonly string[];
  /** The languages it highlights inside itself (`subLanguage` in its modes). */
  embeds: readonly string[];
}

/** highlight.js's common set and Dockerfile. The aliases and embeds are what each definition
 * declares; test/unit/highlight.test.ts checks them against highlight.js itself. */
export const GRAMMARS: Readonly<Record<string, Grammar>> = {
  bash: { define: bash, aliases: ["sh", "zsh"], embeds: [] },
  c: { define: c, aliases: ["h"], embeds: [] },
  cpp: { define: cpp, aliases: ["cc", "c++", "h++", "hpp", "hh", "hxx", "cxx"], embeds: [] },
  csharp: { define: csharp, aliases: ["cs", "c#"], embeds: [] },
  css: { define: css, aliases: [], embeds: [] },
  diff: { define: diff, aliases: ["patch"], embeds: [] },
  dockerfile: { define: dockerfile, aliases: ["docker"], embeds: ["bash"] },
  go: { define: go, aliases: ["golang"], embeds: [] },
  graphql: { define: graphql, aliases: ["gql"], embeds: [] },
  ini: { define: ini, aliases: ["toml"], embeds: [] },
  java: { define: java, aliases: ["jsp"], embeds: [] },
  javascript: { define: javascript, aliases: ["js", "jsx", "mjs", "cjs"], embeds: ["xml", "css", "graphql"] },
  json: { define: json, aliases: ["jsonc", "json5"], embeds: [] },
  kotlin: { define: kotlin, aliases: ["kt", "kts", "ktm", "ktx"], embeds: [] },
  less: { define: less, aliases: [], embeds: [] },
  lua: { define: lua, aliases: ["pluto"], embeds: [] },
  makefile: { define: makefile, aliases: ["mk", "mak", "make"], embeds: [] },
  markdown: { define: markdown, aliases: ["md", "mkdown", "mkd"], embeds: ["xml"] },
  objectivec: { define: objectivec, aliases: ["mm", "objc", "obj-c", "obj-c++", "objective-c++"], embeds: [] },
  perl: { define: perl, aliases: ["pl", "pm"], embeds: [] },
  php: { define: php, aliases: [], embeds: [] },
  "php-template": { define: phpTemplate, aliases: [], embeds: ["xml", "php"] },
  python: { define: python, aliases: ["py", "gyp", "ipython"], embeds: [] },
  "python-repl": { define: pythonRepl, aliases: ["pycon"], embeds: ["python"] },
  r: { define: r, aliases: [], embeds: [] },
  ruby: { define: ruby, aliases: ["rb", "gemspec", "podspec", "thor", "irb"], embeds: [] },
  rust: { define: rust, aliases: ["rs"], embeds: [] },
  scss: { define: scss, aliases: [], embeds: [] },
  shell: { define: shell, aliases: ["console", "shellsession"], embeds: ["bash"] },
  sql: { define: sql, aliases: [], embeds: [] },
  swift: { define: swift, aliases: [], embeds: [] },
  typescript: { define: typescript, aliases: ["ts", "tsx", "mts", "cts"], embeds: ["xml", "css", "graphql"] },
  vbnet: { define: vbnet, aliases: ["vb"], embeds: [] },
  wasm: { define: wasm, aliases: [], embeds: [] },
  xml: { define: xml, aliases: ["html", "xhtml", "rss", "atom", "xjb", "xsd", "xsl", "plist", "wsf", "svg"], embeds: ["css", "javascript"] },
  yaml: { define: yaml, aliases: ["yml"], embeds: ["ruby"] },
};

/** Every name and alias → its grammar's name. */
const NAMES = new Map<string, string>(
  Object.entries(GRAMMARS).flatMap(([name, g]) => [[name, name] as const, ...g.aliases.map((a) => [a, name] as const)]),
);

/** Register a grammar and what it embeds, once each. */
function register(name: string): void {
  const g = GRAMMARS[name];
  if (!g || hljs.getLanguage(name)) return;
  hljs.registerLanguage(name, g.define);
  for (const e of g.embeds) register(e);
}

/** Past this, code is shown plain: highlighting a huge blob would hold the page up. */
export const HIGHLIGHT_LIMIT = 100_000;

/** The language highlight.js knows by this name or alias (a fence's first word), if any. */
export function knownLanguage(name: string | null | undefined): string | undefined {
  const word = (name ?? "").trim().split(/[\s{]/)[0]?.toLowerCase() ?? "";
  if (!word || word === "plaintext" || word === "text") return undefined;
  return NAMES.has(word) ? word : undefined;
}

/** Highlighted HTML for code in a known language; undefined when it is to be shown plain. */
export function highlightHtml(code: string, language: string | undefined): string | undefined {
  const name = language === undefined ? undefined : NAMES.get(language);
  if (!name || code.length > HIGHLIGHT_LIMIT) return undefined;
  register(name);
  try {
    return hljs.highlight(code, { language: name, ignoreIllegals: true }).value;
  } catch {
    return undefined;
  }
}
