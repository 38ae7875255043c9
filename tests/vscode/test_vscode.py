"""The extension in a real VS Code: a thin pytest wrapper around ``vscode.test.mjs``.

The Node suite (playwright-core driving Debian's chromium against code-server 4.100.3 with the
packaged ``.vsix`` installed) runs once per module; each of its tests is one pytest test here,
passing or failing with the Node test's own message. A missing prerequisite skips, or fails with
``CI=true``. Screenshots and logs land in ``tests/vscode/out/``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from support import require
from support.docker import Engine
from support.oneshot_api import REAL_KEY, Rule, fake_api, text
from support.postgres import Postgres

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
# the team's members as tests/team makes them (team_world.py)
sys.path.insert(0, str(REPO / "tests" / "team"))
from team_world import Member, git_repo, reset  # noqa: E402

OUT = HERE / "out"
VSIX = Path(os.environ.get("LAZY_VSIX") or REPO / "extension" / "lazy-linux-x64.vsix")
# Read at collection, before the autouse fixture of tests/conftest.py isolates HOME.
CODE_SERVER_DIR = Path(
    os.environ.get("LAZY_CODE_SERVER_DIR")
    or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "lazy-test/code-server"
)
CHROMIUM = Path(os.environ.get("LAZY_CHROMIUM") or "/usr/bin/chromium")

# the whole Node suite runs in the first test's setup, an ask through a container included
pytestmark = pytest.mark.timeout(1800)

# the tests of vscode.test.mjs, in their order: pytest id -> the Node test's title
TESTS = {
    "builders_view": "the Builders view lists the captured sessions",
    "bundled_sidecar": "the sidecar running is the one packaged in the .vsix, under the system's Python",
    "open_transcript": "opening a Builder shows its messages with their numbers",
    "export_builder": "Export Builder… writes the transcript in front as HTML where the user says",
    "tool_call_expands": "a tool call expands to show its output",
    "search_opens_message": "search finds a known phrase and opens its message",
    "search_link": "a `lazy search` link opens the transcript at its message, with its words",
    "open_builder_alias": "Lazy: Open Builder… opens a Builder by its alias",
    "team_view": (
        "the Team view lists a teammate's Builder marked as grown; opening it shows their messages"
        " read-only, and the mark goes"
    ),
    "corpus_views": (
        "the corpus session 7acd37a8 reads as Markdown, diffs, checklists, shell output, thinking"
        " and subagents, light and dark"
    ),
    "hostile_inert": "the hostile transcript renders markup, links and ANSI escapes as inert text",
    "tasks_empty": "the Tasks view, with no task yet, says what a task is and how to promote one",
    "promote_form": "promoting messages 2–3 through the transcript's form, the same range refused, an overlap shown",
    "promote_code_action": (
        "the transcript as text offers the sidecar's code action for a selection spanning messages,"
        " into the same form"
    ),
    "ask_builder": "Ask About This Builder… answers beside the transcript through the real one-shot",
    "ask_cancel": "cancelling an ask stops its one-shot",
    "empty_workspace": (
        "an empty workspace says how many conversations other projects hold; Show All Projects"
        " lists them, a project of one Builder at the top, each with its agent's icon"
    ),
    "live_session": "a session written while VS Code is open appears without a refresh",
    "sidecar_restart": "a killed sidecar shows in the status bar and Restart Sidecar recovers",
    "restart_same_store": (
        "Restart Sidecar after the sidecar is killed runs lazy.sidecar.path against lazy.store"
        " again, and every view follows"
    ),
}

# what the ask test asks, and what the fake model answers (its #2 becomes a link)
ASK_QUESTION = "which colour did the plan settle on?"
ASK_ANSWER = "The plan settled on periwinkle (#2)."
# and one it never answers, to cancel
ASK_HANG = "please hang until cancelled"

# what the teammate (bob) asked and was answered, in a repo of the team's project
TEAM_PROJECT = "github.com/acme/app"
TEAM_PROMPT = "Sketch the kumquat rollout for the team"
TEAM_REPLY = "Kumquat rollout: a canary on Monday, everyone on Thursday."

TAP_LINE = re.compile(r"^(not ok|ok) \d+ - (.*?)(?: # (SKIP|TODO)\b(.*))?$")


def _unshare_works() -> bool:
    argv = ["unshare", "--net", "--", "true"]
    if os.geteuid() != 0:
        argv[1:1] = ["--user", "--map-root-user"]
    return shutil.which("unshare") is not None and subprocess.run(argv).returncode == 0


def _docker(request: pytest.FixtureRequest) -> tuple[Engine | None, str]:
    """The session's Docker engine with the agent image (tests/support/docker_fixtures.py), or why not:
    only the ask test needs it, the others run without."""
    try:
        engine: Engine = request.getfixturevalue("docker_engine")
        request.getfixturevalue("agent_image")
    except pytest.skip.Exception as e:  # CI=true fails in the fixture instead
        return None, str(e.msg)
    return engine, ""


def _team(request: pytest.FixtureRequest, store: Path, base: Path) -> dict[str, str]:
    """A team as tests/team's fresh_team makes one, on the session's PostgreSQL: alice joined
    with ``store`` (the LAZY_HOME code-server's sidecar serves: its team.json holds the
    connection), bob with a store of his own under ``base``, who pushed a Builder of a repo
    of the team's project and added alice to it. Passed to the Node suite as LAZY_TEAM; without
    a server, LAZY_TEAM_MISSING says why (only the team test skips)."""
    try:
        pg: Postgres = request.getfixturevalue("postgres")
    except pytest.skip.Exception as e:  # CI=true fails in the fixture instead
        return {"LAZY_TEAM_MISSING": f"a PostgreSQL server: {e.msg}"}
    reset(pg)  # whatever tests/team left on the server
    owner = Member(base, "postgres", "Owner", pg)
    owner.lazy("team", "init", pg.conninfo())
    alice = Member(base, "alice", "Alice Archer", pg)
    alice.lazy_home = store
    bob = Member(base, "bob", "Bob Baker", pg)
    for m in (alice, bob):
        owner.lazy("team", "invite", m.role, "--db", pg.conninfo())
        m.lazy("team", "join", m.conninfo)
    repo = git_repo(base / "bob" / "src" / "app", "git@github.com:acme/app.git")
    bob.session(repo, TEAM_PROMPT, TEAM_REPLY)
    bob.capture()
    # the first to push a project claims it; reading it takes being added by a member
    bob.lazy("team", "push")
    bob.lazy("team", "add", alice.email, "--project", TEAM_PROJECT)
    [pushed] = bob.json("team", "conversations")
    team = {
        "store": str(store),
        "member": bob.name,
        "project": pushed["project"],
        "title": pushed["title"],
        "messages": [TEAM_PROMPT, TEAM_REPLY],
    }
    return {"LAZY_TEAM": json.dumps(team)}


@pytest.fixture(scope="module")
def node_results(
    tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> dict[str, tuple[str, str]]:
    entry = CODE_SERVER_DIR / "node_modules" / "code-server" / "out" / "node" / "entry.js"
    require(VSIX.is_file(), f"the packaged extension {VSIX} (cd extension && npm run package)")
    require(entry.is_file(), f"code-server in {CODE_SERVER_DIR} (tests/vscode/install.sh)")
    require(CHROMIUM.is_file(), f"{CHROMIUM} (apt-get install chromium)")
    require((HERE / "node_modules" / "playwright-core").is_dir(), "cd tests/vscode && npm ci")
    require(
        (REPO / "tests" / "agents" / "node_modules" / ".bin" / "claude").exists(),
        "the claude CLI (cd tests/agents && npm install)",
    )
    require(_unshare_works(), "unshare --net (root, or unprivileged user namespaces)")
    OUT.mkdir(exist_ok=True)
    work = tmp_path_factory.mktemp("vscode")
    env = {
        **os.environ,
        "LAZY_CODE_SERVER_DIR": str(CODE_SERVER_DIR),
        "LAZY_VSIX": str(VSIX),
        "LAZY_VENV": str(Path(sys.executable).parent.parent),
        "LAZY_VSCODE_TMP": str(work),
        "LAZY_VSCODE_OUT": str(OUT),
        # vscode.test.mjs keeps its store in <work>/lazy
        **_team(request, work / "lazy", tmp_path_factory.mktemp("team")),
    }
    engine, no_docker = _docker(request)
    rules = [
        Rule("answer", [text(ASK_ANSWER)], user_contains=ASK_QUESTION),
        Rule("hang", [text("too late")], user_contains=ASK_HANG, delay=600),
    ]
    with fake_api(rules) as fake:
        if engine is None:
            env["LAZY_ASK_MISSING"] = f"a Docker engine: {no_docker}"
        else:
            env.update(
                DOCKER_HOST=engine.host,
                ANTHROPIC_BASE_URL=fake.base_url,
                ANTHROPIC_API_KEY=REAL_KEY,
                LAZY_ASK_QUESTION=ASK_QUESTION,
                LAZY_ASK_ANSWER=ASK_ANSWER,
                LAZY_ASK_HANG=ASK_HANG,
            )
        try:
            proc = _run_node(env)
        finally:
            if engine is not None:
                engine.remove_labelled()  # a one-shot a failed test left
    (OUT / "results.tap").write_text(proc.stdout)
    return _parse_tap(proc)


def _run_node(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            "node",
            "--test",
            "--test-concurrency=1",
            "--test-reporter=tap",
            "--test-reporter-destination=stdout",
            "--test-reporter=spec",
            f"--test-reporter-destination={OUT / 'spec.txt'}",
            "vscode.test.mjs",
        ],
        cwd=HERE,
        env=env,
        capture_output=True,
        text=True,
        timeout=1500,
    )


def _parse_tap(proc: subprocess.CompletedProcess[str]) -> dict[str, tuple[str, str]]:
    results: dict[str, tuple[str, str]] = {}
    current: str | None = None
    for line in proc.stdout.splitlines():
        m = TAP_LINE.match(line)
        if m:
            verdict, title, directive, reason = m.groups()
            status = "skip" if directive == "SKIP" else verdict
            current = title
            results[title] = (status, (reason or "").strip())
        elif current and line.startswith("  ") and results[current][0] == "not ok":
            status, detail = results[current]
            results[current] = (status, detail + line[2:] + "\n")
        elif not line.startswith(" "):
            current = None
    if not results:
        pytest.fail(f"node --test reported nothing (rc={proc.returncode}):\n{proc.stderr[-4000:]}")
    results["__stderr__"] = ("", proc.stderr[-4000:])
    return results


@pytest.mark.parametrize("title", list(TESTS.values()), ids=list(TESTS))
def test_vscode(node_results: dict[str, tuple[str, str]], title: str) -> None:
    if title not in node_results:
        pytest.fail(f"not run by vscode.test.mjs\n{node_results['__stderr__'][1]}")
    unknown = set(node_results) - {*TESTS.values(), "__stderr__"}
    assert not unknown, f"vscode.test.mjs runs tests this wrapper does not list: {unknown}"
    status, detail = node_results[title]
    if status == "skip":
        pytest.skip(detail)
    assert status == "ok", detail
