"""The search index's schema: one document per stored message.

Text is analysed twice so code is found by its parts and whole: ``text``/``tools`` keep
identifiers, paths and flags whole (``index_writer.py``, ``include-trivial``), and
``text_parts``/``tools_parts`` split them into words (``index``, ``writer``, ``py``). Tool
calls and tool output live in ``tools*``, which default searches leave out.
"""

from __future__ import annotations

import tantivy

# Bumped whenever the schema or the analysers change: an index of another version is
# rebuilt from the store.
SCHEMA_VERSION = 2

WHOLE = "code_whole"
PARTS = "code_parts"

# identifiers, dotted/slashed paths and dashed flags kept whole (leading dashes dropped); any
# script's letters and digits
_WHOLE_RE = r"[\p{L}\p{N}_]+(?:[-./:][\p{L}\p{N}_]+)*"
# words inside identifiers: camelCase humps, runs of capitals, digits, and runs of letters
# that have no case (CJK, ...). (No lookahead in Rust's regex: "HTTPServer" splits as
# "HTTPS" + "erver"; the whole token still matches.)
_PARTS_RE = r"\p{Lu}?\p{Ll}+|\p{Lu}+|\p{N}+|[\p{L}&&[^\p{Lu}\p{Ll}]]+"

# keyword fields: one raw term each (filters)
# project: the path; project_name: its last part, what people type (project:lazy)
KEYWORDS = ("builder", "session", "tool", "project", "project_name", "role", "kind", "model")
TEXT_FIELDS = ("text", "text_parts")  # the conversation: user, assistant, reasoning
TOOL_FIELDS = ("tools", "tools_parts")  # tool calls and tool output


def analyzers() -> dict[str, tantivy.TextAnalyzer]:
    T = tantivy
    whole = (
        T.TextAnalyzerBuilder(T.Tokenizer.regex(_WHOLE_RE))
        .filter(T.Filter.lowercase())
        .filter(T.Filter.remove_long(80))
        .build()
    )
    parts = (
        T.TextAnalyzerBuilder(T.Tokenizer.regex(_PARTS_RE))
        .filter(T.Filter.lowercase())
        .filter(T.Filter.remove_long(80))
        .build()
    )
    return {WHOLE: whole, PARTS: parts}


def build_schema() -> tantivy.Schema:
    b = tantivy.SchemaBuilder()
    b.add_integer_field("doc_id", stored=True, indexed=True, fast=True)  # messages.id
    b.add_integer_field("number", stored=True)
    for name in KEYWORDS:
        b.add_text_field(name, stored=True, tokenizer_name="raw", fast=name == "builder")
    b.add_date_field("ts", stored=True, indexed=True, fast=True)
    # text is not stored: the store has it, and snippets are cut from there
    b.add_text_field("text", stored=False, tokenizer_name=WHOLE, index_option="position")
    b.add_text_field("text_parts", stored=False, tokenizer_name=PARTS, index_option="position")
    b.add_text_field("tools", stored=False, tokenizer_name=WHOLE, index_option="position")
    # tool output is most of the bytes: its parts keep no positions (they would double the
    # index), so an identifier is found there by its parts in any order
    b.add_text_field("tools_parts", stored=False, tokenizer_name=PARTS, index_option="freq")
    return b.build()


def register(index: tantivy.Index) -> None:
    for name, analyzer in analyzers().items():
        index.register_tokenizer(name, analyzer)
