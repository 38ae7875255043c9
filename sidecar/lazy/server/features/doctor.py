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
        # this sidecar's watcher capturing: the hooks and the daemon are not needed now
        live = "VS Code" if ls.capture is not None and ls.capture.live else None
        return report(run_checks(context_of(ls.home, ls.store, live=live)))
