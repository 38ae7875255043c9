"""What every one-shot needs before it starts: the Anthropic credential, a Docker engine that
answers, the agent image in it. `lazy ask` (the CLI and the sidecar's ask/run) checks them
once with :func:`check` before anything starts, and stops at the first one missing with one
sentence that ends in the fix; `lazy doctor` reports each on its own line from the same
functions."""

from __future__ import annotations

from typing import Any

from lazy.ask import engine
from lazy.ask.oneshot import OneShotUnavailable
from lazy.ask.proxy import Credential

CREDENTIAL_FIX = "set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN) in the environment lazy runs in"


def credential(env: dict[str, str] | None = None) -> Credential:
    """The credential the proxy puts in place of the container's placeholder."""
    found = Credential.from_env(env)
    if found is None:
        raise OneShotUnavailable(
            "lazy ask needs an Anthropic credential to call the model and finds none: "
            f"{CREDENTIAL_FIX} (for VS Code, the environment it was started from)",
            "no-credential",
        )
    return found


def check(image: str = engine.IMAGE, given: Credential | None = None) -> tuple[Credential, Any]:
    """The credential (``given``, else from the environment) and a client of an engine that
    holds ``image``; raises OneShotUnavailable for the first thing missing, in the order a
    user fixes them."""
    found = given or credential()
    client = engine.connect()
    try:
        engine.require_image(client, image)
    except BaseException:
        client.close()
        raise
    return found, client
