"""Live capture while the editor is open (lazy.capture.live, shared with the daemon), and
what the extension is told of it: ``builders/didChange`` for the Builders that changed in the
store (whoever wrote them), ``capture/didFail`` for every failure, ``capture/status``."""

from __future__ import annotations

from lazy.capture.live import Failure, LiveCapture
from lazy.server.protocol import BuildersDidChange, CaptureFailure, CaptureStatusResult, NoParams
from lazy.server.rpc import request
from lazy.server.sidecar import Sidecar
from lazy.team.sync import SweepPusher


def _failure(f: Failure) -> CaptureFailure:
    return CaptureFailure(
        file=f.file, line=f.line, reason=f.reason, code=f.code, detail=f.detail, at=f.at
    )


def start(ls: Sidecar) -> None:
    """Capture live, telling the client what changed and what failed."""

    def changed(builder_ids: list[str]) -> None:
        ls.notify(
            "builders/didChange", BuildersDidChange(builder_ids=builder_ids, reason="captured")
        )

    def failed(failure: Failure) -> None:
        ls.notify("capture/didFail", _failure(failure))

    ls.team_pusher = SweepPusher(ls.home)
    ls.capture = LiveCapture(
        ls.home,
        ls.store,
        extra_roots=ls.extra_roots,
        index=ls.index_caught_up,
        on_change=changed,
        on_failure=failed,
        on_sweep=ls.team_pusher,  # a team joined: what the sweep captured is pushed too
    )
    ls.capture.start()


def stop(ls: Sidecar) -> None:
    if ls.capture is not None:
        ls.capture.stop()
    if ls.team_pusher is not None:
        ls.team_pusher.close()


def status(c: LiveCapture | None) -> CaptureStatusResult:
    if c is None:
        return CaptureStatusResult(live=False, roots=[], last_sweep_at=None, captured=0)
    return CaptureStatusResult(
        live=c.live,
        roots=[str(r) for roots in c.roots.values() for r in roots],
        last_sweep_at=c.last_sweep_at,
        captured=c.captured,
        last_failure=_failure(c.last_failure) if c.last_failure else None,
    )


def register(ls: Sidecar) -> None:
    @request(ls, "capture/status")
    def capture_status(ls: Sidecar, _: NoParams) -> CaptureStatusResult:
        return status(ls.capture)
