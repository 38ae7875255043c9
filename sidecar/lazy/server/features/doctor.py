"""doctor/run: the health sweep of `lazy doctor`, for the extension. It only looks; the
repairs stay in the CLI, where a person reads the list and answers."""

from __future__ import annotations

from lazy.doctor.checks import report, run_checks
from lazy.doctor.context import context_of
from lazy.model import DoctorReport
from lazy.server.protocol import NoParams
from lazy.server.rpc import request
from lazy.server.sidecar import Sidecar


def register(ls: Sidecar) -> None:
    @request(ls, "doctor/run")
    def doctor_run(ls: Sidecar, _: NoParams) -> DoctorReport:
        return report(run_checks(context_of(ls.home, ls.store)))
