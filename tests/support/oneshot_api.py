"""The fake Anthropic API (tests/agents/fake_anthropic.py) as lazy's one-shots meet it: on
loopback, no side-call guessing, noting the credential each request arrived with. Shared by
tests/sandbox and tests/vscode."""

from __future__ import annotations

import sys
from pathlib import Path

_AGENTS = str(Path(__file__).resolve().parents[1] / "agents")
if _AGENTS not in sys.path:
    sys.path.insert(0, _AGENTS)

from fake_anthropic import AnthropicHandler, FakeAnthropic, Rule, text  # noqa: E402

__all__ = ["REAL_KEY", "Rule", "fake_api", "text"]

# what the one-shot's proxy must forward, and nothing else may see
REAL_KEY = "sk-ant-fake-real-credential"


class KeyRecordingHandler(AnthropicHandler):
    """The fake, also noting the credential each request arrived with."""

    keys: list[str | None]

    def do_POST(self) -> None:
        self.keys.append(self.headers.get("x-api-key"))
        super().do_POST()


def fake_api(rules: list[Rule]) -> FakeAnthropic:
    # no side-call guessing: a request without tools is the one-shot, not a title probe
    fake = FakeAnthropic(rules, side_classifier=lambda body: None)
    fake.httpd.RequestHandlerClass = type(
        "Handler", (KeyRecordingHandler,), {"fake": fake, "keys": []}
    )
    return fake
