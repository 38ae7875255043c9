"""Untrusted text made safe for a terminal: every control character is shown, none is obeyed.

A transcript holds whatever an agent read (web pages, tool output, files), so its text can carry
ESC/CSI/OSC sequences (retitle the window, write the clipboard with OSC 52, forge hyperlinks),
C1 controls (U+009B is a CSI on its own for some terminals), backspaces and carriage returns
that overwrite what was printed, and BiDi overrides that show code in another order than it
runs ("Trojan Source"). Each such character is replaced by its Python string-literal spelling:
``\\x1b`` for ESC, ``\\x9b`` for a C1 CSI, ``\\r``, ``\\u202e`` for RIGHT-TO-LEFT OVERRIDE,
``\\U000e0041`` for a tag character. One notation for all of them, so what was there can be
read and copied, never run.

Written by hand: the libraries that exist strip sequences (losing that something was there) or
cover only ANSI escapes; none shows C1, BiDi and invisible format characters visibly.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from functools import cache

# Format characters (Unicode category Cf) that stay: the joiners shape emoji sequences and
# Indic and Persian script, and the prepended concatenation marks are visible signs.
KEPT_FORMAT = frozenset(
    "\u200c\u200d"  # ZERO WIDTH NON-JOINER, ZERO WIDTH JOINER
    "\u0600\u0601\u0602\u0603\u0604\u0605\u06dd\u070f\u0890\u0891\u08e2"
    "\U000110bd\U000110cd"
)

# Everything shown rather than emitted: C0 and C1 controls and DEL (Cc), the format characters
# (Cf) but KEPT_FORMAT, the line and paragraph separators (Zl, Zp), lone surrogates (Cs, which
# no terminal encoding can even write). tests/unit/test_terminal.py holds this table to the
# Unicode database of the running Python. Regular-expression spellings, for a character class.
_C0 = r"\x00-\x1f"
_C0_BUT_LAYOUT = r"\x00-\x08\x0b-\x1f"  # all but \t and \n, which a block of lines keeps
_REST = (
    r"\x7f-\x9f"  # DEL, C1
    r"\xad"  # SOFT HYPHEN
    r"\u061c"  # ARABIC LETTER MARK
    r"\u180e"  # MONGOLIAN VOWEL SEPARATOR
    r"\u200b\u200e\u200f"  # ZERO WIDTH SPACE, LEFT-TO-RIGHT MARK, RIGHT-TO-LEFT MARK
    r"\u2028\u2029"  # LINE SEPARATOR, PARAGRAPH SEPARATOR
    r"\u202a-\u202e"  # BiDi embeddings and overrides
    r"\u2060-\u2064"  # WORD JOINER, invisible operators
    r"\u2066-\u206f"  # BiDi isolates, deprecated format characters
    r"\ud800-\udfff"  # lone surrogates
    r"\ufeff"  # ZERO WIDTH NO-BREAK SPACE (BOM)
    r"\ufff9-\ufffb"  # interlinear annotation
    r"\U00013430-\U0001343f"  # Egyptian hieroglyph format controls
    r"\U0001bca0-\U0001bca3"  # shorthand format controls
    r"\U0001d173-\U0001d17a"  # musical symbol format controls
    r"\U000e0001\U000e0020-\U000e007f"  # language tag, tag characters ("ASCII smuggling")
)
# \r\n is one line end where lines are kept (a CR before LF moves nothing a person would miss);
# a lone \r would return the cursor and let what follows overwrite the line, so it is shown.
# Compiled on first use (some 10 ms): most commands print nothing that needs them, and every
# one, the hook and the sidecar too, imports this module.
_BLOCK = rf"\r\n|[{_C0_BUT_LAYOUT}{_REST}]"
_LINE = rf"[{_C0}{_REST}]"
# what JSON text may still hold raw after a serialiser escaped the C0 controls: DEL, C1, the
# format characters and the separators are legal raw in a JSON string, so reach a terminal
# when `--json` prints to one
_JSON_RAW = rf"[{_REST}]"


@cache
def _pattern(source: str) -> re.Pattern[str]:
    return re.compile(source)


_SHORT = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}


def notation(ch: str) -> str:
    """The visible spelling of one character: ``\\t \\n \\r``, else ``\\xHH``, ``\\uHHHH`` or
    ``\\UHHHHHHHH`` by its code point."""
    if ch in _SHORT:
        return _SHORT[ch]
    cp = ord(ch)
    if cp <= 0xFF:
        return f"\\x{cp:02x}"
    if cp <= 0xFFFF:
        return f"\\u{cp:04x}"
    return f"\\U{cp:08x}"


def _printable(text: str, *, multiline: bool) -> bool:
    """Nothing in ``text`` to show: every character shown here is one Python's
    str.isprintable() refuses (Unicode's Other and Separator categories), and that check runs
    many times faster than the pattern, so most text never meets the pattern at all."""
    if multiline:
        text = text.replace("\n", "").replace("\t", "")
    return text.isprintable()


def escapes(text: str, *, multiline: bool = True) -> Iterator[tuple[int, int, str]]:
    """Each stretch of ``text`` to replace, as (start, end, replacement), in order.

    ``multiline`` keeps line feeds and tabs (a transcript's body); without it they are shown
    too (a table cell, an id, anything that must stay one line)."""
    if _printable(text, multiline=multiline):
        return
    for m in _pattern(_BLOCK if multiline else _LINE).finditer(text):
        found = m.group()
        yield m.start(), m.end(), "\n" if found == "\r\n" else notation(found)


def for_terminal(text: str, *, multiline: bool = True) -> str:
    """``text`` with every control and invisible format character shown in its notation."""
    if _printable(text, multiline=multiline):
        return text
    pattern = _pattern(_BLOCK if multiline else _LINE)
    return pattern.sub(lambda m: "\n" if m.group() == "\r\n" else notation(m.group()), text)


class TerminalFormatter(logging.Formatter):
    """Log records for a terminal (stderr): the paths, ids and reasons they quote show their
    controls."""

    def format(self, record: logging.LogRecord) -> str:
        return for_terminal(super().format(record))


def one_line(text: str) -> str:
    """``text`` safe for a terminal and on one line: line feeds and tabs shown as ``\\n``,
    ``\\t``."""
    return for_terminal(text, multiline=False)


def _json_escape(m: re.Match[str]) -> str:
    cp = ord(m.group())
    if cp <= 0xFFFF:
        return f"\\u{cp:04x}"
    cp -= 0x10000  # JSON spells an astral character as its UTF-16 surrogate pair
    return f"\\u{0xD800 + (cp >> 10):04x}\\u{0xDC00 + (cp & 0x3FF):04x}"


def inert_json(dumped: str) -> str:
    """JSON text with every character shown by :func:`for_terminal` written as a ``\\u``
    escape: the same value to a JSON parser, nothing a terminal acts on.

    Only for serialised JSON, where such a character can only stand inside a string."""
    if _printable(dumped, multiline=True):  # a serialiser's indent is its only raw \n
        return dumped
    return _pattern(_JSON_RAW).sub(_json_escape, dumped)
