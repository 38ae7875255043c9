"""The repairs of `lazy doctor`: each a flag, the check whose fix it is, and whether it lists
what it would do and stops with ``--dry-run`` (else it previews on its own). ``REPAIRS`` is
the one list of them, beside ``lazy.doctor.checks.CHECKS``; the CLI runs one at a time."""

from __future__ import annotations

from dataclasses import dataclass

from lazy.doctor import capture, housekeeping, scaffolding, store


@dataclass(frozen=True)
class Repair:
    flag: str  # the option of `lazy doctor` that runs it
    check: str | None  # the title of the check whose fix it is (None: no check points at it)
    dry_run: bool  # --dry-run lists and stops


REPAIRS: tuple[Repair, ...] = (
    Repair("--reimport-conversations", capture.TITLE, dry_run=False),
    Repair("--clean-local-command-conversations", scaffolding.TITLE, dry_run=True),
    Repair("--purge-housekeeping-conversations", housekeeping.TITLE, dry_run=True),
    Repair("--import-memory", None, dry_run=True),
    Repair("--recover-store", store.STORE, dry_run=False),
)


def one_at_a_time() -> str:
    """What a `lazy doctor` given two repairs says."""
    flags = [r.flag for r in REPAIRS]
    return f"one repair at a time: {', '.join(flags[:-1])} or {flags[-1]}"
