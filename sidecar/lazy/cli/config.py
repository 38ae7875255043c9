"""`lazy config get|set|list`: lazy's settings in $LAZY_HOME/config.toml."""

from __future__ import annotations

import click

from lazy import config as settings
from lazy.cli.common import emit_json, err, json_option, out, shown


def _value(value: object) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


@click.group("config")
def config_group() -> None:
    """lazy's settings, kept in $LAZY_HOME/config.toml.

    \b
    lazy config list                              # every setting, its value and where from
    lazy config get redaction.enabled
    lazy config set redaction.enabled false       # show secrets (a local store only)

    An environment variable named in `lazy config list` wins over the file (LAZY_REDACT=0).
    """


def _get(key: str) -> tuple[object, str]:
    try:
        return settings.get(key)
    except settings.ConfigError as e:
        raise click.ClickException(str(e)) from e


@config_group.command("get")
@click.argument("key")
@json_option
def config_get(key: str, as_json: bool) -> None:
    """Print one setting's value."""
    value, source = _get(key)
    if as_json:
        emit_json({"key": key, "value": value, "source": source})
    else:
        out.print(_value(value), markup=False)


@config_group.command("set")
@click.argument("key")
@click.argument("value")
@json_option
def config_set(key: str, value: str, as_json: bool) -> None:
    """Write one setting into $LAZY_HOME/config.toml."""
    try:
        s = settings.setting(key)
        before = settings.get(key)[0]
        written = settings.set_value(key, value)
        now, source = settings.get(key)
    except settings.ConfigError as e:
        raise click.ClickException(str(e)) from e
    if as_json:
        emit_json({"key": key, "value": written, "source": source, "after": s.after})
        return
    out.print(f"{key} = {_value(written)}  ({settings.path()})", markup=False)
    if s.env and source != str(settings.path()):
        err.print(shown(f"${s.env} is set and wins over the file: {key} is {_value(now)}"))
    if s.after and before != written:
        err.print(shown(f"to take effect: {s.after}", "yellow"))


@config_group.command("list")
@json_option
def config_list(as_json: bool) -> None:
    """Every setting: its value, where the value comes from, what it does."""
    rows = []
    for key, s in sorted(settings.SETTINGS.items()):
        value, source = _get(key)
        rows.append({"key": key, "value": value, "source": source, "env": s.env, "help": s.help})
    if as_json:
        emit_json({"file": str(settings.path()), "settings": rows})
        return
    for r in rows:
        line = shown(f"{r['key']} = {_value(r['value'])}", "bold", multiline=False)
        line.append_text(
            shown(f"  ({r['source']}" + (f"; ${r['env']} overrides" if r["env"] else "") + ")")
        )
        out.print(line)
        out.print(shown(f"    {r['help']}", "dim"))
