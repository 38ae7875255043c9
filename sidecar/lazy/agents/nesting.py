"""How deep a parsed record may nest before lazy cuts it: one bound for every reader.

orjson reads 1,024 levels but writes back only 254, and every reader walks tool inputs and
results recursively (cutting long strings, pulling out text); a record nested deeper than
that would fail far from its line, in the write of its batch, and stop its whole file on
every later pass. Cut at the source instead, where the line is known and can be quarantined.
Real agents nest a few dozen levels at most.
"""

from __future__ import annotations

from typing import Any

MAX_DEPTH = 128  # levels of arrays and objects a record keeps; well under orjson's 254
CUT = f"[nested deeper than {MAX_DEPTH} levels: cut]"


def too_deep(value: Any, limit: int = MAX_DEPTH) -> bool:
    """``value`` holds arrays or objects nested more than ``limit`` levels. Iterative: it never
    recurses however deep the value goes, and stops at the first container past the limit."""
    if not isinstance(value, dict | list):
        return False
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        v, depth = stack.pop()
        children = v.values() if isinstance(v, dict) else v
        for c in children:
            if isinstance(c, dict | list):
                if depth >= limit:
                    return True
                stack.append((c, depth + 1))
    return False


def could_be_deep(raw: bytes, limit: int = MAX_DEPTH) -> bool:
    """Whether a JSON text can nest past ``limit``: only with more brackets than that. Counting
    runs at memchr speed, so the walk of :func:`too_deep` is paid by few lines."""
    return raw.count(b"[") + raw.count(b"{") > limit


def cut(value: Any, limit: int = MAX_DEPTH) -> Any:
    """A copy of ``value`` whose arrays and objects past ``limit`` levels are replaced by
    :data:`CUT`. Recurses at most ``limit`` levels."""
    if limit <= 0:
        return CUT if isinstance(value, dict | list) else value
    if isinstance(value, dict):
        return {k: cut(v, limit - 1) for k, v in value.items()}
    if isinstance(value, list):
        return [cut(v, limit - 1) for v in value]
    return value


def bounded(value: Any, raw: bytes | None = None) -> tuple[Any, str | None]:
    """``value`` (parsed from ``raw``, when given: a cheap test first) within the bound, and
    why it was cut (None when it was not)."""
    if not isinstance(value, dict | list) or (raw is not None and not could_be_deep(raw)):
        return value, None
    if not too_deep(value):
        return value, None
    return cut(value), f"nested deeper than {MAX_DEPTH} levels (read with the deeper part cut)"
