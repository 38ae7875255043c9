"""One line of `lazy doctor`: what was checked, how it stands, and the command that fixes it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

# info: not a problem, but worth a line (a capture path not needed while another runs)
Status = Literal["ok", "info", "warn", "fail"]
MARKS: dict[Status, str] = {"ok": "✓", "info": "i", "warn": "!", "fail": "✗"}


@dataclass
class Check:
    title: str  # "Conversation capture is live"
    status: Status
    detail: list[str] = field(default_factory=list)  # indented lines under the title
    fix: str | None = None  # the command that fixes a warning or failure
