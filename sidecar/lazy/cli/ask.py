"""`lazy ask`: a question answered from a stored conversation, nothing written back."""

from __future__ import annotations

import importlib
import os
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType

import click

from lazy.ask.ask import AskError, AskResult, Progress, ask_transcript
from lazy.ask.oneshot import OneShot, OneShotCancelled, OneShotError
from lazy.ask.subject import subject
from lazy.cli.common import (
    counting,
    current_project,
    emit_json,
    err,
    open_store,
    resolve,
    shown,
    unresolved,
)
from lazy.cli.output import echo
from lazy.model import Transcript
from lazy.store import Store
from lazy.store.queries import Ambiguous, NotFound
from lazy.store.tasks import get_task

_EDITOR_HELP = (
    "# Write your question about conversation {id} above, save and quit.\n"
    "# Lines starting with # are left out; an empty question asks nothing.\n"
)


def _runner(project: str) -> OneShot:
    """The one-shot runner, imported only when an ask runs (it brings Docker with it)."""
    try:
        module = importlib.import_module("lazy.ask.runner")
    except ImportError as e:
        if isinstance(e, ModuleNotFoundError) and e.name == "lazy.ask.runner":
            raise click.ClickException(
                "the one-shot runner is not installed (lazy.ask.runner), so lazy cannot ask"
                f" the model anything [RUNNER_MISSING: {e}]"
            ) from e
        raise click.ClickException(
            f"the one-shot runner could not be loaded [RUNNER_BROKEN: {e!r}]"
        ) from e
    factory: Callable[[str], OneShot] = module.default_runner
    return factory(project)


def _ready(one_shot: OneShot) -> None:
    """What every one-shot needs, checked once before anything starts: one line with the
    fix, not a warning per excerpt."""
    try:
        one_shot.check()
    except OneShotError as e:
        raise click.ClickException(e.line()) from e


@contextmanager
def _cancellable() -> Iterator[None]:
    """SIGTERM and SIGHUP end an ask as Ctrl-C does: the one-shot running is killed and its
    container, run folder and session removed before lazy exits (its watchdog removes them
    should lazy die some way it cannot handle). Said in one line, exit 130."""

    def interrupt(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    previous = {s: signal.signal(s, interrupt) for s in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    except (KeyboardInterrupt, OneShotCancelled):
        err.print("lazy ask: cancelled; its one-shot was stopped and removed", highlight=False)
        raise click.exceptions.Exit(130) from None
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


def _subject(store: Store, ident: str) -> Transcript:
    if get_task(store.conn, ident) is None:
        ident = resolve(store, ident)  # an alias too
    try:
        return subject(store, ident).transcript
    except (NotFound, Ambiguous) as e:
        raise unresolved(ident, e) from e


def _from_editor(bid: str) -> str:
    """The question typed in $EDITOR; aborts on an empty one."""
    if not (os.environ.get("VISUAL") or os.environ.get("EDITOR")) and not (
        os.isatty(0) and os.isatty(1)
    ):
        raise click.ClickException(
            "no question: give it with -m, or set $EDITOR to type it in [NO_QUESTION]"
        )
    try:
        typed = click.edit(_EDITOR_HELP.format(id=bid), extension=".md", require_save=True)
    except click.ClickException as e:
        raise click.ClickException(f"could not open the editor: {e.message} [EDITOR_FAILED]") from e
    lines = [] if typed is None else [x for x in typed.splitlines() if not x.startswith("#")]
    question = "\n".join(lines).strip()
    if not question:
        raise click.ClickException("empty question: nothing asked [EMPTY_QUESTION]")
    return question


@contextmanager
def _reading() -> Iterator[Progress]:
    with counting("reading excerpts") as bar:
        task = bar.add_task("excerpts", total=None)

        def advance(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield advance


def _warn(warnings: list[str]) -> None:
    for w in warnings:
        err.print(shown(f"warning: {w}", style="yellow"))


@click.command("ask")
@click.argument("ident", metavar="ID")
@click.option("-m", "--message", "question", help="The question; without it, $EDITOR opens.")
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print JSON: answer, chunks, relevantChunks, warnings (and the conversation id).",
)
def ask(ident: str, question: str | None, as_json: bool) -> None:
    """Ask a stored conversation a question instead of reading it.

    ID is a task's code (`lazy tasks`): the task is asked about from its prompt and the
    messages it was promoted from; else a conversation: its alias (`lazy alias`), its
    Builder id or any of its session ids, or a unique prefix of one (an ambiguous prefix is
    an error that lists the candidates). A model reads the stored transcript in a one-shot and
    answers; the answer goes to stdout and that is all. Nothing is written back: no message,
    no task change, and the one-shot's own session is marked so it is never captured.

    A transcript over the 96 KiB budget (the prompt is one command-line argument, at most
    128 KiB) is read in consecutive excerpts split at message boundaries, each for what bears
    on the question; a final pass writes one answer from those findings. Every degradation
    (an excerpt that failed, a message too large to pass whole, findings that did not fit
    the final pass) is a warning on stderr, or in `warnings` with --json. If every excerpt
    fails, or the final pass fails or times out, the ask fails.

    \b
    lazy ask 4f8c2a1b -m "what did we decide about retention?"
    lazy ask 4f8c2a1b                  # no -m: opens $EDITOR
    lazy ask 4f8c2a1b -m "..." --json  # answer, chunks, relevantChunks, warnings
    lazy ask reviewer -m "what is left to do?"          # a conversation, by its alias
    lazy ask fix-the-parser -m "why was this needed?"   # a task, by its code
    """
    # everything that can fail is checked before the editor opens: no question typed in vain
    with open_store() as store:
        t: Transcript = _subject(store, ident)
        bid = t.builder.id
    one_shot = _runner(t.builder.project or current_project())
    _ready(one_shot)
    if question is None:
        question = _from_editor(bid)
    try:
        with _cancellable(), _reading() as advance:
            result: AskResult = ask_transcript(t, question, one_shot, advance)
    except AskError as e:
        _warn(e.warnings)
        raise click.ClickException(str(e)) from e
    if as_json:
        emit_json({**result.as_json(), "conversation": bid})
        return
    _warn(result.warnings)
    echo(result.answer)  # the model's answer read a transcript: as untrusted as it
