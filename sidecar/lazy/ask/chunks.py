"""A stored transcript as text, split at message boundaries into excerpts that fit a prompt.

The prompt reaches the model as one argv element of `claude -p`, and Linux caps one argv
element at 128 KiB (MAX_ARG_STRLEN, its NUL included): that, not the context window, is the
binding limit. A transcript is passed whole when it fits the 96 KiB budget; otherwise it is
cut into consecutive excerpts, each a run of whole messages, so no message is split across
two readings. Only a single message larger than the budget is cut, and that is reported.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from lazy.model import MessageView, Transcript
from lazy.view.messages import as_text

BUDGET = 96 * 1024  # bytes of transcript in one prompt
ARG_LIMIT = 128 * 1024 - 1  # one argv element, less its terminating NUL


def size(text: str) -> int:
    """Bytes of ``text`` as it is passed: UTF-8."""
    return len(text.encode())


@dataclass(frozen=True)
class Piece:
    """One message rendered as text; ``label`` names it in warnings and excerpt headers."""

    label: str
    text: str


@dataclass
class Excerpt:
    """Consecutive messages, whole (or one message cut to the budget)."""

    pieces: list[Piece] = field(default_factory=list)
    bytes: int = 0

    @property
    def text(self) -> str:
        return "".join(p.text for p in self.pieces)

    @property
    def span(self) -> str:
        first, last = self.pieces[0].label, self.pieces[-1].label
        return first if first == last else f"{first} to {last}"


@dataclass
class Split:
    excerpts: list[Excerpt]
    warnings: list[str]


def render_message(m: MessageView, where: str = "") -> Piece:
    """A message as the model reads it: a header line naming it, its text, its tool calls.

    Tool calls and results are rendered as text like everything else: the transcript is
    data handed to the model, never something that runs.
    """
    label = f"{where}#{m.number}"
    head = f"--- message {label} · {m.role}"
    if m.tool_name:
        head += f" · {m.tool_name}"
    if m.timestamp:
        head += f" · {m.timestamp}"
    body = as_text(m)
    return Piece(label, f"{head} ---\n{body}\n\n")


def render(t: Transcript) -> list[Piece]:
    """Every message of a conversation in order: its own line, then each subagent's."""
    pieces = [render_message(m) for m in t.messages]
    for side in t.sidechains:
        where = f"subagent {side.agent_id or side.session_id} "
        pieces += [render_message(m, where) for m in side.messages]
    return pieces


def cut(piece: Piece, budget: int) -> tuple[Piece, str]:
    """``piece`` cut to ``budget`` bytes with a note saying so, and the warning to report."""
    whole = size(piece.text)
    note = f"\n[… message {piece.label} cut here: {{left:,}} of {whole:,} bytes left out]\n\n"
    room = budget - size(note.format(left=whole))
    if room <= 0:
        raise ValueError(f"a budget of {budget} bytes cannot hold even the cut note")
    # cut on a character boundary: a partial UTF-8 sequence at the end is dropped
    kept = piece.text.encode()[:room].decode(errors="ignore")
    left = whole - size(kept)
    text = kept + note.format(left=left)
    warning = (
        f"message {piece.label} is too large to pass whole ({whole:,} bytes): only its first"
        f" {size(kept):,} bytes were read, {left:,} bytes were left out [MESSAGE_CUT]"
    )
    return Piece(piece.label, text), warning


def split(pieces: Iterable[Piece], budget: int = BUDGET) -> Split:
    """Consecutive excerpts of whole messages, each at most ``budget`` bytes; a message
    larger than the budget alone is cut to it (with a warning) and read on its own."""
    excerpts: list[Excerpt] = []
    warnings: list[str] = []
    current = Excerpt()
    for piece in pieces:
        n = size(piece.text)
        if n > budget:
            piece, warning = cut(piece, budget)
            warnings.append(warning)
            n = size(piece.text)
        if current.pieces and current.bytes + n > budget:
            excerpts.append(current)
            current = Excerpt()
        current.pieces.append(piece)
        current.bytes += n
    if current.pieces:
        excerpts.append(current)
    return Split(excerpts, warnings)
