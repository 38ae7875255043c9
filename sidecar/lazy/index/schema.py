"""The search index's schema: one document per stored message, and how text is analysed.

Identifiers are found by their parts and whole with one analysis: words are split at every
character that is not a letter or digit (``index_writer.py`` -> ``index writer py``) and,
before that, at camelCase humps (``getUserName`` -> ``get User Name``), both in documents
and in queries; a whole identifier is then the phrase of its parts. Tantivy's own simple
tokenizer does the splitting, four times faster than tantivy's regex tokenizer, and the humps
are found by byte scans (``split_humps``). Tool calls and tool output live in
``tools``, which default searches leave out. The index stores no text: the store has it.
"""

from __future__ import annotations

import math

import orjson
import tantivy

# Bumped whenever the schema or the analysis changes: an index of another version is
# rebuilt from the store.
SCHEMA_VERSION = 4  # 4: texts redacted, redacted=… tags

ANALYZER = "lazy_words"
MAX_TOKEN = 40  # longer tokens (hashes, base64) are left out, as tantivy's default does

# what filters match, as raw terms "name=value" of one field ``tags``: one field rather than
# one per name saves the per-document norms tantivy keeps for every indexed text field.
# project: the path; project_name: its last part, what people type (project:lazy)
TAGS = "tags"
KEYWORDS = ("builder", "session", "tool", "project", "project_name", "role", "kind", "model")
# the conversation (user, assistant, reasoning) and tasks; the machinery; memories' content.
# Memories have a field of their own: the default scope then needs no clause leaving them out
TEXT_FIELDS = ("text", "tools", "memory")
KINDS = ("conversation", "task", "memory")
# roles whose text is machinery: it goes to ``tools`` whatever its blocks are (documents.py)
MACHINE_ROLES = ("tool_call", "tool_result")

# every byte as its class: "a" a lower-case ASCII letter or digit, "A" a capital, " " the
# rest; a hump is then a plain substring of the classes
_LOWER = b"abcdefghijklmnopqrstuvwxyz0123456789"
_UPPER = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_CLASSES = bytes(ord("a") if c in _LOWER else ord("A") if c in _UPPER else 32 for c in range(256))
_HUMPS = (b"aA", b"AAa")  # parseConfig, HTTPServer: the cut is after the first class


def split_humps(text: str) -> str:
    """``text`` with a space at every camelCase hump (``getUserName`` -> ``get User Name``,
    ``HTTPServer`` -> ``HTTP Server``). The humps are found as substrings of the text's
    letter classes, byte for byte: a regex would take a step at every character."""
    if not text:
        return text
    raw = text.encode("utf-8", "surrogatepass")
    classes = raw.translate(_CLASSES)
    cuts = []
    for hump in _HUMPS:
        i = classes.find(hump)
        while i != -1:
            cuts.append(i + 1)
            i = classes.find(hump, i + 1)
    if not cuts:
        return text
    cuts.sort()
    pieces = [raw[a:b] for a, b in zip([0, *cuts], [*cuts, len(raw)], strict=True)]
    return b" ".join(pieces).decode("utf-8", "surrogatepass")


def analyzer() -> tantivy.TextAnalyzer:
    T = tantivy
    return (
        T.TextAnalyzerBuilder(T.Tokenizer.simple())
        .filter(T.Filter.remove_long(MAX_TOKEN))
        .filter(T.Filter.lowercase())
        .build()
    )


def build_schema() -> tantivy.Schema:
    b = tantivy.SchemaBuilder()
    # messages.id, a column only: read per hit, and ranges of it deleted (indexed, a term
    # per message would add about 6% to the index)
    b.add_integer_field("doc_id", fast=True)
    # the Builder's row number in the store, a column: hits are grouped without a lookup (a
    # small number packs in a few bits; a hash of the id would take eight bytes a message)
    b.add_integer_field("builder", fast=True)
    # seconds since the epoch, floored: after:/before: bounds stay exact. A column only:
    # a range checks the documents the words found, where an indexed field would walk a
    # term per distinct second
    b.add_integer_field("ts", fast=True)
    b.add_text_field(TAGS, tokenizer_name="raw", index_option="basic")
    for name in TEXT_FIELDS:
        b.add_text_field(name, tokenizer_name=ANALYZER, index_option="position")
    return b.build()


def register(index: tantivy.Index) -> None:
    index.register_tokenizer(ANALYZER, analyzer())


def tag(name: str, value: str) -> str:
    """The term a filter ``name:value`` matches."""
    return f"{name}={value}"


def document(
    *,
    doc_id: int,
    ts: float | None,
    builder: str,
    builder_row: int,
    tool: str,
    session: str | None = None,
    role: str,
    kind: str = "conversation",
    project: str | None = None,
    model: str | None = None,
    text: str = "",
    tools: str = "",
    extra_tags: list[str] | None = None,
) -> str:
    """One message as the JSON document ``IndexWriter.add_json`` takes (one call per
    document: a tenth of the cost of adding its fields one by one)."""
    # tag(name, value), spelt out: this runs once per message of a rebuild
    tags = [f"builder={builder}", f"tool={tool}", f"role={role}", f"kind={kind}"]
    if session:
        tags.append(f"session={session}")
    if project:
        tags += [f"project={project}", f"project_name={project.rstrip('/').rsplit('/', 1)[-1]}"]
    if model:
        tags.append(f"model={model}")
    if extra_tags:
        tags += extra_tags
    doc: dict[str, object] = {
        "doc_id": doc_id,
        "builder": builder_row,
        TAGS: tags,
        "memory" if kind == "memory" else "text": split_humps(text),
        "tools": split_humps(tools),
    }
    if ts is not None:
        doc["ts"] = math.floor(ts)
    return orjson.dumps(doc).decode()
