"""Generate the sidecar's protocol contract from ``lazy.server.protocol``.

    .venv/bin/python protocol/generate.py            # write schema.json, methods.json, protocol.ts,
                                                     # decode.ts
    .venv/bin/python protocol/generate.py --check    # fail on drift (make check runs this)

``METHODS`` in ``sidecar/lazy/server/protocol.py`` is the single source; the files written
here are derived from it and never edited by hand. The fixtures under ``fixtures/`` are the
exception: hand-written examples, one per method, that both test suites load. They are never
written here, only validated, and must spell out every field as the sidecar sends it, so a
model change that the fixtures do not follow fails the check instead of passing silently.
"""

from __future__ import annotations

import argparse
import difflib
import json
import re
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError
from pydantic.json_schema import models_json_schema

from lazy.agents import TOOL_NAMES, TOOLS
from lazy.export.document import SCHEMA, ExportDocument
from lazy.server.protocol import ERRORS, METHODS, InitializationOptions, Method

HERE = Path(__file__).resolve().parent
COMMAND = ".venv/bin/python protocol/generate.py"
REF_PREFIX = "#/$defs/"
SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
GENERATED_NOTE = f"Generated from sidecar/lazy/server/protocol.py by {COMMAND}; do not edit."
FIXTURES = "fixtures"
_IDENTIFIER = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$]*$")


class Unsupported(ValueError):
    """A schema construct the TypeScript rendering does not know: better to stop than to
    guess a type the extension would then trust."""


# ---- JSON Schema and methods.json -------------------------------------------------------------


def models_of(methods: Sequence[Method]) -> list[type[BaseModel]]:
    """Every params and result model, once each, in the order the methods name them; then
    the initializationOptions of LSP's initialize, which the sidecar validates as strictly."""
    out: list[type[BaseModel]] = []
    for m in methods:
        for model in (m.params, m.result):
            if model is not None and model not in out:
                out.append(model)
    return [*out, InitializationOptions]


def build_schema(
    methods: Sequence[Method],
) -> tuple[dict[str, Any], dict[type[BaseModel], str]]:
    """The schema document and each model's def name (pydantic's, which disambiguates
    models that share a class name)."""
    models = models_of(methods)
    # validation mode: a field with a default may be left out by whoever sends it
    refs, schema = models_json_schema(
        [(model, "validation") for model in models],
        ref_template=REF_PREFIX + "{model}",
        title="lazy sidecar protocol",
        description="The custom JSON-RPC methods of the lazy sidecar, their params and results.",
    )
    names = {model: _ref_name(refs[(model, "validation")]["$ref"]) for model in models}
    entries: dict[str, Any] = {}
    for m in methods:
        entry: dict[str, Any] = {
            "kind": m.kind,
            "direction": m.direction,
            "description": m.doc,
            "params": {"$ref": REF_PREFIX + names[m.params]},
        }
        if m.result is not None:
            entry["result"] = {"$ref": REF_PREFIX + names[m.result]}
        entries[m.name] = entry
    document = {"$schema": SCHEMA_DIALECT, "$comment": GENERATED_NOTE, **schema}
    document["methods"] = entries
    document["initializationOptions"] = {"$ref": REF_PREFIX + names[InitializationOptions]}
    return document, names


def methods_listing(
    methods: Sequence[Method], names: Mapping[type[BaseModel], str]
) -> list[dict[str, Any]]:
    return [
        {
            "name": m.name,
            "kind": m.kind,
            "direction": m.direction,
            "params": names[m.params],
            "result": None if m.result is None else names[m.result],
            "doc": m.doc,
        }
        for m in methods
    ]


def _ref_name(ref: str) -> str:
    if not ref.startswith(REF_PREFIX):
        raise Unsupported(f"a $ref outside $defs: {ref}")
    return ref[len(REF_PREFIX) :]


def render_json(value: Any) -> str:
    return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


# ---- TypeScript -------------------------------------------------------------------------------

# keywords that only annotate: a schema made of nothing else accepts any value
_ANNOTATIONS = {"title", "description", "default", "examples", "deprecated", "$comment"}


