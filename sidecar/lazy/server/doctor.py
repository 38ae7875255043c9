"""doctor/run: the health sweep of `lazy doctor`, for the extension. It only looks; the
repairs stay in the CLI, where a person reads the list and answers."""

from __future__ import annotations

import sqlite3

from lazy.doctor.checks import report, run_checks
from lazy.doctor.context import Context, unavailable
from lazy.model import DoctorReport
from lazy.server.app import Sidecar
from lazy.server.protocol import NoParams
from lazy.server.rpc import request
from lazy.store import StoreError


def register(ls: Sidecar) -> None:
    @request(ls, "doctor/run")
    def doctor_run(ls: Sidecar, _: NoParams) -> DoctorReport:
        try:
            ctx = Context(ls.home, ls.store())
        except (StoreError, RuntimeError, sqlite3.Error) as e:  # the store check says why
            ctx = unavailable(ls.home, e)
        return report(run_checks(ctx))
