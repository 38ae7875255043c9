"""What an incremental push sends, on the real server: a tool call pushed before its result
came is sent again with it (the server's copy then shows the output), and the grown part
only, redacted and counted as the first push counts."""

from __future__ import annotations

import json
from pathlib import Path

from team_world import AWS, fresh_team, git_repo, pushed

from support.postgres import Postgres


def test_a_call_pushed_before_its_result_is_completed_by_the_next_push(
    postgres: Postgres, tmp_path: Path
) -> None:
    [alice] = fresh_team(postgres, tmp_path, ("alice", "Alice Archer"))
    repo = git_repo(tmp_path / "src" / "app", "git@github.com:acme/app.git")
    s = alice.session(repo, "list the files", "Looking.")
    s.write(s.tool_use_line("Bash", {"command": "ls"}, "toolu_1", text="Running ls."))
    alice.capture()
    first = alice.json("team", "push")
    assert [b["messages"] for b in first["builders"]] == [3]

    def call_output() -> object:
        view = postgres.sql("SELECT view FROM lazy_team.messages WHERE number = 3 AND line = ''")
        tool = next(p["tool"] for p in json.loads(view)["parts"] if p.get("tool"))
        return tool["output"]

    assert call_output() is None  # no result yet
    s.write(s.tool_result_line("toolu_1", f"README.md\nsecret {AWS}\n"))
    s.turn("thanks", "You're welcome.")
    alice.capture()
    grown = alice.json("team", "push")
    [b] = grown["builders"]
    assert b["whole"] is False
    assert b["messages"] == 3  # the call again (its result shown in it), and the new turn
    assert grown["redactions"] == {"aws-access-key": 1}
    assert call_output() == "README.md\nsecret [redacted:aws-access-key]\n"
    # every message as the transcript shows it, the result inside its call: as lazy show --json
    shown = [
        m["number"]
        for m in alice.json(
            "show", alice.json("conversations", "--all-projects")["builders"][0]["id"]
        )["messages"]
    ]
    numbers = postgres.sql(
        "SELECT string_agg(number::text, ',' ORDER BY number) FROM lazy_team.messages"
    )
    assert numbers == ",".join(map(str, shown)) == "1,2,3,5,6"
    assert pushed(postgres, "alice") == (1, 5)
