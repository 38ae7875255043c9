// Runs before every test file: `require("vscode")` (which only exists inside VS Code)
// resolves to the mock beside this file, as vscode-common-python-lsp's test setup does.
import Module from "node:module";
import * as path from "node:path";

type Resolve = (request: string, parent: unknown, isMain: boolean, options: unknown) => string;
const M = Module as unknown as { _resolveFilename: Resolve };
const original = M._resolveFilename;
const mock = path.join(__dirname, "mocks", "vscode.ts");

M._resolveFilename = function (request, parent, isMain, options) {
  if (request === "vscode") return mock;
  return original.call(this, request, parent, isMain, options);
};
