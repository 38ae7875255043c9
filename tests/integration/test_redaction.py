"""Secrets in a transcript are redacted wherever text leaves the store, and kept verbatim in it.

A Claude Code session holding one secret of each kind (the benchmark's generators: fresh,
well-formed values) is imported with the real CLI; search, show, --json, the sidecar's
transcripts/page and the ask prompt must not hold them, and must say ``[redacted:<rule>]``;
the raw archive must. With redaction turned off and the index rebuilt, search finds them.
"""

from __future__ import annotations

import json
import random
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from pytest_lsp import LanguageClient

from lazy.agents.files import decompress_frames
from support import load_bench
from support.claude_session import Session
from support.lsp import call, start_sidecar
from support.search import env_for, lazy_json, run_lazy

ROOT = Path(__file__).resolve().parents[2]

# rules whose secrets go in the planted session, and the word said just before each
PLANTED = ("anthropic-api-key", "openai-api-key", "aws-access-key", "github-token",
           "gitlab-token", "slack-token", "slack-webhook", "stripe-key", "google-api-key",
           "jwt", "npm-token", "sendgrid-api-key", "private-key")  # fmt: skip
NEAR = "zebracred"  # a word beside every secret: search finds the message by it


class World:
    def __init__(self, base: Path) -> None:
        self.lazy_home = base / "lazy"
        self.user_home = base / "home"
        self.repo = base / "work" / "repo"
        self.repo.mkdir(parents=True)
        rng = random.Random(13)
        gens = load_bench("redaction").GENERATORS
        self.secrets = {rule: gens[rule](rng) for rule in PLANTED}
        self.db_password = "Hx7" + "".join(rng.choices("abcdefghijkmnpqrstuvwxyz23456789", k=14))
        self.env_secret = "".join(
            rng.choices("ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnpqrstuvwxyz", k=30)
        )
        projects = self.user_home / ".claude" / "projects"
        self.session = Session(projects, str(self.repo))
        said = "\n".join(
            f"{NEAR} {rule} {v}" for rule, v in self.secrets.items() if rule != "private-key"
        )
        self.session.turn(f"here are my keys, keep them safe:\n{said}", "Noted, I will.")
        url = f"postgres://app:{self.db_password}@db.internal:5432/prod"
        self.session.turn(
            f"{NEAR} connect with DATABASE_URL={url} and SERVICE_TOKEN={self.env_secret}",
            f"Connecting to {url} now.",
        )
        self.session.turn(
            f"{NEAR} the deploy key is\n{self.secrets['private-key']}", "I will not print it."
        )

    @property
    def planted(self) -> list[str]:
        """Each secret as a search or a substring test looks for it (a PEM block: a line
        of its body)."""
        out = [v for r, v in self.secrets.items() if r != "private-key"]
        return [*out, self.secrets["private-key"].split("\n")[2], self.db_password, self.env_secret]

    def lazy(self, *args: str, home: Path | None = None) -> str:
        return run_lazy(home or self.lazy_home, self.user_home, *args, cwd=self.repo).stdout

    def json(self, *args: str, home: Path | None = None) -> Any:
        return lazy_json(home or self.lazy_home, self.user_home, *args, cwd=self.repo)


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> World:
    w = World(tmp_path_factory.mktemp("redaction"))
    w.lazy("import-conversation", "--all-projects", "--yes")
    return w


def _phrase(secret: str) -> str:
    return '"' + secret.replace('"', " ") + '"'


def test_search_never_finds_a_secret(world: World) -> None:
    for secret in world.planted:
        found = world.json("search", "--all-projects", _phrase(secret))
        assert found["total_hits"] == 0 and found["groups"] == [], (secret, found)


def test_search_snippets_say_what_was_redacted(world: World) -> None:
    found = world.json("search", "--all-projects", NEAR)
    assert found["total_hits"] == 3
    snippets = " ".join(h["snippet"] for g in found["groups"] for h in g["hits"])
    assert "[redacted:" in snippets
    for secret in world.planted:
        assert secret not in json.dumps(found), secret
    text = world.lazy("search", "--all-projects", NEAR)
    assert "[redacted:" in text
    assert not any(secret in text for secret in world.planted)


def test_show_and_json_hold_markers_not_secrets(world: World) -> None:
    shown = world.lazy("show", world.session.id)
    as_json = json.dumps(world.json("show", world.session.id))
    listed = json.dumps(world.json("conversations", "--all-projects"))
    for out in (shown, as_json, listed):
        for secret in world.planted:
            assert secret not in out, secret
    for rule in (*PLANTED, "database-url", "generic-secret"):
        assert f"[redacted:{rule}]" in shown, rule
        assert f"[redacted:{rule}]" in as_json, rule
    assert "postgres://app:[redacted:database-url]@db.internal:5432/prod" in shown


