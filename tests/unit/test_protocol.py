"""The generated protocol contract (protocol/): in step with lazy.server.protocol, fixtures
that round-trip through the models, and a check that names whatever drifted."""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import subprocess
import sys
from enum import StrEnum
from pathlib import Path
from types import ModuleType
from typing import Any, Literal

import pytest
from pydantic import BaseModel, Field

from lazy.server.protocol import METHODS, Method

REPO = Path(__file__).resolve().parents[2]
PROTOCOL = REPO / "protocol"
GENERATE = PROTOCOL / "generate.py"


def _load_generator() -> ModuleType:
    # protocol/ is not a package: the script is loaded from its path, as make check runs it
    spec = importlib.util.spec_from_file_location("protocol_generate", GENERATE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


gen = _load_generator()


def _fixture_path(method: Method, root: Path = PROTOCOL) -> Path:
    return root / "fixtures" / (method.name.replace("/", "_") + ".json")


def _canonical(value: Any) -> str:
    # as text, so 1 and 1.0 and true differ as they do on the wire
    return json.dumps(value, sort_keys=True)


def _copy(tmp_path: Path) -> Path:
    root = tmp_path / "protocol"
    shutil.copytree(PROTOCOL, root, ignore=shutil.ignore_patterns("__pycache__"))
    return root


def _check(root: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = gen.main(["--check", "--root", str(root)])
    return code, capsys.readouterr().err


# ---- the repository's contract ----------------------------------------------------------------


def test_check_passes_on_the_repo() -> None:
    run = subprocess.run(
        [sys.executable, str(GENERATE), "--check"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    assert "up to date" in run.stdout


@pytest.mark.parametrize("method", METHODS, ids=[m.name for m in METHODS])
def test_fixture_round_trips(method: Method) -> None:
    fixture = json.loads(_fixture_path(method).read_text(encoding="utf-8"))
    expected_keys = {"method", "params"} | ({"result"} if method.kind == "request" else set())
    assert set(fixture) == expected_keys
    assert fixture["method"] == method.name
    params = method.params.model_validate(fixture["params"]).model_dump(mode="json")
    assert _canonical(params) == _canonical(fixture["params"])
    if method.result is not None:
        result = method.result.model_validate(fixture["result"]).model_dump(mode="json")
        assert _canonical(result) == _canonical(fixture["result"])


def test_one_fixture_per_method() -> None:
    present = sorted(p.name for p in (PROTOCOL / "fixtures").glob("*.json"))
    assert present == sorted(_fixture_path(m).name for m in METHODS)


def test_methods_json_lists_every_method() -> None:
    listed = json.loads((PROTOCOL / "methods.json").read_text(encoding="utf-8"))
    defs = json.loads((PROTOCOL / "schema.json").read_text(encoding="utf-8"))["$defs"]
    assert [(e["name"], e["kind"], e["direction"], e["doc"]) for e in listed] == [
        (m.name, m.kind, m.direction, m.doc) for m in METHODS
    ]
    for entry, method in zip(listed, METHODS, strict=True):
        assert entry["params"] == method.params.__name__
        assert entry["params"] in defs
        if method.kind == "notification":
            assert entry["result"] is None
        else:
            assert method.result is not None
            assert entry["result"] == method.result.__name__
            assert entry["result"] in defs


def test_schema_refs_resolve_and_methods_point_at_defs() -> None:
    schema = json.loads((PROTOCOL / "schema.json").read_text(encoding="utf-8"))
    defs = schema["$defs"]
    refs: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if isinstance(node.get("$ref"), str):
                refs.append(node["$ref"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(schema)
    assert refs
    assert {r.removeprefix("#/$defs/") for r in refs} <= set(defs)
    assert sorted(schema["methods"]) == sorted(m.name for m in METHODS)
    builders_list = schema["methods"]["builders/list"]
    assert builders_list["params"] == {"$ref": "#/$defs/BuildersListParams"}
    assert builders_list["result"] == {"$ref": "#/$defs/BuildersListResult"}
    assert "result" not in schema["methods"]["builders/didChange"]


def test_ts_declares_every_def_and_method() -> None:
    ts = (PROTOCOL / "protocol.ts").read_text(encoding="utf-8")
    defs = json.loads((PROTOCOL / "schema.json").read_text(encoding="utf-8"))["$defs"]
    interfaces = set(re.findall(r"^export interface (\w+) \{", ts, re.M))
    models = {name for name, d in defs.items() if d.get("type") == "object"}
    assert models and models <= interfaces
    assert set(defs) <= interfaces | set(re.findall(r"^export type (\w+) =", ts, re.M))
    assert ts.startswith("// Generated") and "protocol/generate.py" in ts.splitlines()[0]
    for m in METHODS:
        assert f'  "{m.name}": {{ kind: "{m.kind}", direction: "{m.direction}" }},' in ts
        const = gen.const_name(m.name)
        assert f'export const {const} = {{ method: "{m.name}", kind: "{m.kind}" }} as const;' in ts
        if m.kind == "request":
            assert m.result is not None
            line = f'  "{m.name}": {{ params: {m.params.__name__}; result: {m.result.__name__} }};'
        else:
            line = f'  "{m.name}": {m.params.__name__};'
        assert line in ts


def test_generation_is_deterministic() -> None:
    first, second = gen.generate(METHODS), gen.generate(METHODS)
    assert first == second
    assert all(text.endswith("\n") and not text.endswith("\n\n") for text in first.values())


# ---- drift and bad fixtures are reported ------------------------------------------------------


def test_changed_schema_is_reported_as_drift(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _copy(tmp_path)
    schema_path = root / "schema.json"
    schema = json.loads(schema_path.read_text(encoding="utf-8"))
    del schema["$defs"]["BuilderInfo"]["properties"]["summary"]
    changed = json.dumps(schema, indent=2, sort_keys=True) + "\n"
    schema_path.write_text(changed, encoding="utf-8")

    code, err = _check(root, capsys)
    assert code == 1
    assert "schema.json: drifted" in err
    assert '"summary"' in err  # the diff shows what moved
    assert "methods.json" not in err and "protocol.ts" not in err
    assert schema_path.read_text(encoding="utf-8") == changed  # --check writes nothing


def test_missing_and_stale_generated_files_are_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _copy(tmp_path)
    (root / "methods.json").unlink()
    with (root / "protocol.ts").open("a", encoding="utf-8") as f:
        f.write("export type Extra = string;\n")

    code, err = _check(root, capsys)
    assert code == 1
    assert "methods.json: missing" in err
    assert "protocol.ts: drifted" in err
    assert "schema.json" not in err


def test_fixture_problems_are_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _copy(tmp_path)
    fixtures = root / "fixtures"

    def edit(name: str, change: Any) -> None:
        path = fixtures / name
        data = json.loads(path.read_text(encoding="utf-8"))
        change(data)
        path.write_text(json.dumps(data), encoding="utf-8")

    edit("builders_get.json", lambda d: d["result"].pop("title"))  # a default left out
    edit("builders_list.json", lambda d: d["params"].update(limit=float(d["params"]["limit"])))
    edit("transcripts_page.json", lambda d: d["params"].update(count=0))  # below ge=1
    edit("search_query.json", lambda d: d["result"].update(surplus=1))
    edit("builders_didChange.json", lambda d: d.update(result={}))
    edit("import_run.json", lambda d: d.update(method="import/start"))
    (fixtures / "capture_status.json").unlink()
    (fixtures / "builders_delete.json").write_text("{}", encoding="utf-8")
    (fixtures / "capture_didFail.json").write_text("{not json", encoding="utf-8")

    code, err = _check(root, capsys)
    assert code == 1
    expected = [
        "fixtures/builders_get.json: result.title: missing (the model sends",
        # strict params: a float is not an int, even 2.0
        "fixtures/builders_list.json: params.limit: Input should be a valid integer",
        "fixtures/transcripts_page.json: params.count:",
        "fixtures/search_query.json: result.surplus: not a field of the model",
        "fixtures/builders_didChange.json: has 'result', which a notification does not",
        "fixtures/import_run.json: method is 'import/start', not 'import/run'",
        "fixtures/capture_status.json: missing",
        "fixtures/builders_delete.json: no method of that name",
        "fixtures/capture_didFail.json: unreadable",
    ]
    for line in expected:
        assert line in err
    for name in ("schema.json", "methods.json", "protocol.ts"):
        assert f"\n{name}:" not in f"\n{err}"
    # the untouched fixtures are not named
    assert "import_preview.json" not in err


def test_write_mode_regenerates_and_leaves_fixtures_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _copy(tmp_path)
    (root / "protocol.ts").unlink()
    (root / "decode.ts").unlink()
    (root / "schema.json").write_text("{}\n", encoding="utf-8")
    before = {p.name: p.read_bytes() for p in (root / "fixtures").iterdir()}

    assert gen.main(["--root", str(root)]) == 0
    for name in ("protocol.ts", "decode.ts", "schema.json", "methods.json"):
        assert (root / name).read_bytes() == (PROTOCOL / name).read_bytes()
    assert {p.name: p.read_bytes() for p in (root / "fixtures").iterdir()} == before
    capsys.readouterr()
    assert _check(root, capsys) == (0, "")


def test_write_mode_fails_on_a_bad_fixture(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _copy(tmp_path)
    (root / "fixtures" / "builders_get.json").unlink()
    assert gen.main(["--root", str(root)]) == 1
    assert "fixtures/builders_get.json: missing" in capsys.readouterr().err


# ---- the TypeScript rendering -----------------------------------------------------------------


class Color(StrEnum):
    RED = "red"
    BLUE = "blue"


class Inner(BaseModel):
    n: int


class Sample(BaseModel):
    """A sample with every construct the rendering knows."""

    name: str
    maybe: int | None
    level: Literal["low", "high"] = "low"
    color: Color = Color.RED
    tags: list[str] = Field(default_factory=list)
    pairs: list[tuple[int, int]]
    inner: Inner
    inners: dict[str, Inner]
    anything: dict[str, Any]
    either: Inner | str | None = None
    ratio: float = Field(default=0.5, ge=0, le=1)
    modes: list[Literal["a", "b"]]


SAMPLE_METHODS = (
    Method("sample/get", "request", "client->server", Sample, Inner, "Get a sample."),
    Method("sample/didChange", "notification", "server->client", Inner, None, "It changed."),
)


def test_typescript_of_each_construct() -> None:
    ts = gen.generate(SAMPLE_METHODS)["protocol.ts"]
    for line in [
        "/** A sample with every construct the rendering knows. */",
        "export interface Sample {",
        "  name: string;",
        "  maybe: number | null;",
        '  level?: "low" | "high";',
        "  color?: Color;",
        "  tags?: string[];",
        "  pairs: [number, number][];",
        "  inner: Inner;",
        "  inners: Record<string, Inner>;",
        "  anything: Record<string, unknown>;",
        "  either?: Inner | string | null;",
        "  /** Default 0.5; at least 0; at most 1. */",
        "  ratio?: number;",
        '  modes: ("a" | "b")[];',
        'export type Color = "red" | "blue";',
        "export interface Inner {",
        '  "sample/get": { kind: "request", direction: "client->server" },',
        'export const SampleGet = { method: "sample/get", kind: "request" } as const;',
        '  "sample/get": { params: Sample; result: Inner };',
        '  "sample/didChange": Inner;',
    ]:
        assert line in ts.splitlines(), line
    assert "any" not in re.findall(r"\w+", ts)


def test_method_names_that_collide_are_refused() -> None:
    clash = (
        Method("a/b", "request", "client->server", Inner, Inner, ""),
        Method("a_b", "request", "client->server", Inner, Inner, ""),
    )
    with pytest.raises(gen.Unsupported, match="AB"):
        gen.generate(clash)


# ---- the decoders (protocol/decode.ts) --------------------------------------------------------


def test_decoders_of_each_construct() -> None:
    methods = (
        Method("sample/get", "request", "client->server", Inner, Sample, "Get a sample."),
        Method("sample/clear", "request", "client->server", Inner, None, "Nothing back."),
        Method("sample/didChange", "notification", "server->client", Inner, None, "It changed."),
    )
    ts = gen.generate(methods)["decode.ts"]
    lines = ts.splitlines()
    for line in [
        "export const sample: Decoder<P.Sample> = obj<P.Sample>({",
        "  name: str,",
        "  maybe: nullable(int),",
        '  level: optional(literal("low", "high")),',
        "  color: optional(color),",
        "  tags: optional(arr(str)),",
        "  pairs: arr(tuple(int, int)),",
        "  inner: inner,",
        "  inners: record(inner),",
        "  anything: record(unknown),",
        "  either: optional(nullable(union(inner, str))),",
        "  ratio: optional(num),",
        '  modes: arr(literal("a", "b")),',
        'export const color: Decoder<P.Color> = literal("red", "blue");',
        "export const inner: Decoder<P.Inner> = obj<P.Inner>({",
        '  "sample/get": sample,',
        '  "sample/clear": literal(null),',
        '  "sample/didChange": inner,',
    ]:
        assert line in lines, line
    # each decoder after the ones it uses: a const is read when the module loads
    assert lines.index("export const inner: Decoder<P.Inner> = obj<P.Inner>({") < lines.index(
        "export const sample: Decoder<P.Sample> = obj<P.Sample>({"
    )
    imported = re.search(r"^import \{ (.*) \} from ", ts, re.M)
    assert imported is not None
    assert imported.group(1).split(", ") == [
        *("arr", "int", "literal", "nullable", "num", "obj", "optional", "record", "str"),
        *("tuple", "union", "unknown", "type Decoder"),
    ]


def test_decoders_cover_only_what_the_sidecar_sends() -> None:
    ts = (PROTOCOL / "decode.ts").read_text(encoding="utf-8")
    assert ts == gen.generate(METHODS)["decode.ts"]
    assert "export const builderInfo: Decoder<P.BuilderInfo>" in ts
    assert "BuildersListParams" not in ts  # params go the other way: the sidecar checks them
    for m in METHODS:
        assert f"  {json.dumps(m.name)}: " in ts


def test_stale_decoders_are_drift(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _copy(tmp_path)
    path = root / "decode.ts"
    path.write_text(path.read_text(encoding="utf-8").replace("  summary: str,\n", ""), "utf-8")
    code, err = _check(root, capsys)
    assert code == 1
    assert "decode.ts: drifted" in err and "summary" in err
    assert "protocol.ts" not in err
