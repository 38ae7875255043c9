"""`lazy get <path>` and `lazy ls <path>`: reading imported memories by their tree path."""

from __future__ import annotations

import click
from rich.table import Table

from lazy.cli.common import emit_json, facts_table, json_option, open_store, out, shown, when
from lazy.memories.tree import TreeError, parse_path, split
from lazy.store.memories import children, get_memory
from lazy.store.queries import memory_times
from lazy.view.reading import memory as shown_memory


@click.command("get")
@click.argument("path")
@json_option
def get(path: str, as_json: bool) -> None:
    """Print one memory: its metadata, then its content.

    PATH is <tree>/<name>, e.g. /share/projects/app/agent_sessions/<session>/msg_<id>."""
    try:
        tree, name = split(path)
    except TreeError as e:
        raise click.UsageError(str(e)) from e
    with open_store() as store:
        memory = get_memory(store.conn, tree, name)
        if memory is None:
            below = children(store.conn, f"{tree}/{name}")
            if below:
                raise click.ClickException(
                    f"{tree}/{name} is a node with {len(below)} child(ren), not a memory;"
                    f" list it with `lazy ls {tree}/{name}`"
                )
            raise click.ClickException(f"no memory at {tree}/{name} (see `lazy ls {tree}`)")
    memory = shown_memory(memory)
    if as_json:
        emit_json(memory)
        return
    rows = [("path", memory.path), ("temporal", memory.temporal or "")]
    for key, value in sorted(memory.meta.items()):
        if value not in (None, "", []):
            rows.append((key, ", ".join(value) if isinstance(value, list) else str(value)))
    out.print(facts_table(rows))
    out.print()
    out.print(shown(memory.content))


@click.command("ls")
@click.argument("path", default="/")
@json_option
def ls(path: str, as_json: bool) -> None:
    """List a tree node's children (default /).

    Sub-nodes first, with how many memories lie below each, then the node's own memories
    in time order."""
    try:
        node = parse_path(path, "tree path")
    except TreeError as e:
        raise click.UsageError(str(e)) from e
    with open_store() as store:
        items = children(store.conn, node)
        times = {}
        if any(i.kind == "memory" for i in items):
            times = memory_times(store.conn, node)
    if as_json:
        emit_json({"path": node, "children": [i.model_dump(mode="json") for i in items]})
        return
    if not items:
        raise click.ClickException(f"nothing under {node} (`lazy ls /` shows the top)")
    t = Table(box=None, header_style="bold")
    t.add_column("name")
    t.add_column("kind")
    t.add_column("memories / time", justify="right")
    for i in items:
        if i.kind == "node":
            t.add_row(shown(i.name + "/", "cyan"), "node", f"{i.count:,}")
        else:
            t.add_row(i.name, "memory", when(times.get(i.name)))
    out.print(t)
