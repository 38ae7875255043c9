"""Live capture while the editor is open (lazy.capture.live, shared with the daemon), and
what the extension is told of it: ``builders/didChange`` for the Builders that changed in the
store (whoever wrote them), ``capture/didFail`` for every failure, ``capture/status``."""

from __future__ import annotations

from lazy.capture.live import Failure, LiveCapture
from lazy.server.app import Sidecar
from lazy.server.protocol import BuildersDidChange, CaptureFailure, CaptureStatusResult, NoParams
from lazy.server.rpc import request


def _failure(f: Failure) -> CaptureFailure:
    return CaptureFailure(
        file=f.file, line=f.line, reason=f.reason, code=f.code, detail=f.detail, at=f.at
    )


class SidecarCapture:
    def __init__(self, ls: Sidecar) -> None:
        self.ls = ls
        self.capture = LiveCapture(
            ls.home,
            ls.store,
            extra_roots=ls.extra_roots,
            index=ls.index_caught_up,
            on_change=self._changed,
            on_failure=self._failed,
        )

    def start(self) -> None:
        self.capture.start()

    def stop(self) -> None:
        self.capture.stop()

    def _changed(self, builder_ids: list[str]) -> None:
        self.ls.notify(
            "builders/didChange", BuildersDidChange(builder_ids=builder_ids, reason="captured")
        )

    def _failed(self, failure: Failure) -> None:
        self.ls.notify("capture/didFail", _failure(failure))

    def status(self) -> CaptureStatusResult:
        c = self.capture
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
        if ls.capture is None:
            return CaptureStatusResult(live=False, roots=[], last_sweep_at=None, captured=0)
        return ls.capture.status()