def ts_type(schema: Mapping[str, Any]) -> str:
    """The TypeScript type of a (pydantic-produced) JSON Schema."""
    if "$ref" in schema:
        return _ref_name(schema["$ref"])
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return _union(ts_type(s) for s in schema[key])
    if "allOf" in schema:
        if len(schema["allOf"]) != 1:
            raise Unsupported(f"allOf of {len(schema['allOf'])} schemas")
        return ts_type(schema["allOf"][0])
    if "const" in schema:
        return _literal(schema["const"])
    if "enum" in schema:
        return _union(_literal(v) for v in schema["enum"])
    kind = schema.get("type")
    if isinstance(kind, list):
        return _union(ts_type({**schema, "type": k}) for k in kind)
    if kind is None:
        if set(schema) <= _ANNOTATIONS:
            return "unknown"
        raise Unsupported(f"a schema without a type: {sorted(schema)}")
    simple = {"string": "string", "integer": "number", "number": "number", "boolean": "boolean"}
    if kind in simple:
        return simple[kind]
    if kind == "null":
        return "null"
    if kind == "array":
        return _array(schema)
    if kind == "object":
        return _object(schema)
    raise Unsupported(f"type {kind!r}")


def _array(schema: Mapping[str, Any]) -> str:
    if "prefixItems" in schema:
        items = [ts_type(s) for s in schema["prefixItems"]]
        closed = schema.get("items") is False or schema.get("maxItems") == len(items)
        if not closed or schema.get("minItems", 0) != len(items):
            raise Unsupported("a tuple of varying length")
        return "[" + ", ".join(items) + "]"
    item = ts_type(schema.get("items", {}))
    return f"({item})[]" if " | " in item else f"{item}[]"


def _object(schema: Mapping[str, Any]) -> str:
    if schema.get("properties"):
        # pydantic refers to every model by $ref; an inline one would lose its name
        raise Unsupported("an inline object with properties")
    extra = schema.get("additionalProperties", True)
    if extra is True or extra == {}:
        return "Record<string, unknown>"
    if extra is False:
        return "Record<string, never>"
    return f"Record<string, {ts_type(extra)}>"


def _union(types: Iterable[str]) -> str:
    seen: list[str] = []
    for t in types:
        if t not in seen:
            seen.append(t)
    return " | ".join(seen)


def _literal(value: Any) -> str:
    if value is None or isinstance(value, bool | int | float | str):
        return json.dumps(value, ensure_ascii=False)
    raise Unsupported(f"a literal of type {type(value).__name__}")


def _property_name(name: str) -> str:
    return name if _IDENTIFIER.match(name) else json.dumps(name)


def _doc(lines: Sequence[str], indent: str) -> list[str]:
    text = [line.replace("*/", "*\\/") for para in lines for line in para.splitlines()]
    if not text:
        return []
    if len(text) == 1:
        return [f"{indent}/** {text[0]} */"]
    return [f"{indent}/**", *(f"{indent} * {line}".rstrip() for line in text), f"{indent} */"]


def _property_notes(schema: Mapping[str, Any]) -> list[str]:
    notes = []
    if "description" in schema:
        notes.append(str(schema["description"]))
    facts = []
    # a null default goes without saying on an optional ``T | null``
    if schema.get("default") is not None:
        facts.append(f"default {json.dumps(schema['default'], ensure_ascii=False)}")
    bounds = {
        "minimum": "at least",
        "exclusiveMinimum": "more than",
        "maximum": "at most",
        "exclusiveMaximum": "less than",
        "minLength": "length at least",
        "maxLength": "length at most",
    }
    facts += [f"{word} {schema[key]}" for key, word in bounds.items() if key in schema]
    if facts:
        text = "; ".join(facts)
        notes.append(text[0].upper() + text[1:] + ".")
    return [" ".join(notes)] if notes else []


def ts_declaration(name: str, schema: Mapping[str, Any]) -> list[str]:
    """A model as an interface; anything else pydantic gives a def of (an Enum, a
    RootModel) as a type alias."""
    out = _doc([schema["description"]] if "description" in schema else [], "")
    is_model = "properties" in schema or "additionalProperties" not in schema
    if schema.get("type") != "object" or not is_model:
        return [*out, f"export type {name} = {ts_type(schema)};"]
    required = set(schema.get("required", []))
    props: Mapping[str, Any] = schema.get("properties", {})
    if not props:
        return [*out, f"export interface {name} {{}}"]
    out.append(f"export interface {name} {{")
    for prop, sub in props.items():
        optional = "" if prop in required else "?"
        out += _doc(_property_notes(sub), "  ")
        out.append(f"  {_property_name(prop)}{optional}: {ts_type(sub)};")
    out.append("}")
    return out


