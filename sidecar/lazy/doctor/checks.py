"""The health sweep of `lazy doctor`: every check, in the order they print.

A check is a function of the :class:`Context` that returns a :class:`Check`. ``CHECKS`` is
the one list of them: adding a check is adding its line there (its title is what the sweep
prints should the check itself break). A check never raises for what it finds; one that
does break is reported as such, and the others still run.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from lazy.doctor import (
    capture,
    daemon,
    hooks,
    housekeeping,
    privacy,
    scaffolding,
    secrets,
    store,
    system,
    team,
)
from lazy.doctor.context import Context, StoreUnavailable
from lazy.doctor.report import Check, Status
from lazy.model import DoctorReport, HealthCheck
from lazy.store import StoreError

CheckFn = Callable[[Context], Check]

CHECKS: tuple[tuple[str, CheckFn], ...] = (
    (store.STORE, store.store_check),
    (store.INDEX, store.index_check),
    (privacy.TITLE, privacy.privacy_check),
    (capture.TITLE, capture.capture_check),
    (secrets.REDACTION, secrets.redaction_check),
    (secrets.OWN_FILES, secrets.own_files_check),
    # capture without VS Code: the hooks, the daemon (info while VS Code captures live)
    (hooks.TITLE, lambda ctx: hooks.hooks_check(ctx.live)),
    (daemon.TITLE, lambda ctx: daemon.daemon_check(ctx.home, ctx.live)),
    (housekeeping.TITLE, housekeeping.housekeeping_check),
    (scaffolding.TITLE, scaffolding.scaffolding_check),
    (system.CREDENTIAL, system.credential_check),
    (system.DOCKER, system.docker_check),
    (system.AGENT_IMAGE, system.agent_image_check),
    (system.PYTHON, system.python_check),
    (system.DISK, system.disk_check),
    (team.TITLE, team.team_check),
)

_RANK: dict[Status, int] = {"ok": 0, "info": 0, "warn": 1, "fail": 2}
Worst = Literal["ok", "warn", "fail"]


def run_checks(ctx: Context, checks: tuple[tuple[str, CheckFn], ...] = CHECKS) -> list[Check]:
    out = []
    for title, check in checks:
        try:
            out.append(check(ctx))
        except StoreUnavailable as e:
            detail = [f"not checked: the store could not be opened ({e})"]
            out.append(Check(title, "warn", detail, ctx.fix))
        except StoreError as e:  # busy past its timeout, or a write failed
            detail = [f"could not be checked: {e}"]
            out.append(Check(title, "warn", detail, "lazy doctor (again, once that is fixed)"))
        except Exception as e:  # a broken check must not hide the others
            detail = [f"the check itself failed [{type(e).__name__}: {e}]"]
            out.append(Check(title, "fail", detail, "report this as a bug in lazy"))
    return out


def worst(checks: list[Check]) -> Worst:
    """The sweep's status: its worst check (an info is as good as ok)."""
    ranked: list[Worst] = ["ok" if c.status == "info" else c.status for c in checks]
    return max(ranked, key=_RANK.__getitem__, default="ok")


def report(checks: list[Check]) -> DoctorReport:
    return DoctorReport(
        status=worst(checks),
        checks=[
            HealthCheck(title=c.title, status=c.status, detail=c.detail, fix=c.fix) for c in checks
        ],
    )
