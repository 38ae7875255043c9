"""The contract between the asks and the one-shot runner (`lazy.ask.runner`).

A one-shot is one prompt and one answer from the model, run where nothing is captured and
nothing can be written. The orchestration only ever sees this interface, so it is tested
with scripted answers and the runner is tested against a real container.
"""

from __future__ import annotations

from typing import Protocol


class OneShotError(Exception):
    """A one-shot that failed: ``code`` for machines, ``detail`` the underlying error."""

    def __init__(self, message: str, code: str, detail: str = ""):
        super().__init__(message)
        self.message = message
        self.code = code
        self.detail = detail

    def line(self) -> str:
        """The error as `lazy ask` prints it: the sentence, then ``[code: detail]``."""
        return f"{self.message} [{self.code}{': ' + self.detail if self.detail else ''}]"


class OneShotTimeout(OneShotError):
    """A one-shot killed at the bound."""


class OneShotUnavailable(OneShotError):
    """What every one-shot needs is missing (the credential, the Docker engine, the agent
    image): no one-shot can run until the user acts, so an ask stops at the first. The
    message is one sentence that ends with the fix."""


class OneShotCancelled(Exception):
    """A one-shot stopped because whoever asked no longer wants the answer. Not a
    OneShotError: an ask does not carry on without it, it stops."""


class OneShot(Protocol):
    def __call__(self, prompt: str) -> str: ...  # the model's answer text; raises OneShotError

    def check(self) -> None:
        """Raises OneShotUnavailable when a one-shot cannot run here; an ask calls it once,
        before anything starts."""
        ...
