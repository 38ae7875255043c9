"""What the index makes of text and what a hit shows of it: camelCase humps split the way
queries split them, tool calls indexed as their values, and snippets cut around the marks
of a query's terms (the index stores no text)."""

from __future__ import annotations

import orjson
import pytest

from lazy.index.documents import split_text, texts_of
from lazy.index.query import parse
from lazy.index.schema import analyzer, document, split_humps
from lazy.index.snippets import SNIPPET_CHARS, pattern, snippet
from lazy.store.archive import pack_blocks


@pytest.mark.parametrize(
    ("text", "split"),
    [
        ("getUserName", "get User Name"),
        ("HTTPServer", "HTTP Server"),
        ("parseConfig failed", "parse Config failed"),
        ("utf8String", "utf8 String"),
        ("plain words, Capitalised", "plain words, Capitalised"),
        ("ÉcoleNormale", "École Normale"),  # ASCII humps after any letter
        ("naïveBayes", "naïve Bayes"),
        ("a\udc80bC", "a\udc80b C"),  # a lone surrogate survives the byte scan
        ("", ""),
    ],
)
def test_split_humps(text: str, split: str) -> None:
    assert split_humps(text) == split


def tokens(text: str) -> list[str]:
    return list(analyzer().analyze(split_humps(text)))


def test_identifiers_become_the_tokens_a_query_makes() -> None:
    assert tokens("index_writer.py --include-trivial getUserName") == [
        "index", "writer", "py", "include", "trivial", "get", "user", "name",
    ]  # fmt: skip
    # a query word is analysed the same way, so its tokens in a row find it
    assert parse("get_user_name").terms()[0].tokens == tuple(tokens("getUserName"))
    assert tokens("x" * 39 + " " + "y" * 40) == ["x" * 39]  # 40 bytes and more: left out


def test_tool_calls_are_indexed_as_their_values() -> None:
    blocks = [
        {"type": "text", "text": "let me edit it"},
        {
            "type": "tool_use",
            "name": "Edit",
            "input": {"file_path": "/src/app.ts", "new_string": "\nexport function run() {}",
                      "edits": [{"n": 3}]},
        },
        {"type": "tool_result", "text": "The file /src/app.ts has been updated."},
    ]  # fmt: skip
    said, machinery = split_text("let me edit it", pack_blocks(blocks), False)
    assert said == "let me edit it"
    assert machinery.splitlines()[:3] == ["Edit", "/src/app.ts", ""]
    words = tokens(machinery)
    assert "export" in words  # not "nexport", as the JSON's escaped newline would make it
    assert "file" in words  # from the tool's output ...
    assert "new" not in words and "string" not in words  # ... but no argument names


def test_a_tool_role_is_machinery_whatever_its_blocks() -> None:
    blocks = [{"type": "text", "text": "said"}, {"type": "tool_result", "text": "output"}]
    assert texts_of("tool_result", "said", pack_blocks(blocks), False) == ("", "said\n\noutput")
    assert texts_of("assistant", "said", pack_blocks(blocks), False) == ("said", "output")
    doc = orjson.loads(
        document(doc_id=1, ts=0, builder="b", builder_row=1, tool="claude", role="tool_result",
                 session="s", text="", tools="said")
    )  # fmt: skip
    assert doc["tags"] == ["builder=b", "tool=claude", "role=tool_result", "kind=conversation",
                           "session=s"]  # fmt: skip


def marked(text: str, query: str) -> list[str]:
    fragment, ranges = snippet(text, pattern(parse(query).terms()))
    return [fragment[a:b] for a, b in ranges]


def test_snippets_mark_terms_where_the_index_splits() -> None:
    text = "We call parseConfig, then parse_config, then reparse the config-file."
    assert marked(text, "config") == ["Config", "config", "config"]
    assert marked(text, "parse") == ["parse", "parse"]  # not inside "reparse"
    assert marked(text, "parseConfig") == ["parseConfig", "parse_config"]
    assert marked(text, "pars*") == ["parse", "parse"]
    assert marked(text, '"the config file"') == ["the config-file"]
    assert marked("HTTPServer started", "server") == ["Server"]
    assert marked("nothing here", "config") == []


def test_snippet_window_around_the_most_terms() -> None:
    text = "lock " + "filler words " * 40 + "the lock is held by the writer " + "tail " * 40
    fragment, ranges = snippet(text, pattern(parse("lock writer").terms()))
    assert len(fragment) <= SNIPPET_CHARS
    assert {fragment[a:b] for a, b in ranges} == {"lock", "writer"}  # both, not the first lock
    assert fragment.startswith("filler") or fragment.startswith("words")  # cut at a word
    assert snippet("", pattern(parse("x").terms())) == ("", [])
    assert snippet("some text", None) == ("", [])
