"""The sidecar's features, one module per domain, each a ``register(ls)`` of its methods.

A feature converts the protocol's params into a call of a service function (domain values
in, domain values out: no protocol model, no ``Sidecar``), and its answer into the
protocol's result, so that another surface (``lazy mcp``) can call the same functions.
Features import ``server.sidecar``, ``server.rpc`` and ``server.protocol``, never the
composition root (``server.app``).
"""

from __future__ import annotations

from collections.abc import Callable

from lazy.server.features import (
    ask,
    builders,
    capture,
    codeactions,
    doctor,
    exports,
    imports,
    search,
    tasks,
    team,
    transcripts,
    usage,
)
from lazy.server.sidecar import Sidecar

FEATURES: tuple[Callable[[Sidecar], None], ...] = (
    builders.register,
    transcripts.register,
    search.register,
    tasks.register,
    codeactions.register,
    ask.register,
    imports.register,
    capture.register,
    doctor.register,
    usage.register,
    exports.register,
    team.register,
)
