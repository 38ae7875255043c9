"""What a one-shot is to its callers: a prompt in, the model's answer text out.

The runner (lazy.ask.runner) runs it in a throwaway container; callers only see this.
"""

from __future__ import annotations

from typing import Protocol


class OneShotError(Exception):
    """A one-shot that failed: ``code`` for machines, ``detail`` the underlying error."""

    def __init__(self, message: str, code: str, detail: str = "") -> None:
        super().__init__(message)
        self.code = code
        self.detail = detail


class OneShotTimeout(OneShotError):
    """A one-shot killed at the bound."""


class OneShot(Protocol):
    def __call__(self, prompt: str) -> str:
        """The model's answer text; raises OneShotError."""
        ...
