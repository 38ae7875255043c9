"""Memory paths: ``<tree-root>/<project_slug>/<sessions-node-name>/<session_id>/msg_<id>``.

Tree nodes are ltree-style labels (``[A-Za-z0-9_-]``) joined by ``/``. The rules live here,
pure, so the importer, ``lazy get`` and ``lazy ls`` read paths the same way.
"""

from __future__ import annotations

import re
from pathlib import Path

DEFAULT_TREE_ROOT = "/share/projects"
DEFAULT_NODE_NAME = "agent_sessions"

_LABEL = re.compile(r"[A-Za-z0-9_-]+")
_NODE_NAME = re.compile(r"[a-z0-9_]+")
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")


class TreeError(ValueError):
    """A path or label the tree cannot hold; the message says which part and why."""


def home_path() -> str:
    """``~`` in a tree path: the home directory's own path, each part made a label."""
    return "/" + "/".join(label(p) for p in Path.home().parts[1:])


def parse_path(value: str, what: str = "path") -> str:
    """A tree path as given (``/a/b``, ``~/a``), checked and normalized to ``/a/b``."""
    raw = value.strip()
    if raw == "~" or raw.startswith("~/"):
        raw = home_path() + raw[1:]
    if not raw.startswith("/"):
        raise TreeError(
            f"{what} {value!r} must start with / (an absolute tree path) or ~ (your home)"
        )
    parts = raw.rstrip("/").split("/")[1:]
    for i, part in enumerate(parts):
        if not part:
            raise TreeError(f"{what} {value!r} has an empty label (a doubled /) at part {i + 1}")
        if not _LABEL.fullmatch(part):
            bad = "".join(sorted(set(_UNSAFE.findall(part)[0])))
            raise TreeError(
                f"{what} {value!r}: label {part!r} holds {bad!r}; labels may only hold"
                " letters, digits, _ and -"
            )
    return "/" + "/".join(parts)


def check_node_name(value: str) -> str:
    if not _NODE_NAME.fullmatch(value):
        raise TreeError(
            f"sessions node name {value!r} must match [a-z0-9_]+ (lower-case letters, digits and _)"
        )
    return value


def label(value: str) -> str:
    """Any id made a tree label: runs of other characters become ``_``."""
    out = _UNSAFE.sub("_", value).strip("_")
    return out or "_"


def join(*parts: str) -> str:
    return "/" + "/".join(p.strip("/") for p in parts if p.strip("/"))


def split(path: str) -> tuple[str, str]:
    """(tree, name) of a memory path."""
    norm = parse_path(path, "memory path")
    tree, _, name = norm.rpartition("/")
    if not tree:
        raise TreeError(f"memory path {path!r} names no node above the memory")
    return tree, name
