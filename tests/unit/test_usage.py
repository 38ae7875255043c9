"""Tokens and cost: each model response counted once, on real corpus files (totals worked out
by hand below) and on generated sessions with resume, compaction, forks and subagents."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import orjson
import pytest
from rich.console import Console

from fabricate.claude import Session, subagent
from fabricate.codex import Rollout
from fabricate.opencode import Conv, create_db, text
from lazy.cli.conversations import builders_table
from lazy.model import BuilderInfo, Tokens, UsageInfo
from support import CORPUS, require
from support.agent_sessions import invoke, report

WORKTREES = "claude-code/handgemacht-ai__claude-code-log/test/test_data/real_projects/-experiments-worktrees"
LOCALPUSH = "codex/madshn__localpush/src-tauri/tests/fixtures/codex/2026-02-23/raw/sessions"


def corpus_dir(rel: str, tmp_path: Path) -> Path:
    src = CORPUS / rel
    require(src.is_dir(), f"the corpus dir {src}")
    dst = tmp_path / "src" / Path(rel).name
    shutil.copytree(src, dst)
    return dst


def imported(source: Path, tool: str = "claude") -> None:
    invoke(
        "import-conversation", "--tool", tool, "--source", str(source), "--all-projects", "--yes"
    )


def shown(ident: str) -> dict[str, Any]:
    return report("show", ident)


def tokens(t: dict[str, Any]) -> tuple[int, ...]:
    return (t["responses"], t["input"], t["output"], t["cache_read"], t["cache_write"])


# ---- real files -------------------------------------------------------------------------------


def test_a_real_claude_builder_with_subagents(tmp_path: Path) -> None:
    """ef958aa1 (Claude Code 2.1.114, every line claude-opus-4-7) and its six subagents.

    Counted by hand (each (message.id, requestId) once, over its 1-3 lines):
      main        17 messages  in 1308  out 22901  cache read  728660  cache write 102189
      a36efb2a     6               11        2508             118168              28741
      a4ca7529    20              445        7923             615694             113769
      a52886dc    15               39        6475             430337              85894
      a6aa8ad0     5               10        3122             101254              17715
      ab1e6e14    15              723        8156             360852              33267
      aef063ba     5               10        2373             100730              16998
      subagents   66             1238       30557            1727035             296384
      total       83             2546       53458            2455695             398573
    claude-opus-4-7 in genai-prices 0.2.3: $5 in, $25 out, $0.50 cache read, $6.25 cache
    write per Mtok, so the total costs 2546*5 + 53458*25 + 2455695*0.5 + 398573*6.25
    = 12730 + 1336450 + 1227847.5 + 2491081.25 = 5068108.75 micro-dollars: $5.07."""
    imported(corpus_dir(WORKTREES, tmp_path))
    u = shown("ef958aa1")["builder"]["usage"]
    assert tokens(u["main"]) == (17, 1308, 22901, 728660, 102189)
    assert tokens(u["subagents"]) == (66, 1238, 30557, 1727035, 296384)
    assert tokens(u["total"]) == (83, 2546, 53458, 2455695, 398573)
    assert u["total"]["cost_micros"] == 5068109 and u["total"]["unpriced"] == 0
    assert [m["model"] for m in u["models"]] == ["claude-opus-4-7"]
    assert u["prices"].startswith("prices of genai-prices 0.")
    # the subagents' part is the total less the main line's, to the micro-dollar rounding
    assert abs(u["main"]["cost_micros"] + u["subagents"]["cost_micros"] - 5068109) <= 1

    listed = report("conversations", "--all-projects")["builders"]
    (b,) = [b for b in listed if b["id"].startswith("ef958aa1")]
    assert tokens(b["usage"]["total"]) == (83, 2546, 53458, 2455695, 398573)


def test_real_codex_threads_sum_to_their_last_running_total(tmp_path: Path) -> None:
    """Codex writes a cumulative token_count after each response (and again, unchanged,
    when only its rate limits move: 56 events in 920aa6f9 for fewer responses). Each
    thread's responses add up to its last total_token_usage, read off the files:
      53347322  input 34469 (of it cached 3456)  output 431 (reasoning 264)
      a9c575ff  input 298373 (cached 238848)     output 1123 (reasoning 483)
    gpt-5.3-codex: $1.75 in, $14 out, $0.175 cached per Mtok; 53347322 costs
    (34469-3456)*1.75 + 431*14 + 3456*0.175 = 54272.75 + 6034 + 604.8 = 60911.55 micro-$."""
    imported(corpus_dir(LOCALPUSH, tmp_path), "codex")
    a = shown("53347322")["builder"]["usage"]["total"]
    assert (a["input"] + a["cache_read"], a["cache_read"], a["output"], a["reasoning"]) == (
        34469, 3456, 431, 264
    )  # fmt: skip
    assert a["cost_micros"] == 60912
    b = shown("a9c575ff")["builder"]["usage"]["total"]
    assert (b["input"] + b["cache_read"], b["cache_read"], b["output"], b["reasoning"]) == (
        298373, 238848, 1123, 483
    )  # fmt: skip


# ---- generated Claude sessions ----------------------------------------------------------------


def claude_usage(i: int, o: int, cr: int = 0, cw: int = 0) -> dict[str, int]:
    return {
        "input_tokens": i,
        "output_tokens": o,
        "cache_read_input_tokens": cr,
        "cache_creation_input_tokens": cw,
    }


def test_claude_split_messages_resume_fork_compaction_and_subagent(tmp_path: Path) -> None:
    """One Builder over a session, its compaction into a second file and a subagent; a fork
    copying the first session; every response counted once:
      a   msg_a1 (three lines: a streaming placeholder of 1 out, then 100 out twice)
              in 10 out 100 cache read 1000 cache write 50
          msg_a2  in 20 out 200
      b   (compaction continues a) msg_b1  in 30 out 300
      sub msg_sub_x  in 3 out 7 (the fabricate default)
      fork f: a's lines copied (msg_a1, msg_a2 again), then msg_f1 in 40 out 400
    Builder a: 4 responses, in 63, out 607 (of it subagent 1 response, in 3, out 7);
    fork f: only msg_f1 is its own; every project: 5 responses, in 103, out 1007."""
    root = tmp_path / "projects"
    a = Session(root, "/w/p")
    a.user("first")
    placeholder = a.assistant_line(
        [{"type": "thinking", "thinking": "", "signature": "x"}],
        message_id="msg_a1", request_id="req_a1", usage=claude_usage(10, 1, 1000, 50),
    )  # fmt: skip
    full = claude_usage(10, 100, 1000, 50)
    text1 = a.assistant_line("one", message_id="msg_a1", request_id="req_a1", usage=full)
    call = a.tool_use_line("Task", {"prompt": "look"}, "toolu_1", message_id="msg_a1",
                           request_id="req_a1", usage=full)  # fmt: skip
    a.write(placeholder, text1, call)
    a.write(a.tool_result_line("toolu_1", "done", toolUseResult={"agentId": "x"}))
    a.write(a.assistant_line("two", message_id="msg_a2", usage=claude_usage(20, 200)))
    subagent(a, "x", "look", "looked")

    b = Session(root, "/w/p")
    b.n = a.n
    boundary = b.line("system", subtype="compact_boundary", content="Conversation compacted",
                      logicalParentUuid=a.last, compactMetadata={"trigger": "auto"})  # fmt: skip
    boundary["parentUuid"] = None
    b.write(boundary)
    b.user("continued", isCompactSummary=True, isVisibleInTranscriptOnly=True)
    b.user("after compaction")
    b.write(b.assistant_line("three", message_id="msg_b1", usage=claude_usage(30, 300)))

    f = Session(root, "/w/p")
    for obj in (json.loads(x) for x in a.path.read_text().splitlines()):
        fork = {"sessionId": f.id, "forkedFrom": {"sessionId": a.id, "messageUuid": obj["uuid"]}}
        f.write({**obj, **fork})
    f.last, f.n = a.last, a.n + 50
    f.user("only in the fork")
    f.write(f.assistant_line("four", message_id="msg_f1", usage=claude_usage(40, 400)))

    imported(root)
    u = shown(a.id)["builder"]["usage"]
    assert tokens(u["total"]) == (4, 63, 607, 1000, 50)
    assert tokens(u["subagents"]) == (1, 3, 7, 0, 0)
    uf = shown(f.id)["builder"]["usage"]
    assert tokens(uf["total"]) == (1, 40, 400, 0, 0)
    everything = report("usage", "--all-projects", "--by", "agent")
    assert tokens(everything["total"]) == (5, 103, 1007, 1000, 50)
    # each message shows its own tokens, the split one once
    msgs = shown(a.id)["messages"]
    mine = [m["tokens"]["output"] for m in msgs if m.get("tokens")]
    assert mine == [100, 200, 300]


def test_an_unknown_model_costs_unknown_not_zero(tmp_path: Path) -> None:
    root = tmp_path / "projects"
    s = Session(root, "/w/p")
    s.user("hi")
    line = s.assistant_line("hello", usage=claude_usage(10, 10))
    line["message"]["model"] = "claude-nonesuch-9"
    s.write(line)
    imported(root)
    u = shown(s.id)["builder"]["usage"]["total"]
    assert u["cost_micros"] is None and u["unpriced"] == 1 and u["output"] == 10
    table = invoke("usage", "--all-projects", "--by", "model").stdout
    assert "claude-nonesuch-9" in table and "unknown" in table and "$0.00" not in table


def test_own_rates_in_the_config_come_first(tmp_path: Path) -> None:
    root = tmp_path / "projects"
    s = Session(root, "/w/p")
    s.user("hi")
    s.write(s.assistant_line("hello", usage=claude_usage(1000, 2000, 3000, 4000)))
    imported(root)
    home = Path(str(tmp_path / "lazy"))
    (home / "config.toml").write_text(
        '[prices."claude-sonnet-4*"]\ninput = 1.0\noutput = 2.0\ncache_read = 0.5\ncache_write = 1.5\n'
    )
    u = shown(s.id)["builder"]["usage"]
    # 1000*1 + 2000*2 + 3000*0.5 + 4000*1.5 = 12500 micro-dollars
    assert u["total"]["cost_micros"] == 12500
    assert "own rates for claude-sonnet-4*" in u["prices"]
    (home / "config.toml").write_text('[prices."x"]\nspeed = 3\n')
    bad = invoke("usage", "--all-projects", ok=False)
    assert bad.exit_code != 0 and "speed" in bad.output


# ---- generated Codex threads ------------------------------------------------------------------


def test_codex_steps_repeats_resume_fork_and_subagent(tmp_path: Path) -> None:
    """A thread of two turns, each response's token_count written twice (the second a rate
    limit update), then resumed in the same file (a second capture); a fork copying its
    first turn, token counts included; a subagent thread replaying its parent's lines.
      parent  turn 1: in 1000 (cached 200) out 50 (reasoning 10)
              turn 2: in 2000 (cached 1500) out 80
              resumed turn 3: in 3000 (cached 2500) out 90
      fork    copied turn 1, then its own: in 1100 (cached 900) out 40
      sub     its own: in 500 (cached 0) out 30
    Parent Builder: 3 responses, input incl. cache 6000, of it cached 4200, output 220;
    fork: 1 response, 1100 / 900 / 40; everything: 5 responses, 7600 / 5100 / 290."""
    codex = tmp_path / "codex"
    p = Rollout(codex, started="2026-03-01T10:00:00")
    first = [*p.turn_lines("plan", "planned"), p.token_count(1000, 200, 50, 10)]
    first.append(p.token_count_again())
    second = [*p.turn_lines("refine", "refined"), p.token_count(2000, 1500, 80)]
    second.append(p.token_count_again())
    p.write(first, second)
    fork = Rollout(codex, started="2026-03-01T11:00:00", forked_from=p.id)
    fork.write(first)
    fork.total = {}  # the fork's own count goes on from its origin's, as Codex restores it
    fork.total = dict(orjson.loads(first[-2])["payload"]["info"]["total_token_usage"])
    fork.write(fork.turn_lines("other way", "done"), fork.token_count(1100, 900, 40))
    sub = Rollout(codex, started="2026-03-01T12:00:00", parent=p.id)
    sub.write(sub.turn_lines("help", "helped"), sub.token_count(500, 0, 30))
    imported(codex, "codex")
    p.write(p.turn_lines("again", "again done"), p.token_count(3000, 2500, 90))  # resumed
    imported(codex, "codex")

    def seen(ident: str, part: str = "total") -> tuple[int, ...]:
        t = shown(ident)["builder"]["usage"][part]
        return (t["responses"], t["input"] + t["cache_read"], t["cache_read"], t["output"])

    assert seen(p.id, "main") == (3, 6000, 4200, 220)
    assert seen(fork.id) == (1, 1100, 900, 40)
    everything = report("usage", "--all-projects", "--by", "day")["total"]
    assert (everything["responses"], everything["output"]) == (5, 290)
    assert everything["reasoning"] == 10


# ---- generated OpenCode sessions --------------------------------------------------------------


def oc_tokens(i: int, o: int, r: int = 0, cr: int = 0, cw: int = 0) -> dict[str, Any]:
    return {"input": i, "output": o, "reasoning": r, "cache": {"read": cr, "write": cw},
            "total": i + o + r + cr + cw}  # fmt: skip


def test_opencode_messages_and_a_fork_that_clones_them(tmp_path: Path) -> None:
    """OpenCode keeps tokens on each assistant message; its fork clones the messages under
    new ids, times and tokens kept:
      origin  in 100 out 10 (reasoning 5 apart: output 15), then in 200 out 20 cache read 50
      fork    the two clones, then its own in 300 out 30
    The origin: 2 responses, output 35; the fork: its own only (output 30); all: 3."""
    a = Conv("ses_origin0001", title="Probe")
    a.user(text("q1"))
    a.assistant(text("a1"), tokens=oc_tokens(100, 10, 5))
    a.user(text("q2"))
    a.assistant(text("a2"), tokens=oc_tokens(200, 20, 0, 50))
    f = Conv("ses_forked00001", title="Probe (fork #1)")
    f.info["time"] = {"created": a.info["time"]["created"] + 3_600_000, "updated": 0}
    f.info["time"]["updated"] = f.info["time"]["created"] + 60_000
    f.n = 100
    for info, parts in a.messages:
        mid = f._id("msg")
        clone = {**info, "id": mid, "sessionID": f.sid}
        f.messages.append((clone, [{**p, "id": f._id("prt"), "messageID": mid, "sessionID": f.sid}
                                   for p in parts]))  # fmt: skip
    f.user(text("q3"))
    f.assistant(text("a3"), tokens=oc_tokens(300, 30))
    data = tmp_path / "opencode"
    create_db(data / "opencode.db", a, f)
    imported(data, "opencode")
    ua = shown(a.sid)["builder"]["usage"]["total"]
    assert (ua["responses"], ua["input"], ua["output"], ua["reasoning"]) == (2, 300, 35, 5)
    uf = shown(f.sid)["builder"]["usage"]["total"]
    assert (uf["responses"], uf["output"]) == (1, 30)
    assert report("usage", "--all-projects", "--by", "model")["total"]["responses"] == 3


# ---- surfaces ---------------------------------------------------------------------------------


def test_lazy_usage_by_day_model_and_a_span(tmp_path: Path) -> None:
    root = tmp_path / "projects"
    s = Session(root, "/w/p")
    for day, out in (("2026-03-01", 100), ("2026-03-02", 200), ("2026-03-09", 400)):
        from datetime import datetime

        at = datetime.fromisoformat(f"{day}T12:00:00+00:00")
        s.write(s.user_line(f"on {day}", at=at))
        s.write(s.assistant_line("ok", usage=claude_usage(10, out), at=at))
    imported(root)
    by_day = report("usage", "--all-projects", "--by", "day")
    assert [(r["group"], r["tokens"]["output"]) for r in by_day["rows"]] == [
        ("2026-03-01", 100), ("2026-03-02", 200), ("2026-03-09", 400)
    ]  # fmt: skip
    by_week = report("usage", "--all-projects", "--by", "week")
    assert [(r["group"], r["tokens"]["output"]) for r in by_week["rows"]] == [
        ("2026-02-23", 100), ("2026-03-02", 200), ("2026-03-09", 400)  # weeks start on Monday
    ]  # fmt: skip
    span = report(
        "usage", "--all-projects", "--since", "2026-03-02T00:00:00Z", "--until", "2026-03-09"
    )
    assert span["total"]["output"] == 200
    table = invoke("usage", "--all-projects", "--by", "model").stdout
    assert "claude-sonnet" in table and "█" in table and "prices of genai-prices" in table
    bad = invoke("usage", "--since", "next tuesday", ok=False)
    assert bad.exit_code == 2 and "not a date" in bad.output


def test_the_cost_column_keeps_id_tool_and_msgs_at_80_columns() -> None:
    usage = UsageInfo(total=Tokens(responses=3, output=10, cost_micros=1_450_000))
    b = BuilderInfo(id="4f8c2a1b-0000", short_id="4f8c2a1b", tool="claude", project="/w/some-project",
                    started_at="2026-03-01T10:00:00Z", updated_at=None, message_count=1234,
                    summary="a long summary " * 10, usage=usage)  # fmt: skip
    console = Console(width=80, record=True, color_system=None)
    console.print(builders_table([b]))
    line = console.export_text().splitlines()[1]
    assert "4f8c2a1b" in line and "claude" in line and "1234" in line and "$1.45" in line


def test_a_promoted_task_carries_its_range_cost(tmp_path: Path) -> None:
    root = tmp_path / "projects"
    s = Session(root, "/w/p")
    s.user("one")
    s.write(s.assistant_line("r1", usage=claude_usage(1000, 100)))
    s.user("two")
    s.write(s.assistant_line("r2", usage=claude_usage(2000, 200)))
    imported(root)
    invoke("conversations", "promote", s.id, "--from", "3", "--to", "4", "--code", "t1", "--yes")
    (task,) = report("tasks", "--all-projects")["tasks"]
    assert task["usage"]["output"] == 200 and task["usage"]["responses"] == 1
    assert task["usage"]["input"] == 2000
    assert "$" in invoke("tasks", "show", "t1").stdout


def test_a_store_from_before_gets_its_usage_once(tmp_path: Path) -> None:
    """A store written before the usage table: its rows are read from the raw archive on the
    next open, the messages left as they were (same ids)."""
    root = tmp_path / "projects"
    s = Session(root, "/w/p")
    s.user("hi")
    s.write(s.assistant_line("hello", usage=claude_usage(7, 70)))
    imported(root)
    db = tmp_path / "lazy" / "store.db"
    con = sqlite3.connect(db)
    ids = con.execute("SELECT id FROM messages ORDER BY id").fetchall()
    con.execute("DELETE FROM usage")
    con.execute("DELETE FROM meta WHERE key = 'usage_read'")
    con.commit()
    shutil.rmtree(root)  # nothing to import again: it comes from the archive
    assert shown(s.id)["builder"]["usage"]["total"]["output"] == 70
    assert con.execute("SELECT id FROM messages ORDER BY id").fetchall() == ids
    con.close()


@pytest.mark.parametrize("value", ["7d", "today", "2026-03-01"])
def test_since_takes_the_search_syntax(value: str) -> None:
    assert invoke("usage", "--all-projects", "--since", value, "--json").exit_code == 0


def test_a_tiered_price_is_applied_response_by_response(tmp_path: Path) -> None:
    """claude-sonnet-4-5 costs $3 in / $15 out per Mtok up to 200k input tokens a request, and
    $6 / $22.50 for every token of a request past that (genai-prices 0.2.3). Two responses on
    one day: 100k in + 1k out = 300000 + 15000 = 315000 micro-dollars; 300k in + 1k out =
    1800000 + 22500 = 1822500; together 2137500 (priced as one sum of 400k it would be
    2422500 at the tier rate, or 1215000 at the base one)."""
    root = tmp_path / "projects"
    s = Session(root, "/w/p")
    s.user("small")
    s.write(s.assistant_line("r1", usage=claude_usage(100_000, 1000)))
    s.user("big")
    s.write(s.assistant_line("r2", usage=claude_usage(300_000, 1000)))
    imported(root)
    assert shown(s.id)["builder"]["usage"]["total"]["cost_micros"] == 2137500
    assert report("usage", "--all-projects", "--by", "day")["total"]["cost_micros"] == 2137500
    assert (
        report("conversations", "--all-projects")["builders"][0]["usage"]["total"]["cost_micros"]
        == 2137500
    )