def const_name(method: str) -> str:
    """``builders/didChange`` -> ``BuildersDidChange``."""
    parts = re.split(r"[^A-Za-z0-9]+", method)
    return "".join(p[:1].upper() + p[1:] for p in parts if p)


def typescript(
    schema: Mapping[str, Any], methods: Sequence[Method], names: Mapping[type[BaseModel], str]
) -> str:
    defs: Mapping[str, Any] = schema["$defs"]
    out = [
        f"// {GENERATED_NOTE}",
        "// Field names travel exactly as the pydantic models name them (snake_case).",
        "",
    ]
    for name in sorted(defs):
        out += ts_declaration(name, defs[name])
        out.append("")

    out.append("/** Every custom method: a request or a notification, and who sends it. */")
    out.append("export const METHODS = {")
    for m in methods:
        out.append(
            f"  {json.dumps(m.name)}: {{ kind: {json.dumps(m.kind)}, "
            f"direction: {json.dumps(m.direction)} }},"
        )
    out += ["} as const;", "", "export type MethodName = keyof typeof METHODS;", ""]
    # the sidecar's own JSON-RPC error codes (protocol.py says what each error's data holds)
    out.append("export const ErrorCodes = {")
    out += [f"  {name}: {code}," for name, code in ERRORS.items()]
    out += ["} as const;", ""]
    # lazy.agents holds the only list of agents: the extension takes it from here
    out.append("/** The agents lazy captures, each with the name it is shown by. */")
    out.append("export const AGENTS = {")
    out += [
        f"  {_property_name(a)}: {json.dumps(TOOL_NAMES[a], ensure_ascii=False)}," for a in TOOLS
    ]
    out += ["} as const;", "", "export type Agent = keyof typeof AGENTS;", ""]

    consts: dict[str, str] = {}
    for m in methods:
        const = const_name(m.name)
        if const in consts or const == "METHODS":
            raise Unsupported(f"{m.name} and {consts.get(const, 'METHODS')} make one name {const}")
        consts[const] = m.name
        out += _doc([m.doc], "")
        out.append(
            f"export const {const} = {{ method: {json.dumps(m.name)}, "
            f"kind: {json.dumps(m.kind)} }} as const;"
        )
    out.append("")

    requests = [m for m in methods if m.kind == "request"]
    notifications = [m for m in methods if m.kind == "notification"]
    out.append("/** Each request's params and result. */")
    out.append("export interface Requests {" if requests else "export interface Requests {}")
    for m in requests:
        result = "null" if m.result is None else names[m.result]
        out.append(f"  {json.dumps(m.name)}: {{ params: {names[m.params]}; result: {result} }};")
    if requests:
        out.append("}")
    out.append("")
    out.append("/** Each notification's params. */")
    out.append(
        "export interface Notifications {" if notifications else "export interface Notifications {}"
    )
    for m in notifications:
        out.append(f"  {json.dumps(m.name)}: {names[m.params]};")
    if notifications:
        out.append("}")
    out += [
        "",
        "export type RequestName = keyof Requests;",
        "export type NotificationName = keyof Notifications;",
    ]
    return "\n".join(out) + "\n"


# ---- TypeScript decoders ----------------------------------------------------------------------

# where protocol/decode.ts finds the building blocks it composes (the extension's, linted there)
DECODERS_MODULE = "../extension/src/protocol/decoders"
# names a decoder of a model must not take: the building blocks, the tables, JS's reserved words
_TAKEN = {
    *("str", "num", "int", "bool", "unknown", "never", "literal", "nullable", "optional"),
    *("union", "arr", "tuple", "record", "obj", "isRecord", "DecodeError", "Decoder", "Shape"),
    *("RESULT_DECODERS", "NOTIFICATION_DECODERS", "P"),
    *("break", "case", "catch", "class", "const", "continue", "debugger", "default", "delete"),
    *("do", "else", "enum", "export", "extends", "false", "finally", "for", "function", "if"),
    *("import", "in", "instanceof", "new", "null", "return", "super", "switch", "this", "throw"),
    *("true", "try", "typeof", "var", "void", "while", "with", "yield", "let", "static"),
}


