"""`lazy ask` end to end: a stored conversation asked through the real one-shot runner (the
real Claude Code CLI in a hardened container of the test agent image, its only channel the
audited proxy) answered by the fake model API on the host."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from fake_anthropic import Rule, text

from fabricate.claude import Session
from support.docker import Engine
from support.oneshot_api import REAL_KEY, assert_one_pass_left_nothing, fake_api

LAZY = str(Path(sys.executable).with_name("lazy"))


def test_lazy_ask_answers_a_stored_conversation_from_a_real_container(
    engine: Engine, tmp_path: Path
) -> None:
    projects = Path(os.environ["HOME"]) / ".claude" / "projects"
    s = Session(projects, "/srv/projects/asked")
    s.turn("which compression for the raw archive?", "we chose zstd, level 3")
    env = {**os.environ, "LAZY_HOME": str(tmp_path / "lazy"), "NO_COLOR": "1"}
    subprocess.run(
        [LAZY, "import-conversation", "--all-projects", "--yes"], env=env, check=True,
        capture_output=True, timeout=120, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    rule = Rule("answer", [text("zstd at level 3 (#2)")], user_contains="what did we choose")
    with fake_api([rule]) as fake:
        p = subprocess.run(
            [LAZY, "ask", s.id[:8], "-m", "what did we choose for compression?", "--json"],
            env={**env, "ANTHROPIC_BASE_URL": fake.base_url, "ANTHROPIC_API_KEY": REAL_KEY},
            capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL,
        )  # fmt: skip
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["answer"] == "zstd at level 3 (#2)"
    assert (out["chunks"], out["relevantChunks"], out["warnings"]) == (1, 1, [])
    assert_one_pass_left_nothing(rule, engine, env, (s.id, 2))
