"""Writes Claude Code session files shaped like the real ones (CC 2.0.x lines)."""

from __future__ import annotations

import re
import uuid as uuidlib
from pathlib import Path
from typing import Any

import orjson


def project_dir(root: Path, cwd: str) -> Path:
    return root / re.sub(r"[^A-Za-z0-9]", "-", cwd)


class Session:
    def __init__(
        self, root: Path, cwd: str, session_id: str | None = None, version: str = "2.0.42"
    ):
        self.id = session_id or str(uuidlib.uuid4())
        self.cwd = cwd
        self.version = version
        self.path = project_dir(root, cwd) / f"{self.id}.jsonl"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.last: str | None = None
        self.n = 0

    def line(self, kind: str, **extra: Any) -> dict[str, Any]:
        self.n += 1
        u = str(uuidlib.uuid4())
        obj = {
            "parentUuid": self.last,
            "isSidechain": False,
            "userType": "external",
            "cwd": self.cwd,
            "sessionId": self.id,
            "version": self.version,
            "gitBranch": "main",
            "type": kind,
            "uuid": u,
            "timestamp": f"2026-11-01T10:{self.n // 60:02d}:{self.n % 60:02d}.000Z",
        }
        obj.update(extra)
        self.last = u
        return obj

    def write(self, *objs: dict[str, Any]) -> None:
        with open(self.path, "ab") as f:
            for o in objs:
                f.write(orjson.dumps(o) + b"\n")

    def user(self, text: str, **extra: Any) -> None:
        self.write(self.line("user", message={"role": "user", "content": text}, **extra))

    def assistant(self, text: str) -> None:
        self.write(
            self.line(
                "assistant",
                requestId=f"req_{self.n}",
                message={
                    "id": f"msg_{uuidlib.uuid4().hex[:20]}",
                    "type": "message",
                    "role": "assistant",
                    "model": "claude-sonnet-4-5",
                    "content": [{"type": "text", "text": text}],
                    "usage": {"input_tokens": 3, "output_tokens": 7},
                },
            )
        )

    def turn(self, prompt: str, reply: str) -> None:
        self.user(prompt)
        self.assistant(reply)