def test_the_store_keeps_the_bytes_verbatim(world: World) -> None:
    conn = sqlite3.connect(f"file:{world.lazy_home / 'store.db'}?mode=ro", uri=True)
    try:
        raw = b"".join(decompress_frames(r[0]) for r in conn.execute("SELECT data FROM raw_chunks"))
        stored = "\n".join(r[0] for r in conn.execute("SELECT text FROM messages"))
    finally:
        conn.close()
    for secret in world.planted:
        assert secret.encode() in raw or json.dumps(secret)[1:-1].encode() in raw, secret
        assert secret in stored, secret


def test_the_ask_prompt_is_redacted(world: World) -> None:
    from lazy.ask.chunks import render, split
    from lazy.ask.subject import subject
    from lazy.store import Store

    with Store.open(world.lazy_home) as store:
        about = subject(store, world.session.id)
    prompt = "".join(e.text for e in split(render(about.transcript)).excerpts)
    assert "[redacted:aws-access-key]" in prompt and "[redacted:private-key]" in prompt
    for secret in world.planted:
        assert secret not in prompt, secret


def test_doctor_counts_the_redacted_messages(world: World) -> None:
    report = world.json("doctor")
    checks = {c["title"]: c for c in report["checks"]}
    redacted = next(c for t, c in checks.items() if t.startswith("Secrets are redacted"))
    assert redacted["status"] == "ok", redacted
    # the three prompts, and the reply that repeats the database URL
    assert any("4 indexed message(s) carry redactions" in d for d in redacted["detail"]), redacted
    assert any("aws-access-key 1" in d for d in redacted["detail"]), redacted
    own = next(c for t, c in checks.items() if t.startswith("The agents' own session files"))
    assert own["status"] == "warn", own
    said = " ".join(own["detail"]) + (own["fix"] or "")
    assert "Claude Code:" in said and "aws-access-key" in said and "github-token" in said
    assert "cannot scrub files it does not own" in said
    for secret in world.planted:
        assert secret not in json.dumps(report), secret


@pytest.mark.asyncio
async def test_the_sidecar_serves_redacted_pages(world: World) -> None:
    client: LanguageClient = await start_sidecar(
        env_for(world.lazy_home, world.user_home), world.repo, live_capture=False
    )
    try:
        page = await call(client, "transcripts/page", {"builder_id": world.session.id, "count": 50})
        listed = await call(client, "builders/list", {"all_projects": True})
        found = await call(client, "search/query", {"query": NEAR, "all_projects": True})
        # the list's text filter matches the summary as shown: a secret is not confirmed
        key = world.secrets["anthropic-api-key"]
        probed = await call(client, "builders/list", {"all_projects": True, "text": key[:24]})
        marked = await call(client, "builders/list", {"all_projects": True, "text": "[redacted:"})
    finally:
        await client.shutdown_session()
    assert probed["items"] == [] and [b["id"] for b in marked["items"]] == [world.session.id]
    served = json.dumps([page, listed, found], default=str)
    assert "[redacted:github-token]" in served and "[redacted:private-key]" in served
    for secret in world.planted:
        assert secret not in served, secret


def test_turned_off_and_rebuilt_search_finds_them(world: World, tmp_path: Path) -> None:
    home = tmp_path / "lazy"
    shutil.copytree(world.lazy_home, home)
    world.lazy("config", "set", "redaction.enabled", "false", home=home)
    assert world.lazy("config", "get", "redaction.enabled", home=home).strip() == "false"
    world.lazy("index", "rebuild", home=home)
    aws = world.secrets["aws-access-key"]
    assert world.json("search", "--all-projects", _phrase(aws), home=home)["total_hits"] == 1
    assert aws in world.lazy("show", world.session.id, home=home)
    doctor = {c["title"]: c for c in world.json("doctor", home=home)["checks"]}
    off = next(c for t, c in doctor.items() if t.startswith("Secrets are redacted"))
    assert off["status"] == "warn" and "redaction is off" in off["detail"][0]


def test_a_catch_up_with_redaction_off_marks_the_index_unredacted(
    world: World, tmp_path: Path
) -> None:
    home, user = tmp_path / "lazy", tmp_path / "home"
    shutil.copytree(world.lazy_home, home)
    Session(user / ".claude" / "projects", str(world.repo)).turn(
        f"{NEAR} one more: {world.secrets['github-token']}", "ok"
    )
    run_lazy(home, user, "config", "set", "redaction.enabled", "false", cwd=world.repo)
    run_lazy(home, user, "import-conversation", "--all-projects", "--yes", cwd=world.repo)
    run_lazy(home, user, "config", "set", "redaction.enabled", "true", cwd=world.repo)
    doctor = {c["title"]: c for c in lazy_json(home, user, "doctor")["checks"]}
    check = next(c for t, c in doctor.items() if t.startswith("Secrets are redacted"))
    assert check["status"] == "warn", check
    assert any("with redaction off" in d for d in check["detail"]), check
    assert check["fix"] == "lazy index rebuild"
