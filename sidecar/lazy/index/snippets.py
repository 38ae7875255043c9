"""Snippets: the passage of a message around what a query matched, with the matches marked.

The index stores no text, so passages are cut from the store's text with a pattern built
from the query's terms: each term's tokens, case-insensitively, starting and ending where
the index's analysis would split (``schema.split_humps``), joined by any run of
non-letters, so ``getUserName`` is marked in ``get_user_name`` and ``config`` in
``parseConfig``.
"""

from __future__ import annotations

import re

from lazy.index.query import Term

SNIPPET_CHARS = 180
_LEAD = 50  # characters shown before the first match of the passage

_MARKS = 8  # a passage is chosen among the first few marks
_SCAN = 200  # marks looked at for a message's matched words
_WORDS = 16  # distinct matched words of a message, at most


class Marks:
    """The query's positive terms as one case-insensitive pattern; a match counts where
    the index's analysis would have started (and, but for a prefix, ended) a token there.
    The boundaries are checked per match: as lookarounds they would cost a regex step at
    every character of the text."""

    def __init__(self, terms: list[Term]) -> None:
        terms = sorted(terms, key=lambda t: -len(t.text))  # the longest mark first
        self.prefix = [t.kind == "prefix" for t in terms]
        bodies = (r"[\W_]*".join(re.escape(tok) for tok in t.tokens) for t in terms)
        self.regex = re.compile("|".join(f"({b})" for b in bodies), re.IGNORECASE)

    def find(self, text: str, limit: int = _MARKS) -> list[tuple[int, int, str]]:
        found = []
        for m in self.regex.finditer(text):
            s, e = m.span()
            if not _splits(text, s):
                continue
            if self.prefix[(m.lastindex or 1) - 1]:
                while not _splits(text, e):  # the whole word the prefix starts
                    e += 1
            elif not _splits(text, e):
                continue
            found.append((s, e, m.group().lower()))
            if len(found) >= limit:
                break
        return found

    def words(self, text: str, limit: int = _WORDS) -> list[str]:
        """The distinct strings marked anywhere in ``text``, as written there (whitespace
        runs made one space; the same word in another case once, first as met): what a
        viewer of the whole message highlights, case-insensitively."""
        seen: dict[str, str] = {}
        for s, e, _ in self.find(text, limit=_SCAN):
            said = " ".join(text[s:e].split())
            seen.setdefault(said.lower(), said)
            if len(seen) >= limit:
                break
        return list(seen.values())


def _splits(text: str, i: int) -> bool:
    """Whether the analysis separates tokens between ``text[i - 1]`` and ``text[i]``."""
    if i == 0 or i == len(text):
        return True
    before, at = text[i - 1], text[i]
    if not (before.isalnum() and at.isalnum()):
        return True
    if "A" <= at <= "Z":  # a camelCase hump (schema.split_humps)
        if "a" <= before <= "z" or "0" <= before <= "9":
            return True
        return "A" <= before <= "Z" and i + 1 < len(text) and "a" <= text[i + 1] <= "z"
    return False


def pattern(terms: list[Term]) -> Marks | None:
    """What marks the query's positive terms in a text (None: the query has none)."""
    return Marks(terms) if terms else None


def snippet(text: str, marks: Marks | None) -> tuple[str, list[tuple[int, int]]]:
    """The passage of ``text`` with the most distinct marks (the first such), and the
    marks' character ranges in it; ``("", [])`` when nothing in ``text`` is marked."""
    found = marks.find(text) if marks is not None and text else []
    if not found:
        return "", []
    best, best_count = 0, 0
    for i, (start, _, _) in enumerate(found):
        within = {w for s, e, w in found[i:] if e <= start + SNIPPET_CHARS - _LEAD}
        if len(within) > best_count:
            best, best_count = i, len(within)
    first = found[best][0]
    lo = max(0, first - _LEAD)
    if lo:  # start at a word
        space = text.find(" ", lo, first)
        lo = space + 1 if space != -1 else lo
    hi = min(len(text), lo + SNIPPET_CHARS)
    if hi < len(text):  # end at a word
        space = text.rfind(" ", found[best][1], hi)
        hi = space if space != -1 else hi
    ranges = [(s - lo, e - lo) for s, e, _ in found[best:] if s >= lo and e <= hi]
    return text[lo:hi], ranges