def decoder_name(model: str) -> str:
    """``BuilderInfo`` -> ``builderInfo``."""
    name = model[:1].lower() + model[1:]
    if name in _TAKEN or not _IDENTIFIER.match(name):
        raise Unsupported(f"a model named {model}: its decoder would be {name}")
    return name


class DecoderExpressions:
    """Each schema's decoder as a TypeScript expression, noting the building blocks used (the
    import names exactly those: an unused one fails tsc's noUnusedLocals)."""

    def __init__(self) -> None:
        self.used: set[str] = set()

    def use(self, block: str, *args: str) -> str:
        self.used.add(block)
        return f"{block}({', '.join(args)})" if args else block

    def expr(self, schema: Mapping[str, Any]) -> str:
        if "$ref" in schema:
            return decoder_name(_ref_name(schema["$ref"]))
        for key in ("anyOf", "oneOf"):
            if key in schema:
                return self._union(schema[key])
        if "allOf" in schema:
            if len(schema["allOf"]) != 1:
                raise Unsupported(f"allOf of {len(schema['allOf'])} schemas")
            return self.expr(schema["allOf"][0])
        if "const" in schema:
            return self.use("literal", _literal(schema["const"]))
        if "enum" in schema:
            return self.use("literal", *(_literal(v) for v in schema["enum"]))
        kind = schema.get("type")
        if isinstance(kind, list):
            return self._union([{**schema, "type": k} for k in kind])
        if kind is None:
            if set(schema) <= _ANNOTATIONS:
                return self.use("unknown")
            raise Unsupported(f"a schema without a type: {sorted(schema)}")
        simple = {"string": "str", "integer": "int", "number": "num", "boolean": "bool"}
        if kind in simple:
            return self.use(simple[kind])
        if kind == "null":
            return self.use("literal", "null")
        if kind == "array":
            return self._array(schema)
        if kind == "object":
            return self._object(schema)
        raise Unsupported(f"type {kind!r}")

    def _union(self, members: Sequence[Mapping[str, Any]]) -> str:
        null = any(dict(m) == {"type": "null"} for m in members)
        rest: list[str] = []
        for m in members:
            if dict(m) != {"type": "null"} and (e := self.expr(m)) not in rest:
                rest.append(e)
        inner = rest[0] if len(rest) == 1 else self.use("union", *rest) if rest else ""
        if not null:
            return inner
        return self.use("nullable", inner) if inner else self.use("literal", "null")

    def _array(self, schema: Mapping[str, Any]) -> str:
        if "prefixItems" in schema:
            _array(schema)  # the same tuples the types allow, or Unsupported
            return self.use("tuple", *(self.expr(s) for s in schema["prefixItems"]))
        return self.use("arr", self.expr(schema.get("items", {})))

    def _object(self, schema: Mapping[str, Any]) -> str:
        if schema.get("properties"):
            raise Unsupported("an inline object with properties")
        extra = schema.get("additionalProperties", True)
        if extra is True or extra == {}:
            return self.use("record", self.use("unknown"))
        if extra is False:
            return self.use("record", self.use("never"))
        return self.use("record", self.expr(extra))

    def declaration(self, name: str, schema: Mapping[str, Any]) -> list[str]:
        """A model's decoder (every field checked, an optional one may be absent); anything
        else's (an Enum, a RootModel) as its expression."""
        head = f"export const {decoder_name(name)}: Decoder<P.{name}> ="
        is_model = "properties" in schema or "additionalProperties" not in schema
        if schema.get("type") != "object" or not is_model:
            return [f"{head} {self.expr(schema)};"]
        self.used.add("obj")
        required = set(schema.get("required", []))
        props: Mapping[str, Any] = schema.get("properties", {})
        if not props:
            return [f"{head} obj<P.{name}>({{}});"]
        out = [f"{head} obj<P.{name}>({{"]
        for prop, sub in props.items():
            e = self.expr(sub)
            field = e if prop in required else self.use("optional", e)
            out.append(f"  {_property_name(prop)}: {field},")
        return [*out, "});"]


def _refs(schema: Any) -> set[str]:
    if isinstance(schema, Mapping):
        found = {_ref_name(schema["$ref"])} if isinstance(schema.get("$ref"), str) else set()
        return found.union(*(_refs(v) for v in schema.values()))
    if isinstance(schema, list):
        return set().union(*(_refs(v) for v in schema))
    return set()


