"""lazy export: a Builder as Markdown, self-contained HTML or JSON, for someone else."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import click
from rich.progress import SpinnerColumn, TextColumn

from lazy.cli.common import open_store, progress, resolve
from lazy.cli.output import err
from lazy.cli.usage import priced
from lazy.export import FORMATS, RangeError, document, rendered
from lazy.view.terminal import for_terminal

HELP = """Export one Builder (or messages --from N --to M of it) to hand it on.

\b
  lazy export 7acd37a8 -o review.html      # the format from the file's suffix
  lazy export reviewer --format md         # Markdown on stdout (an alias works too)
  lazy export 7acd37a8 --from 40 --to 60 -o part.json

\b
Formats:
  md    Markdown that reads well on GitHub: tool calls in <details>, edits in diff fences
  html  one self-contained file, readable offline with JavaScript off: nothing is loaded
        from anywhere, every byte of the transcript is escaped
  json  the message view in the versioned schema lazy.export/1
        (protocol/export.schema.json), for other tools to read

Secrets are redacted in every export, as everywhere lazy shows text; stderr says how many
were taken out. --no-redact leaves them in, with a warning."""


_SUFFIXES = {"md": "md", "markdown": "md", "html": "html", "htm": "html", "json": "json"}


def _format(fmt: str | None, output: Path | None) -> str:
    if fmt:
        return fmt
    return _SUFFIXES.get(output.suffix.lower().lstrip(".") if output else "", "md")


def _write(path: Path, text: str) -> None:
    """Written whole or not at all: a file in the same folder, then renamed over ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # to hand on: a file as any other, not mkstemp's 0600
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@click.command("export", help=HELP)
@click.argument("ident", metavar="ID")
@click.option("--from", "first", type=click.IntRange(min=1), help="The first message to export.")
@click.option("--to", "last", type=click.IntRange(min=1), help="The last message to export.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    help="md, html or json (default: from -o, else md).",
)
@click.option(
    "-o", "--output", type=click.Path(dir_okay=False, path_type=Path),
    help="Write to this file (replaced whole); stdout when not given.",
)  # fmt: skip
@click.option("--no-redact", is_flag=True, help="Leave secrets in (a warning says so).")
def export(
    ident: str,
    first: int | None,
    last: int | None,
    fmt: str | None,
    output: Path | None,
    no_redact: bool,
) -> None:
    fmt = _format(fmt, output)
    if first and last and first > last:
        raise click.UsageError(f"--from {first} comes after --to {last}")
    with progress(SpinnerColumn(), TextColumn("exporting …")) as bar:
        bar.add_task("export")
        with open_store() as store:
            bid = resolve(store, ident)
            try:
                with priced():
                    doc = document(store.conn, bid, first, last, redact=not no_redact)
            except RangeError as e:
                raise click.UsageError(str(e)) from e
        text = rendered(doc, fmt)
    if output is None:
        # (the formats show every control already: this changes nothing but proves it)
        sys.stdout.write(for_terminal(text))
        where = "stdout"
    else:
        _write(output, text)
        where = str(output)
    subagents = sum(len(s.messages) for s in doc.subagents)
    said = f"exported messages {doc.range.first}–{doc.range.last} of {doc.range.of}"
    said += f" (+{subagents} of subagents)" if subagents else ""
    err.print(f"{said} as {fmt} to {where}")
    if no_redact:
        err.print(
            "warning: secrets were NOT redacted: treat this export as you would the raw files"
        )
    else:
        rules = ", ".join(f"{rule} {n}" for rule, n in doc.redactions.items())
        err.print(f"{doc.redaction_total} redaction(s)" + (f": {rules}" if rules else ""))
