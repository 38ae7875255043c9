// Two builds: the extension host (node, CommonJS, vscode external) and the webview scripts
// (transcript and answer; browser IIFE). The webview CSS is copied beside its script so that
// localResourceRoots can stay limited to dist/webview.
import * as esbuild from "esbuild";
import { copyFile, mkdir } from "node:fs/promises";

const production = process.argv.includes("--production");
const watch = process.argv.includes("--watch");

const common = {
  bundle: true,
  minify: production,
  sourcemap: production ? false : "linked",
  logLevel: "info",
};

const extension = {
  ...common,
  entryPoints: ["src/extension.ts"],
  outfile: "dist/extension.js",
  platform: "node",
  format: "cjs",
  target: "node20",
  external: ["vscode"],
};

const webview = {
  ...common,
  entryPoints: [
    { in: "src/webview/transcript.ts", out: "transcript" },
    { in: "src/webview/answer.ts", out: "answer" },
    { in: "src/usage/page.ts", out: "usage" },
  ],
  outdir: "dist/webview",
  platform: "browser",
  format: "iife",
  target: "es2022",
};

async function copyAssets() {
  await mkdir("dist/webview", { recursive: true });
  for (const css of ["transcript.css", "answer.css"]) await copyFile(`src/webview/${css}`, `dist/webview/${css}`);
  await copyFile("src/usage/usage.css", "dist/webview/usage.css");
}

const copyPlugin = {
  name: "copy-assets",
  setup(build) {
    build.onEnd(() => copyAssets());
  },
};

if (watch) {
  const contexts = await Promise.all([
    esbuild.context(extension),
    esbuild.context({ ...webview, plugins: [copyPlugin] }),
  ]);
  await Promise.all(contexts.map((c) => c.watch()));
} else {
  await Promise.all([esbuild.build(extension), esbuild.build(webview)]);
  await copyAssets();
}
