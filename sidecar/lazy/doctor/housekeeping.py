"""lazy's own housekeeping one-shots stored before the marker existed, and
`lazy doctor --purge-housekeeping-conversations`, which deletes them on request.

This is the only place in lazy that classifies a conversation by its prompt's wording. That
is acceptable here, and nowhere else, because it runs only when a person asks and reads the
list; capture, running on every sweep, goes by the marker alone (protocol/oneshot.md).

Every rule is anchored at the very start of the conversation's single user message: a
conversation with more than one user message is never matched, nor one that quotes a lazy
prompt anywhere but at its very start. The rules are the openings lazy's one-shot prompts
have: `lazy ask` (an excerpt read for the question, and the pass that writes one answer from
the findings), the PR/commit fidelity summary written on every accept, `lazy report`'s
digest, LLM memory compaction, and the end-of-pairing summary of `lazy pair`; and the marker
itself, should a marked one ever have been stored.
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass

from lazy.builders.regroup import refresh_in
from lazy.doctor.context import Context
from lazy.doctor.report import Check
from lazy.store import Store, maintenance
from lazy.store.queries import short_id

TITLE = "No housekeeping conversations in the store"
FIX = "lazy doctor --purge-housekeeping-conversations"
_ANY = "(?:Claude Code |coding[- ]agent |agent )?"


@dataclass(frozen=True)
class Rule:
    kind: str  # which one-shot
    opening: re.Pattern[str]  # matched at the very start of the single user message
    why: str


def _at_start(pattern: str) -> re.Pattern[str]:
    return re.compile(r"\A" + pattern)


RULES: tuple[Rule, ...] = (
    Rule("marked one-shot", _at_start(r"\[lazy:one-shot v\d+\]"), "lazy's one-shot marker"),
    Rule(
        "ask",
        _at_start(
            rf"(?:Below is|Here is) (?:an excerpt|excerpt \d+ of \d+|part \d+ of \d+) of a"
            rf" (?:stored )?{_ANY}(?:conversation|transcript)\b"
        ),
        "how lazy ask hands an excerpt of a transcript to the model",
    ),
    Rule(
        "ask",
        _at_start(
            rf"(?:Answer the question below using only|You are answering a question about)"
            rf" (?:the|this|a) (?:stored )?{_ANY}(?:conversation|transcript)\b"
        ),
        "how lazy ask puts a question to a stored transcript",
    ),
    Rule(
        "ask",
        _at_start(r"(?:Combine|Compose) (?:these|the following) (?:findings|excerpt findings)\b"),
        "lazy ask's final pass, one answer from the excerpts' findings",
    ),
    Rule(
        "accept summary",
        _at_start(
            r"(?:Summari[sz]e|Write (?:a|the) (?:fidelity )?summary of) (?:this|the following)"
            r" (?:pull request|PR|commit|diff)\b"
        ),
        "the PR/commit fidelity summary lazy writes on every accept",
    ),
    Rule(
        "report",
        _at_start(r"(?:Write|Compose) (?:a|the) (?:lazy )?(?:report|digest) (?:of|for|from)\b"),
        "lazy report's digest",
    ),
    Rule(
        "memory compaction",
        _at_start(
            r"(?:Compact|Consolidate|Deduplicate) (?:these|the following)"
            r" (?:memory records|memories)\b"
        ),
        "LLM memory compaction",
    ),
    Rule(
        "pairing summary",
        _at_start(r"Summari[sz]e (?:this|the) pairing session\b"),
        "the end-of-pairing session summary of lazy pair",
    ),
)


@dataclass
class Housekeeping:
    builder_id: str
    short_id: str
    started_at: str | None
    kind: str
    why: str


def classify(text: str) -> tuple[Rule, str] | None:
    """The rule the text opens like, and the words it matched; None for a conversation."""
    for rule in RULES:
        m = rule.opening.match(text)
        if m:
            return rule, m.group(0)
    return None


def survey_in(c: sqlite3.Connection) -> list[Housekeeping]:
    """Claude Code conversations of one user message that opens like a lazy one-shot."""
    out = []
    for bid, mid in maintenance.lone_user_messages(c, "claude"):
        hit = classify(maintenance.message_text(c, mid))
        if hit is None:
            continue
        rule, words = hit
        started = maintenance.builder_started(c, bid)
        if started is None:
            continue
        why = f"its only message opens with “{words}”: {rule.why}"
        out.append(Housekeeping(bid, short_id(bid), started[0], rule.kind, why))
    return sorted(out, key=lambda h: (h.started_at or "", h.builder_id))


def survey(store: Store) -> list[Housekeeping]:
    return survey_in(store.conn)


def purge(store: Store, approved: set[str]) -> list[str]:
    """Delete the approved Builders that are still classified so; returns those deleted."""
    with store.write() as c:
        doomed = [h.builder_id for h in survey_in(c) if h.builder_id in approved]
        done = maintenance.delete_builders(c, doomed)
        if done:
            refresh_in(c, full=True)
    return done


def housekeeping_check(ctx: Context) -> Check:
    found = survey(ctx.need_store())
    if not found:
        return Check(TITLE, "ok", ["none found"])
    kinds = dict.fromkeys((r.kind for r in RULES), 0)  # in the rules' order
    for h in found:
        kinds[h.kind] += 1
    listing = ", ".join(f"{k} {n}" for k, n in kinds.items() if n)
    detail = [
        f"{len(found)} conversation(s) look like lazy's own one-shots stored before the"
        f" marker ({listing})"
    ]
    return Check(TITLE, "warn", detail, FIX)
