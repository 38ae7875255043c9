"""The joining rules over session nodes alone: no SQLite, no files. Each node says what the
store would say around the session (who else holds its head entry, ...)."""

from __future__ import annotations

from typing import Any

from lazy.builders.rules import group, in_order
from lazy.records import SessionFacts
from lazy.store.sessions import SessionNode


def node(sid: str, at: str, agent: str = "claude", **kw: Any) -> SessionNode:
    """A main session started at ``at``; facts as keywords of SessionFacts, the rest of the
    node's fields as its own keywords."""
    fields = set(SessionFacts.__dataclass_fields__)
    facts = SessionFacts(
        first_timestamp=at,
        version=kw.pop("version", "2.1.0"),
        **{k: kw.pop(k) for k in list(kw) if k in fields},
    )
    return SessionNode(id=sid, agent=agent, facts=facts, message_count=kw.pop("count", 2), **kw)


def test_sessions_on_their_own_are_builders_of_their_own() -> None:
    g = group([node("b", "2026-01-02"), node("a", "2026-01-01")])
    assert g.builder == {"a": "a", "b": "b"}
    assert g.forked == {}


def test_a_continued_in_record_carries_the_conversation_on() -> None:
    g = group([node("a", "1", continued_in="b"), node("b", "2"), node("c", "3", continued_in="d")])
    assert g.builder["b"] == "a"
    assert g.builder["c"] == "c"


def test_clear_starts_a_builder_even_when_its_head_is_elsewhere() -> None:
    g = group([node("a", "1"), node("b", "2", clear_start=True, head_uuid="u", head_owners=("a",))])
    assert g.builder == {"a": "a", "b": "b"}


def test_a_copied_head_continues_in_1_0_and_forks_from_2() -> None:
    old = group(
        [
            node("a", "1", version="1.0.51"),
            node("b", "1", version="1.0.51", head_uuid="u", head_owners=("a",), count=4),
        ]
    )
    assert old.builder == {"a": "a", "b": "a"}
    new = group([node("a", "1"), node("b", "1", head_uuid="u", head_owners=("a",), count=4)])
    assert new.builder == {"a": "a", "b": "b"}
    assert new.forked == {"b": "a"}


def test_a_copy_sorts_after_its_origin_whatever_its_timestamps() -> None:
    a, b = node("a", "1"), node("b", "1", copied_from="a", count=1)
    assert [s.id for s in in_order([b, a])] == ["a", "b"]
    g = group([b, a])
    assert g.builder["b"] == "b" and g.forked == {"b": "a"}


def test_a_fork_of_a_session_not_in_the_store_names_it() -> None:
    g = group([node("b", "2", copied_from="gone", forked=True)])
    assert g.builder == {"b": "b"}
    assert g.forked == {"b": "gone"}


def test_resumed_from_the_leaf_continues_from_the_middle_forks() -> None:
    sessions = [
        node("a", "1", tail_uuid="leaf"),
        node("b", "2", head_parent="leaf", parent_owners=("a",)),
        node("c", "3", head_parent="mid", parent_owners=("a",)),
    ]
    g = group(sessions)
    assert g.builder == {"a": "a", "b": "a", "c": "c"}
    assert g.forked == {"c": "a"}


def test_a_compaction_link_into_an_earlier_session_continues_it() -> None:
    g = group([node("a", "1"), node("b", "2", link_owners=((), ("a",)))])
    assert g.builder["b"] == "a"


def test_only_earlier_sessions_are_joined_to() -> None:
    # b holds a's head entry, but b started later: a is no copy of it
    g = group([node("a", "1", head_uuid="u", head_owners=("b",)), node("b", "2")])
    assert g.builder == {"a": "a", "b": "b"}


def test_a_1_0_replay_continues_the_session_whose_first_reply_it_repeats() -> None:
    g = group(
        [
            node("a", "1", version="1.0.40", head_msg="msg_1"),
            node("b", "2", version="1.0.40", head_msg="msg_1"),
        ]
    )
    assert g.builder["b"] == "a"


def test_a_1_0_compaction_replay_continues_the_nearest_earlier_holder_of_its_project() -> None:
    v = "1.0.40"
    g = group(
        [
            node("a", "1", version=v, project="/p"),
            node("b", "2", version=v, project="/p"),
            node("x", "3", version=v, project="/other"),
            node("c", "4", version=v, project="/p", summary_holders=frozenset({"a", "b", "x"})),
        ]
    )
    assert g.builder["c"] == "b"


def test_codex_and_opencode_follow_no_uuid_rules() -> None:
    g = group(
        [
            node("a", "1", agent="codex"),
            node("b", "2", agent="codex", head_uuid="u", head_owners=("a",)),
            node("c", "3", agent="codex", copied_from="a"),
        ]
    )
    assert g.builder == {"a": "a", "b": "b", "c": "c"}
    assert g.forked == {"c": "a"}


def test_an_opencode_fork_is_told_by_its_title() -> None:
    g = group(
        [
            node("ses_a", "1", agent="opencode", title="Fix the parser"),
            node("ses_b", "2", agent="opencode", title="Fix the parser (fork #1)"),
        ]
    )
    assert g.builder == {"ses_a": "ses_a", "ses_b": "ses_b"}
    assert g.forked == {"ses_b": "ses_a"}


def test_a_fork_of_a_continuation_names_the_builder_it_belongs_to() -> None:
    g = group(
        [
            node("a", "1", continued_in="b"),
            node("b", "2", tail_uuid="leaf"),
            node("c", "3", head_parent="mid", parent_owners=("b",)),
        ]
    )
    assert g.builder == {"a": "a", "b": "a", "c": "c"}
    assert g.forked == {"c": "a"}
