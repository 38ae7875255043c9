"""The rule table on its own: each rule finds its kind where transcripts put it, leaves the
look-alikes alone, and the settings turn it off."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from test_bench_redaction import bench

from lazy import config
from lazy.view.redaction import NAMES, redact, redact_counted, redactor


@pytest.mark.parametrize("rule", NAMES)
def test_each_rule_finds_its_kind(rule: str) -> None:
    rng = random.Random(rule)
    for _ in range(5):
        secret = bench.GENERATORS[rule](rng)
        key = secret.split("\n")[2] if rule == "private-key" else secret
        for text in bench._contexts(rule, rng, secret):
            out, counts = redact_counted(text)
            assert key not in out, (rule, text)
            assert f"[redacted:{rule}]" in out and counts[rule] >= 1, (rule, text, out)


@pytest.mark.parametrize("kind", list(bench.LOOK_ALIKES))
def test_look_alikes_are_left_alone(kind: str) -> None:
    rng = random.Random(kind)
    for _ in range(30):
        text = bench.LOOK_ALIKES[kind](rng)
        assert redact(text) == text


def test_only_the_secret_part_is_replaced() -> None:
    url = "postgres://app:Zx81kqPw0rT5@db.internal:5432/prod"
    assert redact(f"DATABASE_URL={url}") == (
        "DATABASE_URL=postgres://app:[redacted:database-url]@db.internal:5432/prod"
    )
    assert (
        redact('{"api_key": "q8Xv2LmP0aT5rWz7Ny3K"}') == '{"api_key": "[redacted:generic-secret]"}'
    )
    # a separator inside a password is the password's; one before the next field is not
    assert redact("DB_PASSWORD=Tr0ub4dor&3") == "DB_PASSWORD=[redacted:generic-secret]"
    assert redact("Server=db;Password=Xk9pQ2mW7vL3;User=sa;") == (
        "Server=db;Password=[redacted:generic-secret];User=sa;"
    )
    assert redact("https://x.io/?token=Zq8Xv2LmP0aT5rWz7Ny3K&user=bob") == (
        "https://x.io/?token=[redacted:generic-secret]&user=bob"
    )
    assert redact("REDIS_URL=redis://:Hq7vNw2Lp9@cache:6379/0") == (
        "REDIS_URL=redis://:[redacted:database-url]@cache:6379/0"  # a password with no user
    )
    token = "ghp_" + "aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6"
    # named by its own rule first; the assignment rule never re-reads a marker
    assert redact(f"GITHUB_TOKEN={token}") == "GITHUB_TOKEN=[redacted:github-token]"


def test_a_key_block_in_a_json_escaped_tool_input() -> None:
    block = (
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAx7\nQ2Vyd\n-----END RSA PRIVATE KEY-----"
    )
    call = 'Write({"content": ' + json.dumps(block) + ', "file_path": "/tmp/k"})'
    out = redact(call)
    assert "MIIEowIBAAKCAQEAx7" not in out and "[redacted:private-key]" in out
    assert out.endswith(', "file_path": "/tmp/k"})')


def test_the_settings_turn_it_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LAZY_REDACT", raising=False)
    text = "AKIAIOSFODNN7EXAMPLE"
    assert redactor(tmp_path)(text) == "[redacted:aws-access-key]"  # on by default
    config.set_value("redaction.enabled", "false", tmp_path)
    assert redactor(tmp_path)(text) == text
    monkeypatch.setenv("LAZY_REDACT", "1")  # the environment wins over the file
    assert redactor(tmp_path)(text) == "[redacted:aws-access-key]"
    monkeypatch.delenv("LAZY_REDACT")
    (tmp_path / "config.toml").write_text("[redaction]\nenabled = maybe\n")
    with pytest.raises(config.ConfigError, match=r"config\.toml: not valid TOML.*line 2"):
        config.get("redaction.enabled", tmp_path)
    assert redactor(tmp_path)(text) != text  # a broken file never shows secrets


def test_counting_redactor_counts_by_rule_across_texts() -> None:
    from lazy.view.redaction import Counting

    c = Counting()
    first = c("key AKIAIOSFODNN7EXAMPLE here")
    second = c("token sk-ant-api03-" + "a" * 90)
    assert "AKIAIOSFODNN7EXAMPLE" not in first
    assert "sk-ant-api03" not in second
    assert c.counts == {"aws-access-key": 1, "anthropic-api-key": 1}
    assert c.total == 2
