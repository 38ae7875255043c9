"""ask/run: `lazy ask` for the extension, in the background. The one-shots run in the
sandbox exactly as the CLI's do; the excerpts read are reported as ``$/progress``, and a
``$/cancelRequest`` kills the one-shot running and stops the ask (its container removed
before the request answers as cancelled). What every one-shot needs is checked first, and a
missing piece answers at once with the sentence `lazy ask` prints."""

from __future__ import annotations

import asyncio
import contextlib
import os
from typing import Any

from pygls.exceptions import JsonRpcException

from lazy.ask.ask import AskError, ask_transcript, question_of
from lazy.ask.oneshot import OneShotCancelled, OneShotError
from lazy.ask.subject import subject
from lazy.projects import project_of
from lazy.server.protocol import ASK_FAILED, AskRunParams, AskRunResult
from lazy.server.rpc import as_rpc_error, params_of
from lazy.server.sidecar import Sidecar
from lazy.store.db import StoreError
from lazy.store.queries import Ambiguous, NotFound


def _title(p: AskRunParams) -> str:
    first = p.question.strip().splitlines()[0] if p.question.strip() else ""
    return f"Asking {p.id[:8]}: {first[:60]}"


def _failed(e: AskError | OneShotError, warnings: list[str]) -> JsonRpcException:
    data = {"code": e.code, "detail": e.detail, "warnings": warnings}
    return JsonRpcException(e.message, code=ASK_FAILED, data=data)


def register(ls: Sidecar) -> None:
    @ls.feature("ask/run")
    async def ask_run(ls: Sidecar, raw: Any) -> Any:
        from lazy.ask.runner import DockerRunner  # brings Docker with it: only when asked

        p = params_of("ask/run", AskRunParams, raw)
        try:
            about = await asyncio.to_thread(lambda: subject(ls.store(), p.id))
        except (NotFound, Ambiguous, StoreError) as e:
            raise as_rpc_error(e) from None
        t = about.transcript
        runner = DockerRunner(t.builder.project or project_of(os.getcwd()))
        try:
            question_of(p.question)
            await asyncio.to_thread(runner.check)
        except AskError as e:
            raise _failed(e, e.warnings) from None
        except OneShotError as e:
            raise _failed(e, []) from None
        progress = await ls.start_progress(_title(p))

        def report(done: int, total: int) -> None:
            progress.report(done, total, "excerpts read")

        work = asyncio.ensure_future(
            asyncio.to_thread(ask_transcript, t, p.question, runner, report)
        )
        try:
            try:
                result = await asyncio.shield(work)
            except asyncio.CancelledError:
                # kill the container, then wait for the thread to remove it: the client
                # hears "cancelled" only when nothing of the ask is left running
                runner.cancel()
                with contextlib.suppress(OneShotCancelled, AskError):
                    await work
                raise
        except AskError as e:
            raise _failed(e, e.warnings) from None
        finally:
            progress.end()
        return AskRunResult(
            builder_id=t.builder.id,
            task=about.task.code if about.task else None,
            answer=result.answer,
            chunks=result.chunks,
            relevant_chunks=result.relevant_chunks,
            warnings=result.warnings,
        ).model_dump(mode="json")
