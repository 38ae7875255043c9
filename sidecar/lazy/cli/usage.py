"""`lazy usage`: tokens and cost by day, week, project, agent or model."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import click
from rich.table import Table
from rich.text import Text

from lazy.cli.common import (
    all_projects_option,
    current_project,
    emit_json,
    json_option,
    open_store,
    out,
    shown,
)
from lazy.config import ConfigError
from lazy.model import Tokens
from lazy.projects import project_label
from lazy.usage.report import BY, Report, moment, money, report, tokens_short

BAR = 30  # the longest bar, in cells


def _moment(value: str | None, flag: str) -> str | None:
    try:
        return moment(value, flag)
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint=flag) from e


@contextmanager
def priced() -> Iterator[None]:
    """Own rates in config.toml that cannot be used are the user's to fix: said, not raised."""
    try:
        yield
    except ConfigError as e:
        raise click.ClickException(str(e)) from e


def _label(by: str, group: str) -> str:
    if by == "project":
        return project_label(group) if group else "(no project)"
    if by == "week":
        return f"week of {group}" if group else "(no time)"
    return group or "(unknown)"


def _bar(value: float, top: float, width: int) -> Text:
    cells = round(width * value / top) if top > 0 else 0
    return shown("█" * cells if cells else ("▏" if value > 0 else ""), "cyan")


def _row(t: Tokens) -> list[str]:
    return [
        f"{t.responses:,}",
        tokens_short(t.input + t.cache_read + t.cache_write),
        tokens_short(t.cache_read),
        tokens_short(t.output),
        money(t),
    ]


def usage_table(r: Report) -> Table:
    """One row a group: responses, input (cache included), of it cache reads, output, cost
    and a bar of the cost (of output tokens where no cost is known)."""
    table = Table(box=None, pad_edge=False, header_style="bold")
    table.add_column(r.by, min_width=16, max_width=28, no_wrap=True, overflow="ellipsis")
    for name in ("responses", "input", "cached", "output", "cost"):
        table.add_column(name, justify="right", no_wrap=True)
    table.add_column("", no_wrap=True)
    priced = any(x.tokens.cost_micros for x in r.rows)

    def measure(t: Tokens) -> float:
        return float(t.cost_micros or 0) if priced else float(t.output)

    top = max((measure(x.tokens) for x in r.rows), default=0.0)
    width = max(5, min(BAR, out.width - 76))  # the bar gives way first on a narrow terminal
    for x in r.rows:
        label = shown(_label(r.by, x.group), multiline=False)
        table.add_row(label, *_row(x.tokens), _bar(measure(x.tokens), top, width))
    table.add_section()
    table.add_row(Text("total", style="bold"), *_row(r.total), "")
    if r.subagents.responses:
        table.add_row(
            Text("of it subagents", style="dim"), *_row(r.subagents), ""
        )  # (cut, never wrapped)
    return table


@click.command("usage")
@click.option(
    "--by",
    type=click.Choice(BY),
    default="day",
    show_default=True,
    help="What one row totals.",
)
@click.option("--since", metavar="WHEN", help="Only responses at or after WHEN.")
@click.option("--until", metavar="WHEN", help="Only responses before WHEN.")
@all_projects_option
@json_option
def usage(by: str, since: str | None, until: str | None, all_projects: bool, as_json: bool) -> None:
    """Tokens and cost of the agents' model responses, by day, week, project, agent or
    model, with a bar chart of the cost.

    Each model response is counted once, wherever the agent copied it (Claude Code writes
    one message over several lines, resumes and forks copy earlier ones; Codex forks copy
    their origin's token counts; OpenCode forks clone messages). Input counts cache reads
    and writes ("cached": the cache reads of it); output includes reasoning. Days and weeks
    are UTC; a week is named by its Monday.

    Cost is priced from the table the genai-prices package ships (offline), as of each
    response's day; own rates (negotiated prices) go in $LAZY_HOME/config.toml:

    \b
        [prices."claude-sonnet-4-5*"]   # a model, or an fnmatch pattern
        input = 3.0                    # US dollars per million tokens
        output = 15.0
        cache_read = 0.3
        cache_write = 3.75

    A model without a known price costs "unknown" (a total with some shows "+?"), never $0.

    WHEN is a date or time (2026-03-01, 2026-03-01T14:30; local without a zone), today,
    yesterday, or an age: 12h, 7d, 2w, 3m (30-day months), 1y -- as in `lazy search`.

    \b
    lazy usage                          # this project, by day
    lazy usage --by model --since 30d   # the last 30 days, per model
    lazy usage --by project --all-projects --json
    """
    start, end = _moment(since, "--since"), _moment(until, "--until")
    project = None if all_projects else current_project()
    with open_store() as store:
        projects = None if project is None else [project]
        with priced():
            r = report(store.conn, by, since=start, until=end, projects=projects)
    if as_json:
        emit_json(r)
        return
    where = "every project" if all_projects else f"project {project_label(project)}"
    if not r.rows:
        out.print(f"No model responses with token counts in {where}.")
        return
    out.print(usage_table(r))
    out.print(shown(f"{where}; {r.prices}", "dim"))