def sent_models(
    defs: Mapping[str, Any], methods: Sequence[Method], names: Mapping[type[BaseModel], str]
) -> list[str]:
    """What the sidecar sends (each result, each notification's params) and every model
    those refer to, each after the ones it refers to (a const is defined before its use)."""
    roots = [names[m.result] for m in methods if m.kind == "request" and m.result is not None]
    roots += [names[m.params] for m in methods if m.kind == "notification"]
    order: list[str] = []
    visiting: list[str] = []

    def visit(name: str) -> None:
        if name in order:
            return
        if name in visiting:
            raise Unsupported(f"a recursive model: {' -> '.join([*visiting, name])}")
        visiting.append(name)
        for ref in sorted(_refs(defs[name])):
            visit(ref)
        visiting.pop()
        order.append(name)

    for root in sorted(set(roots)):
        visit(root)
    return order


def decoders(
    schema: Mapping[str, Any], methods: Sequence[Method], names: Mapping[type[BaseModel], str]
) -> str:
    defs: Mapping[str, Any] = schema["$defs"]
    exprs = DecoderExpressions()
    body: list[str] = []
    for name in sent_models(defs, methods, names):
        body += [*exprs.declaration(name, defs[name]), ""]
    body.append("/** The decoder of each request's result. */")
    body.append(
        'export const RESULT_DECODERS: { [M in P.RequestName]: Decoder<P.Requests[M]["result"]> } = {'
    )
    for m in methods:
        if m.kind == "request":
            if m.result is None:
                result = exprs.use("literal", "null")
            else:
                result = decoder_name(names[m.result])
            body.append(f"  {json.dumps(m.name)}: {result},")
    body += ["};", "", "/** The decoder of each notification's params. */"]
    body.append(
        "export const NOTIFICATION_DECODERS: "
        "{ [N in P.NotificationName]: Decoder<P.Notifications[N]> } = {"
    )
    for m in methods:
        if m.kind == "notification":
            body.append(f"  {json.dumps(m.name)}: {decoder_name(names[m.params])},")
    body.append("};")
    blocks = ", ".join([*sorted(exprs.used), "type Decoder"])
    head = [
        f"// {GENERATED_NOTE}",
        "// One decoder for each shape the sidecar sends (every result, every notification's",
        "// params), as strict as the schema: a sidecar of another version fails at the edge,",
        "// naming the field that did not match.",
        f'import {{ {blocks} }} from "{DECODERS_MODULE}";',
        'import type * as P from "./protocol";',
        "",
    ]
    return "\n".join(head + body) + "\n"


def generate(methods: Sequence[Method] = METHODS) -> dict[str, str]:
    """Each generated file's name (relative to the protocol directory) and text."""
    schema, names = build_schema(methods)
    return {
        "schema.json": render_json(schema),
        "methods.json": render_json(methods_listing(methods, names)),
        "protocol.ts": typescript(schema, methods, names),
        "decode.ts": decoders(schema, methods, names),
        "export.schema.json": render_json(export_schema()),
    }


def export_schema() -> dict[str, Any]:
    """The JSON Schema of ``lazy export --format json`` (lazy.export/1): the message view."""
    schema = ExportDocument.model_json_schema(by_alias=True)
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": SCHEMA, **schema}


# ---- checks -----------------------------------------------------------------------------------


def drift(root: Path, files: Mapping[str, str]) -> list[str]:
    """One line per generated file on disk that differs from ``files``, with the start of
    the difference so a CI log alone says what moved."""
    problems = []
    for name, text in files.items():
        path = root / name
        if not path.is_file():
            problems.append(f"{name}: missing; run {COMMAND}")
            continue
        old = path.read_text(encoding="utf-8")
        if old == text:
            continue
        diff = difflib.unified_diff(
            old.splitlines(), text.splitlines(), f"{name} (on disk)", f"{name} (generated)", n=1
        )
        shown = [f"    {line}" for _, line in zip(range(12), diff, strict=False)]
        problems.append(
            f"{name}: drifted from lazy.server.protocol; run {COMMAND}\n" + "\n".join(shown)
        )
    return problems


def fixture_name(method: str) -> str:
    return method.replace("/", "_") + ".json"


