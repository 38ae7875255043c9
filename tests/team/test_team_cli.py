"""lazy team end to end on a real PostgreSQL server: two members with their own stores and
roles, a project one of them is not in; init, invite, join, push (dry run, incremental,
idempotent), conversations, show, search, status; and the refusals."""

from __future__ import annotations

from pathlib import Path

import pytest
from team_world import AWS, Member, git_repo, reset

from support.postgres import Postgres


@pytest.fixture(scope="module")
def team(postgres: Postgres, tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    base = tmp_path_factory.mktemp("team")
    reset(postgres)
    admin = Member(base, "postgres", "Owner", postgres)
    alice = Member(base, "alice", "Alice Archer", postgres)
    bob = Member(base, "bob", "Bob Baker", postgres)
    carol = Member(base, "carol", "Carol Cole", postgres)
    r = admin.lazy("team", "init", postgres.conninfo())
    assert "Created the team schema (version 3)" in r.stdout, r.stdout
    assert "Created the group role lazy_team_member" in r.stdout
    again = admin.lazy("team", "init", postgres.conninfo())
    assert "at version 3: nothing to do" in again.stdout
    for m in (alice, bob, carol):
        out = admin.lazy("team", "invite", m.role, "--db", postgres.conninfo()).stdout
        assert f"Created the role {m.role}" in out
        joined = m.lazy("team", "join", m.conninfo).stdout
        assert f"as {m.name} <{m.email}> (role {m.role})" in joined
    # alice and bob work on one repo (their own clones); carol on one of her own
    a_app = git_repo(base / "alice" / "src" / "app", "git@github.com:Acme/App.git")
    b_app = git_repo(base / "bob" / "work" / "app", "https://bob@github.com/Acme/App")
    c_secret = git_repo(base / "carol" / "secret", "git@github.com:acme/secret.git")
    scratch = git_repo(base / "alice" / "scratch", None)
    alice.session(
        a_app, f"How do we retry when the lock is held? my key is {AWS}", "Back off and retry."
    )
    alice.session(scratch, "a scratch idea about tangerines", "Noted.")
    bob.session(b_app, "Plan the tangerine migration", "Step one: inventory the tables.")
    carol.session(c_secret, "the merger plan for tangerine corp", "Kept quiet.")
    for m in (alice, bob, carol):
        m.capture()
    return {
        "pg": postgres,
        "alice": alice,
        "bob": bob,
        "carol": carol,
        "admin": admin,
        "scratch": scratch,
    }


def test_a_dry_run_says_what_would_go_and_sends_nothing(team: dict[str, object]) -> None:
    alice, pg = team["alice"], team["pg"]
    assert isinstance(alice, Member) and isinstance(pg, Postgres)
    dry = alice.json("team", "push", "--dry-run")
    assert dry["dry_run"] is True
    assert [b["project"] for b in dry["builders"]] == ["github.com/Acme/App"]
    assert dry["builders"][0]["messages"] == 2
    assert dry["redactions"] == {"aws-access-key": 2}  # its prompt, and its summary
    [skipped] = dry["skipped"]
    assert skipped["builders"] == 1 and "no git remote" in skipped["why"]
    assert pg.sql("SELECT count(*) FROM lazy_team.builders") == "0"


def test_push_is_incremental_idempotent_and_redacted(team: dict[str, object]) -> None:
    alice, bob, pg = team["alice"], team["bob"], team["pg"]
    assert isinstance(alice, Member) and isinstance(bob, Member) and isinstance(pg, Postgres)
    out = alice.lazy("team", "push").stdout
    assert "Sent 1 Builder(s), 2 message(s); 2 redaction(s): aws-access-key 2" in out
    assert "Skipped 1 Builder(s)" in out
    again = alice.json("team", "push", "--all")
    assert again["builders"] == [] and again["unchanged"] == 1
    # nothing of the secret reached the server, in the text or the view
    assert (
        pg.sql(
            f"SELECT count(*) FROM lazy_team.messages WHERE text LIKE '%{AWS}%' OR view::text LIKE '%{AWS}%'"
        )
        == "0"
    )
    assert (
        pg.sql(
            "SELECT count(*) FROM lazy_team.messages WHERE text LIKE '%[redacted:aws-access-key]%'"
        )
        == "1"
    )
    # a turn more: only it goes
    alice.sessions[0].turn("and when the retry fails twice?", "Then we surface the error.")
    alice.capture()
    grown = alice.json("team", "push")
    assert [(b["messages"], b["whole"]) for b in grown["builders"]] == [(2, False)]
    assert (
        pg.sql(
            "SELECT count(*) FROM lazy_team.messages m JOIN lazy_team.members x ON x.id = m.member_id WHERE x.role = 'alice'"
        )
        == "4"
    )
    # bob's clone of the same remote is the same project: refused until a member adds him
    refused = bob.lazy("team", "push", ok=False)
    assert refused.returncode != 0
    assert "not a member of project github.com/Acme/App" in refused.stderr
    assert "lazy team add" in refused.stderr
    status = bob.json("team", "status")
    assert status["failing_since"] and "not a member" in status["last_error"]
    alice.lazy("team", "add", bob.email, "--project", "github.com/Acme/App")
    assert "Sent 1 Builder(s), 2 message(s)" in bob.lazy("team", "push").stdout
    assert bob.json("team", "status")["failing_since"] is None


def test_members_see_only_their_projects(team: dict[str, object]) -> None:
    alice, bob, carol = team["alice"], team["bob"], team["carol"]
    assert isinstance(alice, Member) and isinstance(bob, Member) and isinstance(carol, Member)
    carol.lazy("team", "push")
    seen_by_alice = {(b["member"], b["project"]) for b in alice.json("team", "conversations")}
    assert seen_by_alice == {
        ("Alice Archer", "github.com/Acme/App"),
        ("Bob Baker", "github.com/Acme/App"),
    }
    seen_by_carol = {(b["member"], b["project"]) for b in carol.json("team", "conversations")}
    assert seen_by_carol == {("Carol Cole", "github.com/acme/secret")}
    # search and show obey the same rules: "tangerine" is in bob's and carol's
    hits = alice.json("team", "search", "tangerine")
    assert {h["member"] for h in hits} == {"Bob Baker"}
    assert carol.json("team", "search", "tangerine")[0]["member"] == "Carol Cole"
    carols = carol.json("team", "conversations")[0]["builder_id"]
    hidden = alice.lazy("team", "show", carols, ok=False)
    assert "no Builder" in hidden.stderr and "that you can see" in hidden.stderr
    # and at the database itself, not only through lazy: RLS as alice's role
    pg = team["pg"]
    assert isinstance(pg, Postgres)
    assert (
        pg.sql("SELECT count(*) FROM lazy_team.messages WHERE text LIKE '%merger%'", role="alice")
        == "0"
    )
    assert (
        pg.sql("SELECT count(*) FROM lazy_team.messages WHERE text LIKE '%merger%'", role="carol")
        == "1"
    )
    with pytest.raises(AssertionError, match=r"row-level security|permission denied"):
        pg.sql(
            "INSERT INTO lazy_team.builders (member_id, builder_id, project_id, agent, message_count, info)"
            " SELECT id, 'forged', (SELECT id FROM lazy_team.projects LIMIT 1), 'claude', 1, '{}'"
            " FROM lazy_team.members WHERE role = 'bob'",
            role="alice",
        )


def _bobs(alice: Member) -> dict[str, object]:
    """Bob's Builder, as alice's list shows it."""
    return next(b for b in alice.json("team", "conversations") if b["member"] == "Bob Baker")


def test_search_phrases_filters_and_the_grew_mark(team: dict[str, object]) -> None:
    alice, bob = team["alice"], team["bob"]
    assert isinstance(alice, Member) and isinstance(bob, Member)
    phrase = alice.json("team", "search", '"lock is held"')
    assert [h["number"] for h in phrase] == [1] and phrase[0]["member"] == "Alice Archer"
    assert alice.json("team", "search", '"held is lock"') == []
    assert alice.json("team", "search", "retry", "--member", "bob@acme.test") == []
    assert alice.json("team", "search", "retries")[0]["member"] == "Alice Archer"  # stemmed
    bobs = _bobs(alice)
    assert bobs["grew"] is True  # never opened
    shown = alice.lazy("team", "show", bobs["builder_id"][:8], "--no-pager").stdout
    assert "Plan the tangerine migration" in shown
    assert _bobs(alice)["grew"] is False
    bob.sessions[0].turn("Step two?", "Copy the data.")
    bob.capture()
    bob.lazy("team", "push")
    assert _bobs(alice)["grew"] is True


def test_a_repo_without_a_remote_goes_once_named(team: dict[str, object], tmp_path: Path) -> None:
    alice, scratch = team["alice"], team["scratch"]
    assert isinstance(alice, Member) and isinstance(scratch, Path)
    alice.lazy("team", "name", str(scratch), "acme/scratch")
    went = alice.json("team", "push")
    assert [b["project"] for b in went["builders"]] == ["acme/scratch"] and went["skipped"] == []


def test_promote_from_a_teammates_conversation(team: dict[str, object]) -> None:
    alice, bob = team["alice"], team["bob"]
    assert isinstance(alice, Member) and isinstance(bob, Member)
    bobs = _bobs(alice)["builder_id"]
    made = alice.lazy("team", "promote", bobs[:8], "--from", "1", "--to", "2", "--yes").stdout
    # every field left empty: the goal from what bob said first, the code from the goal
    assert "Created task plan-the-tangerine-migration on the team (github.com/Acme/App)" in made
    assert "from Bob Baker's" in made and "messages 1–2" in made
    again = alice.lazy("team", "promote", bobs[:8], "--from", "1", "--to", "2", "--yes", ok=False)
    assert "already promoted, as task plan-the-tangerine-migration by Alice Archer" in again.stderr
    wide = bob.lazy(
        "team", "promote", bobs[:8], "--from", "2", "--to", "4", "--goal", "Copy it", "--yes"
    )
    assert "Created task copy-it" in wide.stdout
    assert (
        "Overlap: message 2 also went into Alice Archer's task plan-the-tangerine-migration"
        in wide.stderr
    )
    out_of_range = bob.lazy(
        "team", "promote", bobs[:8], "--from", "3", "--to", "99", "--yes", ok=False
    )
    assert (
        "message 99 is not in" in out_of_range.stderr
        and "it has messages 1–4" in out_of_range.stderr
    )
    listed = alice.json("team", "tasks")
    assert [(t["code"], t["by"]) for t in listed] == [
        ("copy-it", "Bob Baker"),
        ("plan-the-tangerine-migration", "Alice Archer"),
    ]
    assert listed[1]["prompt"].startswith("#1 user\nPlan the tangerine migration")
    carol = team["carol"]
    assert isinstance(carol, Member)
    assert carol.json("team", "tasks") == []  # not in the project: its tasks are not hers to see


def test_init_migrates_an_older_schema(postgres: Postgres, tmp_path: Path) -> None:
    from lazy.team import schema

    reset(postgres)
    postgres.sql(
        "CREATE ROLE lazy_team_member NOLOGIN; CREATE ROLE alice LOGIN IN ROLE lazy_team_member"
    )
    postgres.sql("CREATE SCHEMA lazy_team")
    postgres.sql(
        schema.MIGRATIONS[0] + "INSERT INTO lazy_team.meta VALUES ('schema_version', '1');"
    )
    owner = Member(tmp_path, "postgres", "Owner", postgres)
    member = Member(tmp_path, "alice", "Alice Archer", postgres)
    old = member.lazy("team", "join", member.conninfo, ok=False)
    assert "schema is version 1, older than this lazy's 3" in old.stderr
    assert "runs `lazy team init <conninfo>` to migrate it" in old.stderr
    r = owner.lazy("team", "init", postgres.conninfo())
    assert "Migrated the team schema" in r.stdout and "version 1 → 3" in r.stdout
    assert postgres.sql("SELECT value FROM lazy_team.meta WHERE key = 'schema_version'") == "3"
    assert postgres.sql("SELECT to_regclass('lazy_team.tasks') IS NOT NULL") == "t"
