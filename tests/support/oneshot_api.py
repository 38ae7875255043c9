"""The fake Anthropic API (tests/agents/fake_anthropic.py) as lazy's one-shots meet it: on
loopback, no side-call guessing, noting the credential each request arrived with. Shared by
tests/sandbox and tests/vscode."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

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


def assert_one_pass_left_nothing(
    rule: Rule, engine: Any, env: dict[str, str], kept: tuple[str, int]
) -> None:
    """After an ask through the real one-shot: one pass through the audited channel, no
    container left, and the store still holds only ``kept`` (id, messages), as it was."""
    import json
    import subprocess

    from lazy.ask import paths

    assert rule.used == 1  # one pass, through the channel
    assert engine.labelled() == []  # the container is gone
    audit = [json.loads(line) for line in paths.audit_log().read_text().splitlines()]
    assert any(r["path"].startswith("/v1/messages") and r["status"] == 200 for r in audit)
    listed = subprocess.run(
        [str(Path(sys.executable).with_name("lazy")), "conversations", "--all-projects", "--json"],
        env=env, capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    assert [(b["id"], b["message_count"]) for b in json.loads(listed.stdout)["builders"]] == [kept]
