import * as assert from "node:assert/strict";
import type { Settings } from "../../src/sidecar/config";
import { readSettings, initializationOptions } from "../../src/sidecar/config";
import { bundledPythonPath, checkPython, findSidecar, sidecarEnv, type DiscoveryEnv } from "../../src/sidecar/discovery";

const base: Settings = {
  sidecarPath: "",
  python: "",
  store: "",
  extraSourceRoots: { claude: [], codex: [], opencode: [] },
  liveCapture: true,
};

function env(executables: string[], over: Partial<DiscoveryEnv> = {}): DiscoveryEnv {
  return {
    pathEnv: "/usr/local/bin:/usr/bin",
    workspaceFolders: ["/ws/app"],
    platform: "linux",
    homeDir: "/home/u",
    isExecutable: (f) => executables.includes(f),
    ...over,
  };
}

const all = ["/opt/lazy/bin/lazy", "/usr/bin/python3.12", "/usr/local/bin/lazy", "/ws/app/.venv/bin/lazy"];

describe("sidecar discovery", () => {
  it("prefers lazy.sidecar.path over everything", () => {
    const d = findSidecar({ ...base, sidecarPath: "/opt/lazy/bin/lazy", python: "/usr/bin/python3.12" }, env(all));
    assert.deepEqual(d, { kind: "found", sidecar: { source: "setting", command: "/opt/lazy/bin/lazy", args: ["sidecar"] } });
  });

  it("then lazy.python, run as a module", () => {
    const d = findSidecar({ ...base, python: "/usr/bin/python3.12" }, env(all));
    assert.ok(d.kind === "found");
    assert.equal(d.sidecar.source, "python");
    assert.deepEqual(d.sidecar.args, ["-m", "lazy.cli.main", "sidecar"]);
    assert.equal(d.sidecar.python, "/usr/bin/python3.12");
  });

  it("looks a bare python name up on PATH", () => {
    const d = findSidecar({ ...base, python: "python3.12" }, env(["/usr/bin/python3.12"]));
    assert.equal(d.kind === "found" && d.sidecar.command, "/usr/bin/python3.12");
  });

  it("then lazy on PATH", () => {
    const d = findSidecar(base, env(all));
    assert.equal(d.kind === "found" && d.sidecar.source, "path");
    assert.equal(d.kind === "found" && d.sidecar.command, "/usr/local/bin/lazy");
  });

  it("then the workspace's .venv", () => {
    const d = findSidecar(base, env(["/ws/app/.venv/bin/lazy"]));
    assert.equal(d.kind === "found" && d.sidecar.source, "workspace-venv");
    assert.equal(d.kind === "found" && d.sidecar.command, "/ws/app/.venv/bin/lazy");
  });

  it("is missing when nothing is there", () => {
    assert.deepEqual(findSidecar(base, env([])), { kind: "missing" });
  });

  it("says what is wrong with a configured path that is not executable", () => {
    const d = findSidecar({ ...base, sidecarPath: "~/nope/lazy" }, env(all));
    assert.ok(d.kind === "missing");
    assert.match(d.problem ?? "", /\/home\/u\/nope\/lazy.*not an executable/);
  });

  it("does not fall back past a configured python that is missing", () => {
    const d = findSidecar({ ...base, python: "/no/python" }, env(all));
    assert.ok(d.kind === "missing");
    assert.match(d.problem ?? "", /lazy\.python/);
  });

  it("sets LAZY_HOME only when lazy.store is set", () => {
    assert.equal(sidecarEnv(base, { PATH: "/bin" }, "/home/u").LAZY_HOME, undefined);
    assert.equal(sidecarEnv({ ...base, store: "~/store" }, {}, "/home/u").LAZY_HOME, "/home/u/store");
  });
});

