"""The rules `lazy doctor --purge-housekeeping-conversations` classifies by: each anchored at
the very start of the single user message, so quoting a lazy prompt anywhere else is never
matched."""

from __future__ import annotations

import pytest

from lazy.doctor.housekeeping import RULES, classify
from lazy.model import ONESHOT_MARKER

OPENINGS = {
    "marked one-shot": f"{ONESHOT_MARKER} answer from the transcript below",
    "ask": "Below is excerpt 2 of 5 of a stored Claude Code conversation. Read it for",
    "accept summary": "Summarize this pull request in three sentences: what changed, why",
    "report": "Write a digest of the week's tasks for the team",
    "memory compaction": "Compact these memory records into at most twenty",
    "pairing summary": "Summarize this pairing session for the task log",
}


@pytest.mark.parametrize(("kind", "text"), OPENINGS.items())
def test_each_kind_is_recognised_by_its_opening(kind: str, text: str) -> None:
    hit = classify(text)
    assert hit is not None and hit[0].kind == kind
    assert text.startswith(hit[1])  # the words it matched, shown as "why"


@pytest.mark.parametrize("text", OPENINGS.values())
def test_a_prompt_quoted_later_or_indented_is_not_matched(text: str) -> None:
    assert classify(f"Why does lazy send this? {text}") is None
    assert classify(f"\n{text}") is None
    assert classify(f" {text}") is None


def test_every_kind_has_an_example_here() -> None:
    assert {r.kind for r in RULES} == set(OPENINGS)


def test_ordinary_openings_are_conversations() -> None:
    for text in (
        "Summarize the failing tests for me",
        "Write a test for the retention policy",
        "Below is the stack trace I get",
        "compact the CSS please",
    ):
        assert classify(text) is None, text
