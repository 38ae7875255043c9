"""lazy's settings: ``$LAZY_HOME/config.toml``, one table per concern, each key declared here.

    [redaction]
    enabled = true      # secrets read [redacted:<rule>] in search, show, the webview, ask

A setting may be overridden by an environment variable (``LAZY_REDACT=0``), which wins over
the file. Reading is tomllib's; ``lazy config set`` writes with tomlkit, which keeps the
user's comments and layout. A file that does not parse is an error naming it, its line and
why, never a silent default.
"""

from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

FILE = "config.toml"


def lazy_home() -> Path:
    """Where lazy keeps its store, index and settings: ``$LAZY_HOME``, else ``~/.lazy``."""
    return Path(os.environ.get("LAZY_HOME") or Path.home() / ".lazy").expanduser()


class ConfigError(ValueError):
    """The config file, a key or a value is not what lazy can use; the message says which."""


@dataclass(frozen=True)
class Setting:
    key: str  # "table.name"
    kind: type  # bool, int, float or str
    default: Any
    help: str
    env: str | None = None  # the environment variable that overrides the file
    after: str | None = None  # what the user must do for a change to take effect


SETTINGS: dict[str, Setting] = {
    s.key: s
    for s in (
        Setting(
            "redaction.enabled",
            bool,
            True,
            "replace secrets (API keys, tokens, private keys, passwords in URLs and"
            " assignments) with [redacted:<rule>] wherever transcript text leaves the store",
            env="LAZY_REDACT",
            after="run `lazy index rebuild` so search holds the text as it is now shown",
        ),
        Setting(
            "editor.url_scheme",
            str,
            "vscode",
            "the URL scheme of the editor `lazy search` links each hit to (vscode,"
            " vscode-insiders, code-oss for code-server, ...); empty: no links",
            env="LAZY_EDITOR_SCHEME",
        ),
        Setting(
            "team.name",
            str,
            "",
            "the name teammates see on the Builders you push (empty: git's user.name)",
            env="LAZY_TEAM_NAME",
        ),
        Setting(
            "team.email",
            str,
            "",
            "the email that is you on the team database (empty: git's user.email)",
            env="LAZY_TEAM_EMAIL",
        ),
    )
}

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


def path(home: Path | None = None) -> Path:
    return (home or lazy_home()) / FILE


_cache: dict[Path, tuple[tuple[int, int] | None, dict[str, Any]]] = {}


def load(home: Path | None = None) -> dict[str, Any]:
    """The file's tables ({} when there is none). Re-read only when it changed on disk, so
    a long-running sidecar sees a ``lazy config set`` made meanwhile."""
    p = path(home)
    try:
        st = p.stat()
        seen: tuple[int, int] | None = (st.st_mtime_ns, st.st_size)
    except FileNotFoundError:
        seen = None
    except OSError as e:
        raise ConfigError(f"{p}: cannot be read [{type(e).__name__}: {e}]") from e
    cached = _cache.get(p)
    if cached is not None and cached[0] == seen:
        return cached[1]
    data: dict[str, Any] = {}
    if seen is not None:
        try:
            data = tomllib.loads(p.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as e:  # its message names the line and column
            raise ConfigError(f"{p}: not valid TOML: {e}") from e
        except (OSError, UnicodeDecodeError) as e:
            raise ConfigError(f"{p}: cannot be read [{type(e).__name__}: {e}]") from e
    _cache[p] = (seen, data)
    return data


def setting(key: str) -> Setting:
    found = SETTINGS.get(key)
    if found is None:
        known = ", ".join(sorted(SETTINGS))
        raise ConfigError(f"no setting {key!r}; the settings are: {known}")
    return found


def parse(s: Setting, raw: str, where: str) -> Any:
    """``raw`` (as typed, or from the environment) as the setting's type."""
    if s.kind is bool:
        low = raw.strip().lower()
        if low in _TRUE:
            return True
        if low in _FALSE:
            return False
        raise ConfigError(f"{where}: {s.key} takes true or false (1/0, yes/no), not {raw!r}")
    try:
        return s.kind(raw)
    except ValueError as e:
        raise ConfigError(f"{where}: {s.key} takes a {s.kind.__name__}, not {raw!r}") from e


def _from_file(s: Setting, data: dict[str, Any], home: Path | None) -> tuple[bool, Any]:
    table, name = s.key.split(".", 1)
    section = data.get(table)
    if not isinstance(section, dict) or name not in section:
        return False, s.default
    value = section[name]
    if not isinstance(value, s.kind) or (s.kind is not bool and isinstance(value, bool)):
        raise ConfigError(
            f"{path(home)}: [{table}] {name} must be a {s.kind.__name__}, not {value!r}"
        )
    return True, value


def get(key: str, home: Path | None = None) -> tuple[Any, str]:
    """The value in force, and where it comes from: the environment, the file or default."""
    s = setting(key)
    if s.env and os.environ.get(s.env, "").strip():
        return parse(s, os.environ[s.env], f"${s.env}"), f"${s.env}"
    found, value = _from_file(s, load(home), home)
    return value, (str(path(home)) if found else "default")


def set_value(key: str, raw: str, home: Path | None = None) -> Any:
    """Write ``key = raw`` into the file (created if need be), keeping the rest as it was."""
    import tomlkit

    s = setting(key)
    value = parse(s, raw, "lazy config set")
    p = path(home)
    load(home)  # a file that does not parse is reported, not overwritten
    doc = tomlkit.parse(p.read_text(encoding="utf-8")) if p.exists() else tomlkit.document()
    table, name = s.key.split(".", 1)
    if table not in doc:
        doc[table] = tomlkit.table()
    doc[table][name] = value
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_name(p.name + ".tmp")
    tmp.write_text(tomlkit.dumps(doc), encoding="utf-8")
    os.chmod(tmp, 0o600)
    tmp.replace(p)
    return value


_SCHEME = re.compile(r"[a-z][a-z0-9+.-]{0,31}")


def editor_scheme(home: Path | None = None) -> str | None:
    """The URL scheme search results link to, None for no links (empty, or not a scheme:
    a broken setting costs the links, never the search)."""
    try:
        value = str(get("editor.url_scheme", home)[0]).strip().lower()
    except ConfigError:
        return None
    return value if _SCHEME.fullmatch(value) else None


def redaction_enabled(home: Path | None = None) -> bool:
    """Redaction is on unless the settings turn it off; a broken setting keeps it on."""
    try:
        return bool(get("redaction.enabled", home)[0])
    except ConfigError:
        return True  # never show secrets because a file has a typo (`lazy config` says it)