def check_fixtures(root: Path, methods: Sequence[Method] = METHODS) -> list[str]:
    """One line per fixture problem: missing, left over, unreadable, invalid, or not what
    the sidecar would send (every field spelt out, each value as pydantic dumps it)."""
    folder = root / FIXTURES
    expected = {fixture_name(m.name): m for m in methods}
    present = {p.name for p in folder.glob("*.json")} if folder.is_dir() else set()
    problems = [
        f"{FIXTURES}/{name}: no method of that name in lazy.server.protocol"
        for name in sorted(present - set(expected))
    ]
    for name, m in expected.items():
        where = f"{FIXTURES}/{name}"
        if name not in present:
            problems.append(f"{where}: missing; hand-write an example {m.kind} for {m.name}")
            continue
        try:
            data = json.loads((folder / name).read_text(encoding="utf-8"))
        except (OSError, ValueError) as e:
            problems.append(f"{where}: unreadable: {e}")
            continue
        problems += [f"{where}: {p}" for p in fixture_problems(data, m)]
    return problems


def fixture_problems(data: Any, m: Method) -> list[str]:
    if not isinstance(data, dict):
        return ["not a JSON object"]
    keys = {"method", "params"} | ({"result"} if m.kind == "request" else set())
    problems = [f"lacks {k!r}" for k in sorted(keys - set(data))]
    problems += [f"has {k!r}, which a {m.kind} does not" for k in sorted(set(data) - keys)]
    if "method" in data and data["method"] != m.name:
        problems.append(f"method is {data['method']!r}, not {m.name!r}")
    parts: list[tuple[str, type[BaseModel]]] = [("params", m.params)]
    if m.result is not None:
        parts.append(("result", m.result))
    for part, model in parts:
        if part in data:
            problems += round_trip_problems(part, model, data[part])
    return problems


def round_trip_problems(part: str, model: type[BaseModel], value: Any) -> list[str]:
    try:
        dumped = model.model_validate(value).model_dump(mode="json")
    except ValidationError as e:
        return [
            f"{'.'.join(str(x) for x in (part, *err['loc']))}: {err['msg']}" for err in e.errors()
        ] or [f"{part}: not a valid {model.__name__}"]
    difference = first_difference(dumped, value, part)
    return [] if difference is None else [difference]


def first_difference(sent: Any, fixture: Any, path: str) -> str | None:
    """Where the fixture first differs from what the model sends; None when it is exactly
    that. Types count: ``1`` is not ``1.0`` nor ``true``, as they are not on the wire."""
    if isinstance(sent, dict) and isinstance(fixture, dict):
        for key in sorted(set(sent) | set(fixture)):
            at = f"{path}.{key}"
            if key not in fixture:
                return f"{at}: missing (the model sends {_show(sent[key])})"
            if key not in sent:
                return f"{at}: not a field of the model"
            found = first_difference(sent[key], fixture[key], at)
            if found is not None:
                return found
        return None
    if isinstance(sent, list) and isinstance(fixture, list) and len(sent) == len(fixture):
        for i, (a, b) in enumerate(zip(sent, fixture, strict=True)):
            found = first_difference(a, b, f"{path}[{i}]")
            if found is not None:
                return found
        return None
    if type(sent) is type(fixture) and sent == fixture:
        return None
    return f"{path}: the model sends {_show(sent)}, the fixture has {_show(fixture)}"


def _show(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 60 else text[:59] + "…"


# ---- command line -----------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Generate protocol/ (schema.json, methods.json, protocol.ts, decode.ts) from "
        "lazy.server.protocol and validate the hand-written fixtures."
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="write nothing; exit 1 naming each generated file that drifted or fixture that fails",
    )
    parser.add_argument(
        "--root",
        type=Path,
        default=HERE,
        help="the protocol directory to write or check (default: the one holding this script)",
    )
    args = parser.parse_args(argv)
    root: Path = args.root
    files = generate(METHODS)
    if args.check:
        problems = drift(root, files)
    else:
        problems = []
        root.mkdir(parents=True, exist_ok=True)
        for name, text in files.items():
            path = root / name
            if not path.is_file() or path.read_text(encoding="utf-8") != text:
                path.write_text(text, encoding="utf-8", newline="\n")
                print(f"wrote {path}")
    problems += check_fixtures(root, METHODS)
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        print(f"protocol: {len(problems)} problem(s) in {root}", file=sys.stderr)
        return 1
    if args.check:
        print(f"protocol: up to date ({len(METHODS)} methods, fixtures valid)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