describe("python check", () => {
  const exec = (answers: Record<string, string | Error>) => (_file: string, args: string[]) => {
    const a = answers[args[1] ?? ""];
    return a instanceof Error ? Promise.reject(a) : Promise.resolve(a ?? "");
  };

  it("accepts Python 3.11 with lazy", async () => {
    const r = await checkPython("/py", exec({ "import sys; print(sys.version_info[:2])": "(3, 11)\n", "import lazy": "" }));
    assert.equal(r, undefined);
  });

  it("refuses an old Python and says how to check", async () => {
    const r = await checkPython("/py", exec({ "import sys; print(sys.version_info[:2])": "(3, 10)\n" }));
    assert.match(r ?? "", /Python 3\.10; lazy needs Python 3\.11/);
    assert.match(r ?? "", /\/py -c "import sys; print\(sys.version_info\[:2\]\)"/);
  });

  it("refuses a Python without lazy and says how to fix it", async () => {
    const r = await checkPython(
      "/py",
      exec({ "import sys; print(sys.version_info[:2])": "(3, 12)", "import lazy": new Error("ModuleNotFoundError: No module named 'lazy'") }),
    );
    assert.match(r ?? "", /cannot import lazy \(ModuleNotFoundError/);
    assert.match(r ?? "", /pip install lazy-builders/);
    assert.match(r ?? "", /-c "import lazy"/);
  });

  it("reports a Python that does not run", async () => {
    const r = await checkPython("/py", exec({ "import sys; print(sys.version_info[:2])": new Error("ENOENT") }));
    assert.match(r ?? "", /could not be run \(ENOENT\)/);
  });
});

describe("settings", () => {
  it("reads lazy.* with defaults and drops junk", () => {
    const values: Record<string, unknown> = {
      "sidecar.path": " /x/lazy ",
      extraSourceRoots: { claude: ["/a", 3, ""], codex: "nope", other: ["/b"] },
      liveCapture: false,
    };
    const s = readSettings((k) => values[k]);
    assert.equal(s.sidecarPath, "/x/lazy");
    assert.equal(s.python, "");
    assert.deepEqual(s.extraSourceRoots, { claude: ["/a"], codex: [], opencode: [] });
    assert.deepEqual(initializationOptions(s), { live_capture: false, extra_roots: { claude: ["/a"], codex: [], opencode: [] } });
  });
});


describe("the sidecar bundled in the .vsix", () => {
  it("comes last, run by the newest Python 3.11+ on PATH", () => {
    const d = findSidecar(base, env(["/usr/bin/python3", "/usr/bin/python3.12"], { bundledDir: "/ext/bundled" }));
    assert.ok(d.kind === "found");
    assert.equal(d.sidecar.source, "bundled");
    assert.equal(d.sidecar.command, "/usr/bin/python3.12");
    assert.equal(d.sidecar.bundled, "/ext/bundled");
    assert.deepEqual(d.sidecar.args, ["-m", "lazy.cli.main", "sidecar"]);
    // anything the user installed or configured wins
    const onPath = findSidecar(base, env(["/usr/local/bin/lazy", "/usr/bin/python3"], { bundledDir: "/ext/bundled" }));
    assert.ok(onPath.kind === "found" && onPath.sidecar.source === "path");
  });

  it("without a Python on PATH says what to install", () => {
    const d = findSidecar(base, env([], { bundledDir: "/ext/bundled" }));
    assert.ok(d.kind === "missing" && d.problem?.includes("Python 3.11"));
  });

  it("puts the common packages and its Python's own on PYTHONPATH", async () => {
    const got = await bundledPythonPath("/ext/bundled", "/usr/bin/python3", () => Promise.resolve("(3, 12)\n"));
    assert.deepEqual(got, { pythonPath: "/ext/bundled/common:/ext/bundled/cp312" });
    const old = await bundledPythonPath("/ext/bundled", "/usr/bin/python3", () => Promise.resolve("(3, 10)\n"));
    assert.ok("problem" in old && old.problem.includes("Python 3.10"));
    const env = sidecarEnv(base, {}, "/home/u", "/ext/bundled/common:/ext/bundled/cp312");
    assert.equal(env.PYTHONPATH, "/ext/bundled/common:/ext/bundled/cp312");
  });
});
