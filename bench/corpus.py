"""Synthetic Claude Code history for the import benchmark.

Writes ``<dest>/projects/-home-u-proj-N/<sessionId>.jsonl`` files shaped like real Claude Code
transcripts (2.1.x lines, some 2.0.x ones): one API response split over several lines that share
``message.id``/``requestId`` (thinking, text, tool_use), tool_use/tool_result pairs with bulky
output (file contents, command output, an Edit's whole original file), base64 PNG images (pasted
by the user and read by the Read tool, a few lines over 1 MB), compaction
(``system/compact_boundary`` + ``isCompactSummary``), 2.1.x subagents
(``<sessionId>/subagents/agent-<17 hex>.jsonl`` + ``.meta.json``), ``file-history-snapshot``,
``queue-operation`` and hook ``attachment`` lines, and ``/clear``-started sessions (the isMeta
caveat line re-used across files with the same uuid, as in real data).

Deterministic for a given seed. Fast: lines are built as dicts and serialised with orjson, bulk
text is sliced out of filler blobs built once per process.

    python -m bench.corpus DEST --size 200MB [--seed 0]
"""

from __future__ import annotations

import argparse
import base64
import bisect
import calendar
import contextlib
import io
import math
import os
import random
import re
import struct
import sys
import time
import zlib
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import IO, Any, NamedTuple

import orjson

# --------------------------------------------------------------------------------------------------
# sizes

_SIZE_RE = re.compile(r"^\s*([0-9]*\.?[0-9]+)\s*([kmgt]?)(i?)(b?)\s*$", re.IGNORECASE)


def parse_size(text: str) -> int:
    """``"200MB"`` -> 200_000_000; ``"1GiB"`` -> 2**30; a bare number is bytes."""
    m = _SIZE_RE.match(text)
    if not m:
        raise ValueError(f"not a size: {text!r}")
    number, unit, binary = float(m.group(1)), m.group(2).lower(), bool(m.group(3))
    power = "kmgt".index(unit) + 1 if unit else 0
    return int(number * (1024 if binary else 1000) ** power)


def format_size(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if abs(n) < 1000 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000
    return f"{n:.1f} GB"


# dense mode (generate(dense=True)): tool output budget, and the JSONL bytes one stored message
# takes on average (measured: lazy's message count over the corpus size), to size a corpus by messages
DENSE_TOOL_BYTES = 150
DENSE_BYTES_PER_MESSAGE = 1_700

# rewrites a user prompt before it is written: (prompt, cwd, ISO timestamp) -> prompt
Planter = Callable[[str, str, str], str]

# --------------------------------------------------------------------------------------------------
# small helpers

_B62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_BASE_EPOCH = 1_788_220_800.0  # 2026-09-01T00:00:00Z
_SPAN_SECONDS = 85 * 86_400  # sessions start between Sep 1 and late Nov 2026


def _uuid(rng: random.Random) -> str:
    h = f"{rng.getrandbits(128):032x}"
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{'89ab'[int(h[16], 16) & 3]}{h[17:20]}-{h[20:]}"


def new_uuid(seed: int) -> str:
    """A uuid4-shaped id drawn deterministically from ``seed``."""
    return _uuid(random.Random(seed))


def _b62(rng: random.Random, k: int) -> str:
    return "".join(rng.choices(_B62, k=k))


def _iso(t: float) -> str:
    s = int(t)
    g = time.gmtime(s)
    ms = int((t - s) * 1000)
    return (
        f"{g.tm_year:04d}-{g.tm_mon:02d}-{g.tm_mday:02d}T"
        f"{g.tm_hour:02d}:{g.tm_min:02d}:{g.tm_sec:02d}.{ms:03d}Z"
    )


def project_dir_name(cwd: str) -> str:
    """Claude Code's directory name for a cwd: every character outside [A-Za-z0-9] becomes '-'."""
    return re.sub(r"[^A-Za-z0-9]", "-", cwd)


# --------------------------------------------------------------------------------------------------
# filler vocabulary

_WORDS_TEXT = """
user session config parser token cache store index builder import export render query result
handler request response client server message stream buffer reader writer path file entry
record event hook task queue worker pool state model view item node tree graph edge batch chunk
offset limit page cursor schema field value key hash digest retry timeout error status report
metric trace span log filter sort merge split join load save fetch parse build apply resolve
validate encode decode compress flush sync watch scan match search rank score sidecar capture
archive line blob window frame layout panel
"""
_WORDS = tuple(_WORDS_TEXT.split())
_TYPES = ("str", "int", "bytes", "Path", "dict[str, Any]", "list[str]", "Record", "Session", "None")
_CLASSES_TEXT = """
Store Session Record Builder Parser Reader Writer Importer Index Query Cursor Batch Pipeline
Sweep Watcher Registry Config Message Transcript Capture Archive Schema Migration
"""
_CLASSES = tuple(_CLASSES_TEXT.split())
_EXC = ("ValueError", "KeyError", "RuntimeError", "StoreError", "ParseError", "TimeoutError")
_MODULES = ("os", "re", "json", "time", "sqlite3", "logging", "pathlib", "typing", "itertools")
_COMMENTS = (
    "keep the order stable: callers rely on it",
    "TODO: batch these writes",
    "fast path: nothing changed since the last sweep",
    "the file may be half-written; stop at the last newline",
    "see the design notes for why this is not a set",
    "retry once; the lock is usually released quickly",
    "NOTE: timestamps are UTC with milliseconds",
    "this is O(n) but n is small",
)
_SENTENCES = (
    "I'll start by looking at how {w} is handled in `{f}`.",
    "The failure comes from `{f}` returning `None` when the {w} is empty.",
    "Let me check the tests for the {w} {w2} before changing anything.",
    "This looks like an off-by-one in the {w} offset calculation.",
    "The {C} class already exposes a `{f}` method, so we can reuse it here.",
    "I've updated `{f}` to handle the {w} case and added a regression test.",
    "All {n} tests pass now, including the new ones for the {w} path.",
    "There are two options: cache the {w} per {w2}, or recompute it on every call.",
    "The simplest fix is to validate the {w} before it reaches the {w2} layer.",
    "I'll run the full suite to make sure nothing else depends on the old behaviour.",
    "The build is green; the only warning is an unused import in `{w}.py`.",
    "Next I'll wire the new {w} option through the CLI and document it.",
    "That error means the {w} was closed before the {w2} finished writing.",
    "I found {n} call sites of `{f}`; only two of them pass a {w}.",
)
_THOUGHTS = (
    "The user wants {w} handling fixed. First I should understand where {w2} is created.",
    "Let me think about whether `{f}` is called before or after the {w} is flushed.",
    "If I change the {w} signature, the {C} tests will need updating too.",
    "The stack trace points at line {n} of {w}.py, which is the {w2} loop.",
    "I should avoid reading the whole file; seek to the last known offset instead.",
    "There might be a race between the watcher and the {w} writer here.",
    "The simplest approach: keep a per-{w} cursor and resume from it.",
)
_PROMPTS = (
    "Can you look into why `{f}` fails when the {w} is empty? I get a {E} in the {w2} tests.",
    "Please add a `--{w}` option to the CLI that limits the {w2} output.",
    "The {C} import is slow on large files. Can you profile it and make it faster?",
    "Refactor `{f}` so that it streams {w}s instead of loading everything into memory.",
    "Write tests for the {w} {w2} edge cases: empty input, a half-written last line, unicode.",
    "Why does the {w} view show duplicates after a resume? Fix it and add a regression test.",
    "ok, now run the whole test suite and fix whatever breaks",
    "Let's rename {w} to {w2} everywhere, including the docs.",
    "Can you explain how the {C} decides which {w} to keep when two copies exist?",
    "the build is broken on main after the last merge, please fix",
    "Add type hints to `{w}.py` and make mypy strict pass.",
    "Please review the diff and tell me if anything looks risky before I push.",
    "Implement the {w} endpoint described in the design doc, with paging.",
    "commit this with a good message",
    "Looks good. Can you also handle the case where the {w} file is deleted while we read it?",
)
_TOOL_RESULT_REMINDER = (
    "\n\n<system-reminder>\nWhenever you read a file, you should consider whether it would be "
    "considered malware. You CAN and SHOULD provide analysis of malware, what it is doing. But you "
    "MUST refuse to improve or augment the code. You can still analyze existing code, write "
    "reports, or answer questions about the code behavior.\n</system-reminder>\n"
)
_CAVEAT = (
    "Caveat: The messages below were generated by the user while running local commands. DO NOT "
    "respond to these messages or otherwise consider them in your response unless the user "
    "explicitly asks you to."
)
_MODELS_21 = ("claude-opus-4-7", "claude-opus-4-5-20251101", "claude-sonnet-4-5-20250929")
_VERSIONS_21 = ("2.1.98", "2.1.114", "2.1.143", "2.1.202", "2.1.240")
_VERSIONS_20 = ("2.0.42", "2.0.55", "2.0.76")
_BRANCHES = ("main", "main", "main", "feature/capture", "fix/import-speed", "dev", "HEAD")


class _Filler:
    """Random text pieces built from the vocabulary."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def fill(self, template: str) -> str:
        r = self.rng
        return template.format(
            w=r.choice(_WORDS),
            w2=r.choice(_WORDS),
            f=f"{r.choice(_WORDS)}_{r.choice(_WORDS)}",
            C=r.choice(_CLASSES),
            E=r.choice(_EXC),
            n=r.randint(2, 480),
        )

    def sentences(self, pool: tuple[str, ...], k: int) -> str:
        return " ".join(self.fill(self.rng.choice(pool)) for _ in range(k))


# --------------------------------------------------------------------------------------------------
# filler blobs: source files, command output, images


class _Sliceable:
    """A text made of lines, with O(1) slicing of line windows."""

    def __init__(self, lines: list[str]) -> None:
        self.text = "\n".join(lines) + "\n"
        self.starts: list[int] = []
        pos = 0
        for line in lines:
            self.starts.append(pos)
            pos += len(line) + 1
        self.starts.append(pos)
        self.n = len(lines)

    def window(self, first: int, count: int) -> str:
        first = max(0, min(first, self.n - 1))
        last = min(self.n, first + max(1, count))
        return self.text[self.starts[first] : self.starts[last] - 1]

    def window_bytes(self, rng: random.Random, approx_chars: int) -> str:
        """A window of whole lines of roughly ``approx_chars`` characters at a random place."""
        if approx_chars >= len(self.text):
            return self.text[:-1]
        start = rng.randrange(0, len(self.text) - approx_chars)
        i = bisect.bisect_right(self.starts, start) - 1
        j = bisect.bisect_left(self.starts, self.starts[i] + approx_chars)
        return self.window(i, max(1, j - i))


@dataclass
class _SourceFile:
    path: str
    raw: _Sliceable
    numbered: _Sliceable


def _code_lines(rng: random.Random, n_lines: int, ts: bool) -> list[str]:
    w, C, T = _WORDS, _CLASSES, _TYPES
    out: list[str] = []
    if ts:
        for _ in range(rng.randint(2, 6)):
            out.append(f"import {{ {rng.choice(C)} }} from './{rng.choice(w)}';")
    else:
        for _ in range(rng.randint(2, 6)):
            out.append(f"from {rng.choice(_MODULES)} import {rng.choice(C)}, {rng.choice(w)}")
    out.append("")
    while len(out) < n_lines:
        fname = f"{rng.choice(w)}_{rng.choice(w)}"
        a, b, v = rng.choice(w), rng.choice(w), rng.choice(w)
        if ts:
            out.append(f"export async function {fname}({a}: {rng.choice(C)}, {b}?: number) {{")
            for _ in range(rng.randint(3, 18)):
                k = rng.random()
                if k < 0.3:
                    out.append(f"  const {v}{rng.randint(1, 9)} = await {a}.{rng.choice(w)}({b});")
                elif k < 0.45:
                    out.append(f"  if (!{v}) {{ throw new Error('{rng.choice(w)} missing'); }}")
                elif k < 0.6:
                    out.append(f"  // {rng.choice(_COMMENTS)}")
                elif k < 0.8:
                    out.append(f"  for (const {v} of {a}.{rng.choice(w)}s) {{ {b} += {v}.size; }}")
                else:
                    out.append(f"  {a}.{rng.choice(w)} = {rng.randint(0, 4096)};")
            out.append(f"  return {v};")
            out.append("}")
        else:
            if rng.random() < 0.2:
                out.append(f"class {rng.choice(C)}{rng.choice(C)}:")
                out.append(f'    """{rng.choice(_COMMENTS).capitalize()}."""')
                out.append("")
            ind = "    " if out[-1] == "" and len(out) > 1 and out[-2].startswith('    """') else ""
            out.append(f"{ind}def {fname}({a}: {rng.choice(T)}, {b}: {rng.choice(T)} = None):")
            for _ in range(rng.randint(3, 18)):
                k = rng.random()
                if k < 0.3:
                    out.append(f"{ind}    {v} = {a}.{rng.choice(w)}({b}, {rng.randint(0, 99)})")
                elif k < 0.42:
                    out.append(f"{ind}    if {v} is None:")
                    out.append(
                        f'{ind}        raise {rng.choice(_EXC)}(f"{rng.choice(w)} {{{v}!r}}")'
                    )
                elif k < 0.55:
                    out.append(f"{ind}    # {rng.choice(_COMMENTS)}")
                elif k < 0.75:
                    out.append(f"{ind}    for {v} in {a}.{rng.choice(w)}s():")
                    out.append(f"{ind}        {b}[{v}.{rng.choice(w)}] = {v}")
                else:
                    out.append(
                        f'{ind}    log.debug("{rng.choice(w)} %s took %.2fms", {v}, dt * 1000)'
                    )
            out.append(f"{ind}    return {v}")
        out.append("")
    return out[:n_lines]


def _log_lines(rng: random.Random, kind: str, n: int) -> list[str]:
    w = _WORDS
    out: list[str] = []
    while len(out) < n:
        a, b = rng.choice(w), rng.choice(w)
        if kind == "pytest":
            res = rng.choices(("PASSED", "FAILED", "SKIPPED"), (0.9, 0.07, 0.03))[0]
            pct = rng.randint(0, 100)
            out.append(f"tests/unit/test_{a}.py::test_{b}_{rng.choice(w)} {res:<8} [{pct:3d}%]")
            if res == "FAILED" and rng.random() < 0.5:
                out.append(f'  File "/home/u/proj/src/{a}.py", line {rng.randint(1, 900)}, in {b}')
                out.append(f"    {b} = self.{a}.{rng.choice(w)}()")
                x, y = rng.randint(0, 99), rng.randint(0, 99)
                out.append(f"E   AssertionError: assert {x} == {y}")
        elif kind == "git":
            out.append(
                f"{rng.getrandbits(28):07x} "
                f"{rng.choice(('Fix', 'Add', 'Refactor', 'Test', 'Docs'))} {a} {b} in "
                f"{rng.choice(_CLASSES)}"
            )
        elif kind == "npm":
            out.append(
                rng.choice(
                    (
                        f"npm WARN deprecated {a}-{b}@{rng.randint(0, 9)}.{rng.randint(0, 20)}.0: "
                        "this package is no longer maintained",
                        f"added {rng.randint(1, 900)} packages, and audited "
                        f"{rng.randint(900, 2000)} packages in {rng.randint(1, 40)}s",
                        f"dist/assets/{a}-{rng.getrandbits(32):08x}.js   "
                        f"{rng.randint(1, 900)}.{rng.randint(0, 99)} kB │ gzip: "
                        f"{rng.randint(1, 300)}.{rng.randint(0, 99)} kB",
                        f"✓ {rng.randint(10, 3000)} modules transformed.",
                        f"src/{a}.ts({rng.randint(1, 400)},{rng.randint(1, 80)}): error TS2345: "
                        f"Argument of type '{rng.choice(_CLASSES)}' is not assignable to "
                        f"parameter of type '{rng.choice(_CLASSES)}'.",
                    )
                )
            )
        else:  # ls
            out.append(
                f"-rw-r--r--  1 u  staff  {rng.randint(0, 90000):>6} Nov {rng.randint(1, 29):2d} "
                f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d} {a}_{b}.py"
            )
    return out


def _png(rng: random.Random, width: int, height: int) -> bytes:
    """A valid, incompressible RGB PNG (noise), so its size is about width*height*3."""

    def chunk(tag: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data))

    row = width * 3
    noise = rng.randbytes(row * height)
    raw = b"".join(b"\x00" + noise[y * row : (y + 1) * row] for y in range(height))
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + chunk(b"IDAT", zlib.compress(raw, 1))
        + chunk(b"IEND", b"")
    )


@dataclass
class _Image:
    b64: str
    size: int
    width: int
    height: int


class _Blobs:
    def __init__(self, seed: int) -> None:
        rng = random.Random(seed ^ 0x5EED)
        self.files: list[_SourceFile] = []
        for i in range(240):
            ts = rng.random() < 0.35
            n = int(min(1800, max(12, rng.lognormvariate(math.log(100), 0.9))))
            lines = _code_lines(rng, n, ts)
            sub = rng.choice(("src", "src/lazy", "src/lazy/store", "tests/unit", "web/src"))
            name = f"{rng.choice(_WORDS)}_{rng.choice(_WORDS)}{i}.{'ts' if ts else 'py'}"
            numbered = [f"{k + 1:>6}→{line}" for k, line in enumerate(lines)]
            self.files.append(_SourceFile(f"{sub}/{name}", _Sliceable(lines), _Sliceable(numbered)))
        kinds = ("pytest", "git", "npm", "ls")
        self.logs = {k: _Sliceable(_log_lines(rng, k, 9000)) for k in kinds}
        prose = [_Filler(rng).sentences(_SENTENCES, rng.randint(2, 6)) for _ in range(3000)]
        self.prose = _Sliceable(prose)
        self.signature = base64.b64encode(rng.randbytes(48_000)).decode()
        # images: small screenshot (~45 KB), medium (~300 KB), large (~820 KB -> 1.1 MB base64)
        self.images: list[_Image] = []
        for w, h in ((160, 96), (400, 250), (640, 427)):
            png = _png(rng, w, h)
            self.images.append(_Image(base64.b64encode(png).decode(), len(png), w, h))


_BLOBS: dict[int, _Blobs] = {}


def prose_text(rng: random.Random, blobs: _Blobs, fill: _Filler, lo: int, hi: int) -> str:
    """An assistant's or user's words: prose, sometimes a fenced code excerpt, sometimes a list."""
    out = blobs.prose.window(rng.randrange(blobs.prose.n), rng.randint(lo, hi))
    if rng.random() < 0.25:
        f = rng.choice(blobs.files)
        lang = "typescript" if f.path.endswith(".ts") else "python"
        code = f.raw.window(rng.randrange(f.raw.n), rng.randint(4, 30))
        out += f"\n\n```{lang}\n{code}\n```\n\n" + fill.sentences(_SENTENCES, 2)
    if rng.random() < 0.3:
        out += "\n\n" + "\n".join(
            f"- {fill.fill(rng.choice(_SENTENCES))}" for _ in range(rng.randint(2, 6))
        )
    return out


def _blobs(seed: int) -> _Blobs:
    b = _BLOBS.get(seed)
    if b is None:
        b = _BLOBS[seed] = _Blobs(seed)
    return b


# --------------------------------------------------------------------------------------------------
# statistics


@dataclass
class Stats:
    bytes: int = 0
    lines: int = 0
    files: int = 0
    user_lines: int = 0
    assistant_lines: int = 0
    api_messages: int = 0
    tool_calls: int = 0
    prompts: int = 0
    images: int = 0
    big_lines: int = 0  # lines >= 1 MB
    max_line: int = 0
    compactions: int = 0
    subagent_files: int = 0
    clear_sessions: int = 0
    snapshot_lines: int = 0
    queue_lines: int = 0

    def add(self, other: Stats) -> None:
        for k, v in asdict(other).items():
            if k == "max_line":
                self.max_line = max(self.max_line, v)
            else:
                setattr(self, k, getattr(self, k) + v)


# --------------------------------------------------------------------------------------------------
# the writer: one transcript file


class _Writer:
    """Emits the lines of one transcript file (main session or subagent), keeping the chain."""

    def __init__(
        self,
        fh: IO[bytes],
        rng: random.Random,
        blobs: _Blobs,
        stats: Stats,
        *,
        session_id: str,
        cwd: str,
        version: str,
        git_branch: str,
        model: str,
        clock: float,
        agent_id: str | None = None,
        dense: bool = False,
        planter: Planter | None = None,
    ) -> None:
        self.fh = fh
        self.dense = dense
        self.planter = planter
        self.rng = rng
        self.blobs = blobs
        self.stats = stats
        self.fill = _Filler(rng)
        self.session_id = session_id
        self.cwd = cwd
        self.version = version
        self.modern = version.startswith("2.1")
        self.model = model
        self.clock = clock
        self.agent_id = agent_id
        self.sidechain = agent_id is not None
        self.parent: str | None = None
        self.bytes = 0
        self.prompt_id = ""
        self.todos: list[dict[str, str]] = []
        if self.modern:
            self.tail: dict[str, Any] = {
                "userType": "external",
                "entrypoint": "cli",
                "cwd": cwd,
                "sessionId": session_id,
                "version": version,
                "gitBranch": git_branch,
            }
            self.head_old: dict[str, Any] = {}
        else:
            self.tail = {}
            self.head_old = {
                "userType": "external",
                "cwd": cwd,
                "sessionId": session_id,
                "version": version,
                "gitBranch": git_branch,
            }

    # -- output ------------------------------------------------------------------------------

    def emit(self, obj: dict[str, Any]) -> None:
        data = orjson.dumps(obj) + b"\n"
        self.fh.write(data)
        n = len(data)
        self.bytes += n
        st = self.stats
        st.bytes += n
        st.lines += 1
        if n > st.max_line:
            st.max_line = n
        if n >= 1_000_000:
            st.big_lines += 1

    def tick(self, lo: float = 0.05, hi: float = 2.0) -> str:
        self.clock += self.rng.uniform(lo, hi)
        return _iso(self.clock)

    def _start(self, parent: str | None) -> dict[str, Any]:
        d: dict[str, Any] = {"parentUuid": parent, "isSidechain": self.sidechain}
        if self.head_old:
            d.update(self.head_old)
        return d

    # -- line kinds ----------------------------------------------------------------------------

    def user(
        self,
        content: Any,
        *,
        extra: dict[str, Any] | None = None,
        tool_result: Any = None,
        source_uuid: str | None = None,
        parent: Any = "chain",
        meta: bool = False,
        uuid: str | None = None,
        ts: str | None = None,
    ) -> str:
        u = uuid or _uuid(self.rng)
        d = self._start(self.parent if parent == "chain" else parent)
        if self.modern and self.prompt_id:
            d["promptId"] = self.prompt_id
        if self.agent_id:
            d["agentId"] = self.agent_id
        d["type"] = "user"
        d["message"] = {"role": "user", "content": content}
        if meta:
            d["isMeta"] = True
        if extra:
            d.update(extra)
        d["uuid"] = u
        d["timestamp"] = ts or self.tick()
        if tool_result is not None:
            d["toolUseResult"] = tool_result
            if self.modern and source_uuid:
                d["sourceToolAssistantUUID"] = source_uuid
        d.update(self.tail)
        self.emit(d)
        self.parent = u
        self.stats.user_lines += 1
        return u

    def assistant_message(
        self, blocks: list[dict[str, Any]], stop_reason: str, out_tokens: int
    ) -> list[str]:
        """One API response, one line per content block, all sharing message.id and requestId."""
        rng = self.rng
        msg_id = "msg_01" + _b62(rng, 22)
        req_id = "req_011C" + _b62(rng, 16)
        cache_read = rng.randint(10_000, 150_000)
        usage: dict[str, Any] = {
            "input_tokens": rng.randint(1, 12),
            "cache_creation_input_tokens": rng.randint(0, 9000),
            "cache_read_input_tokens": cache_read,
            "output_tokens": out_tokens,
            "service_tier": "standard",
        }
        if self.modern:
            usage["server_tool_use"] = {"web_search_requests": 0, "web_fetch_requests": 0}
            usage["cache_creation"] = {
                "ephemeral_1h_input_tokens": usage["cache_creation_input_tokens"],
                "ephemeral_5m_input_tokens": 0,
            }
        uuids: list[str] = []
        for block in blocks:
            u = _uuid(rng)
            d = self._start(self.parent)
            if self.agent_id:
                d["agentId"] = self.agent_id
            message: dict[str, Any] = {
                "model": self.model,
                "id": msg_id,
                "type": "message",
                "role": "assistant",
                "content": [block],
                "stop_reason": stop_reason,
                "stop_sequence": None,
                "usage": usage,
            }
            d["message"] = message
            d["requestId"] = req_id
            d["type"] = "assistant"
            d["uuid"] = u
            d["timestamp"] = self.tick(0.2, 4.0)
            d.update(self.tail)
            self.emit(d)
            self.parent = u
            uuids.append(u)
        self.stats.assistant_lines += len(blocks)
        self.stats.api_messages += 1
        return uuids

    def attachment(self, att: dict[str, Any]) -> None:
        u = _uuid(self.rng)
        d = self._start(self.parent)
        if self.agent_id:
            d["agentId"] = self.agent_id
        d["attachment"] = att
        d["type"] = "attachment"
        d["uuid"] = u
        d["timestamp"] = self.tick(0.01, 0.2)
        d.update(self.tail)
        self.emit(d)
        self.parent = u

    def system(self, subtype: str, fields: dict[str, Any], parent: Any = "chain") -> str:
        u = _uuid(self.rng)
        d = self._start(self.parent if parent == "chain" else parent)
        if self.agent_id:
            d["agentId"] = self.agent_id
        d["type"] = "system"
        d["subtype"] = subtype
        d.update(fields)
        d["timestamp"] = self.tick(0.01, 0.5)
        d["uuid"] = u
        d.update(self.tail)
        self.emit(d)
        self.parent = u
        return u

    def snapshot(self, message_id: str) -> None:
        backups: dict[str, Any] = {}
        if self.todos and self.rng.random() < 0.6:
            for f in self.rng.sample(self.blobs.files, self.rng.randint(1, 4)):
                backups[f"{self.cwd}/{f.path}"] = {
                    "backupFileName": f"{self.rng.getrandbits(64):016x}@v{self.rng.randint(1, 5)}",
                    "version": self.rng.randint(1, 5),
                    "backupTime": _iso(self.clock),
                }
        self.emit(
            {
                "type": "file-history-snapshot",
                "messageId": message_id,
                "snapshot": {
                    "messageId": message_id,
                    "trackedFileBackups": backups,
                    "timestamp": _iso(self.clock),
                },
                "isSnapshotUpdate": False,
            }
        )
        self.stats.snapshot_lines += 1

    def queue_operation(self, text: str) -> None:
        ts = self.tick(0.0, 0.01)
        content: Any = text if self.modern else [{"type": "text", "text": text}]
        self.emit(
            {
                "type": "queue-operation",
                "operation": "enqueue",
                "timestamp": ts,
                "content": content,
                "sessionId": self.session_id,
            }
        )
        self.emit(
            {
                "type": "queue-operation",
                "operation": "dequeue",
                "timestamp": self.tick(0.0, 0.01),
                "sessionId": self.session_id,
            }
        )
        self.stats.queue_lines += 2

    def hook_success(self, event: str, name: str, tool_use_id: str) -> None:
        if not self.modern or self.dense:
            return
        self.attachment(
            {
                "type": "hook_success",
                "hookName": name,
                "toolUseID": tool_use_id,
                "hookEvent": event,
                "content": "",
                "stdout": "",
                "stderr": "",
                "exitCode": 0,
                "command": "${CLAUDE_PLUGIN_ROOT}/scripts/status.sh busy",
                "durationMs": self.rng.randint(40, 400),
            }
        )

    # -- content -------------------------------------------------------------------------------

    def text(self, lo: int, hi: int) -> str:
        return prose_text(self.rng, self.blobs, self.fill, lo, hi)

    def thinking_block(self) -> dict[str, Any]:
        rng = self.rng
        sig_len = int(min(40_000, rng.lognormvariate(math.log(1500), 1.0)))
        if self.dense:
            sig_len = min(sig_len, 60)
        start = rng.randrange(0, len(self.blobs.signature) - sig_len)
        sig = "Eo" + self.blobs.signature[start : start + sig_len]
        if self.model == "claude-opus-4-7":  # thinking is not returned, only the signature
            return {"type": "thinking", "thinking": "", "signature": sig}
        thought = self.fill.sentences(_THOUGHTS, rng.randint(1, 8))
        return {"type": "thinking", "thinking": thought, "signature": sig}


# --------------------------------------------------------------------------------------------------
# tools: a tool_use input, the tool_result content and the structured toolUseResult


# the shell commands of generated tool calls, by the kind of log they print (pytest twice as
# often as the rest)
LOG_KINDS = ("pytest", "pytest", "git", "npm", "ls")
LOG_COMMANDS = {
    "pytest": "python -m pytest -q tests/",
    "git": "git log --oneline -50",
    "npm": "npm run build 2>&1 | tail -200",
    "ls": "ls -la src/",
}


def _tool_id(rng: random.Random) -> str:
    return "toolu_01" + _b62(rng, 22)


class _ToolCall(NamedTuple):
    name: str
    input: dict[str, Any]
    content: Any  # tool_result content (string or blocks)
    result: Any  # toolUseResult
    is_error: bool = False


def _make_tool(w: _Writer, budget: int) -> _ToolCall:
    cap = max(600, budget) if not w.dense else DENSE_TOOL_BYTES
    kind = w.rng.choices(
        ("Read", "Bash", "Edit", "Grep", "Glob", "Write", "TodoWrite", "WebFetch"),
        (0.31, 0.29, 0.14, 0.08, 0.04, 0.04, 0.06, 0.04),
    )[0]
    if kind in ("Edit", "Write"):
        return _edit_tool(w, cap, kind)
    return _TOOLS[kind](w, cap)


def _read_tool(w: _Writer, cap: int) -> _ToolCall:
    rng, blobs, cwd = w.rng, w.blobs, w.cwd
    f = rng.choice(blobs.files)
    path = f"{cwd}/{f.path}"
    n = f.raw.n
    first, count = 0, n
    if n > 400 and rng.random() < 0.3:
        first = rng.randrange(n - 100)
        count = rng.randint(50, 400)
    # keep the bulky result within the budget (both copies, numbered and raw)
    approx_per_line = len(f.numbered.text) / max(1, n) * 2 + 1
    count = max(1, min(count, int(cap / approx_per_line)))
    numbered = f.numbered.window(first, count)
    raw = f.raw.window(first, count)
    inp = {"file_path": path}
    if first:
        inp.update(offset=first + 1, limit=count)
    result = {
        "type": "text",
        "file": {
            "filePath": path,
            "content": raw,
            "numLines": count,
            "startLine": first + 1,
            "totalLines": n,
        },
    }
    return _ToolCall("Read", inp, numbered + _TOOL_RESULT_REMINDER, result)


def _bash_tool(w: _Writer, cap: int) -> _ToolCall:
    rng, blobs = w.rng, w.blobs
    log_kind = rng.choice(LOG_KINDS)
    cmd = LOG_COMMANDS[log_kind]
    size = int(min(30_000, cap / 2, rng.lognormvariate(math.log(1500), 1.2)))
    out = blobs.logs[log_kind].window_bytes(rng, max(40, size))
    result = {
        "stdout": out,
        "stderr": "",
        "interrupted": False,
        "isImage": False,
        "noOutputExpected": False,
    }
    inp = {"command": cmd, "description": w.fill.fill("Run {w} checks")}
    return _ToolCall("Bash", inp, out, result)


def _edit_tool(w: _Writer, cap: int, kind: str) -> _ToolCall:
    rng, blobs, cwd = w.rng, w.blobs, w.cwd
    f = rng.choice(blobs.files)
    path = f"{cwd}/{f.path}"
    original = f.raw.text[:-1]
    if len(original) * 2 > cap:
        original = original[: max(200, cap // 2)]
    if kind == "Write":
        inp = {"file_path": path, "content": original}
        result = {
            "type": "create",
            "filePath": path,
            "content": original,
            "structuredPatch": [],
        }
        return _ToolCall("Write", inp, f"File created successfully at: {path}", result)
    at = rng.randrange(max(1, min(f.raw.n, original.count("\n") + 1)))
    old = f.raw.window(at, rng.randint(1, 8))
    new = old + "\n" + f"    # {rng.choice(_COMMENTS)}"
    snippet = f.numbered.window(max(0, at - 4), 12)
    inp = {"file_path": path, "old_string": old, "new_string": new}
    result = {
        "filePath": path,
        "oldString": old,
        "newString": new,
        "originalFile": original,
        "structuredPatch": [
            {
                "oldStart": at + 1,
                "oldLines": old.count("\n") + 1,
                "newStart": at + 1,
                "newLines": new.count("\n") + 1,
                "lines": [" " + x for x in old.split("\n")] + ["+" + new.split("\n")[-1]],
            }
        ],
        "userModified": False,
        "replaceAll": False,
    }
    content = (
        f"The file {path} has been updated. Here's the result of running `cat -n` on a "
        f"snippet of the edited file:\n{snippet}"
    )
    return _ToolCall("Edit", inp, content, result)


def _grep_tool(w: _Writer, cap: int) -> _ToolCall:
    rng, blobs = w.rng, w.blobs
    pattern = rng.choice(_WORDS)
    hits = []
    for f in rng.sample(blobs.files, rng.randint(1, 12)):
        for _ in range(rng.randint(1, 6)):
            k = rng.randrange(f.raw.n)
            hits.append(f"{f.path}:{k + 1}:{f.raw.window(k, 1)}")
    content = "\n".join(hits)[: max(200, cap)]
    inp = {"pattern": pattern, "output_mode": "content", "-n": True}
    result = {
        "mode": "content",
        "numFiles": 0,
        "filenames": [],
        "content": content,
        "numLines": content.count("\n") + 1,
    }
    return _ToolCall("Grep", inp, content, result)


def _glob_tool(w: _Writer, cap: int) -> _ToolCall:
    rng, blobs, cwd = w.rng, w.blobs, w.cwd
    many = 6 if w.dense else 60
    names = [f"{cwd}/{f.path}" for f in rng.sample(blobs.files, rng.randint(3, many))]
    inp = {"pattern": rng.choice(("**/*.py", "src/**/*.ts", "tests/**/*.py"))}
    result = {
        "filenames": names,
        "durationMs": rng.randint(3, 90),
        "numFiles": len(names),
        "truncated": False,
    }
    return _ToolCall("Glob", inp, "\n".join(names), result)


def _todo_tool(w: _Writer, cap: int) -> _ToolCall:
    rng = w.rng
    old_todos = w.todos
    new_todos = [
        {
            "content": w.fill.fill("Fix {w} handling in {f}"),
            "status": rng.choice(("pending", "in_progress", "completed")),
            "activeForm": w.fill.fill("Fixing {w} handling"),
        }
        for _ in range(rng.randint(2, 7))
    ]
    w.todos = new_todos
    content = (
        "Todos have been modified successfully. Ensure that you continue to use the todo list "
        "to track your progress. Please proceed with the current tasks if applicable"
    )
    return _ToolCall(
        "TodoWrite",
        {"todos": new_todos},
        content,
        {"oldTodos": old_todos, "newTodos": new_todos},
    )


def _webfetch_tool(w: _Writer, cap: int) -> _ToolCall:
    rng = w.rng
    url = f"https://docs.example.org/{rng.choice(_WORDS)}/{rng.choice(_WORDS)}.html"
    text = w.text(4, 40)[: max(200, cap // 2)]
    result = {
        "bytes": len(text) * 7,
        "code": 200,
        "codeText": "OK",
        "result": text,
        "durationMs": rng.randint(300, 9000),
        "url": url,
    }
    inp = {"url": url, "prompt": w.fill.fill("How does {w} {w2} work?")}
    return _ToolCall("WebFetch", inp, text, result)


_TOOLS: dict[str, Callable[[_Writer, int], _ToolCall]] = {
    "Read": _read_tool,
    "Bash": _bash_tool,
    "Grep": _grep_tool,
    "Glob": _glob_tool,
    "TodoWrite": _todo_tool,
    "WebFetch": _webfetch_tool,
}


def _image_tool(w: _Writer, image: _Image) -> _ToolCall:
    path = f"{w.cwd}/screenshots/shot-{w.rng.randint(1, 999)}.png"
    source = {"type": "base64", "data": image.b64, "media_type": "image/png"}
    content = [{"type": "image", "source": source}]
    result = {
        "type": "image",
        "file": {
            "base64": image.b64,
            "type": "image/png",
            "originalSize": image.size,
            "dimensions": {
                "originalWidth": image.width,
                "originalHeight": image.height,
                "displayWidth": image.width,
                "displayHeight": image.height,
            },
        },
    }
    return _ToolCall("Read", {"file_path": path}, content, result)


# --------------------------------------------------------------------------------------------------
# a session


@dataclass
class Features:
    """Force features into a session (tiny corpora still get each one)."""

    compaction: bool = False
    clear: bool = False
    subagent: bool = False
    image: bool = False
    big_line: bool = False
    queue: bool = False


@dataclass
class SessionInfo:
    path: Path
    session_id: str
    cwd: str
    version: str
    git_branch: str
    last_uuid: str | None
    bytes: int  # main file + subagent files
    main_bytes: int
    subagent_files: list[Path] = field(default_factory=list)
    stats: Stats = field(default_factory=Stats)


class _SessionGen:
    def __init__(
        self,
        w: _Writer,
        target: int,
        features: Features,
        subagent_dir: Path | None,
        allow_subagents: bool,
    ) -> None:
        self.w = w
        self.target = target
        self.features = features
        self.subagent_dir = subagent_dir
        self.allow_subagents = allow_subagents and w.modern and not w.sidechain
        self.sub_bytes = 0
        self.subagent_files: list[Path] = []
        self.next_compaction = w.rng.uniform(1.5e6, 4.5e6)
        self.since_compaction = 0

    @property
    def total(self) -> int:
        return self.w.bytes + self.sub_bytes

    def remaining(self) -> int:
        return self.target - self.total

    # -- steps ----------------------------------------------------------------------------------

    def tool_step(self, call: _ToolCall, with_text: bool) -> None:
        w = self.w
        blocks: list[dict[str, Any]] = []
        if w.rng.random() < 0.45 and not w.dense:
            blocks.append(w.thinking_block())
        if with_text:
            blocks.append({"type": "text", "text": w.text(1, 3)})
        tid = _tool_id(w.rng)
        use: dict[str, Any] = {
            "type": "tool_use",
            "id": tid,
            "name": call.name,
            "input": call.input,
        }
        if w.modern:
            use["caller"] = {"type": "direct"}
        blocks.append(use)
        uuids = w.assistant_message(blocks, "tool_use", w.rng.randint(40, 3000))
        block: dict[str, Any] = {"tool_use_id": tid, "type": "tool_result", "content": call.content}
        if isinstance(call.content, str):
            block["is_error"] = call.is_error
        w.clock += w.rng.uniform(0.05, 8.0)
        w.user([block], tool_result=call.result, source_uuid=uuids[-1])
        w.stats.tool_calls += 1
        if w.modern and w.rng.random() < 0.3:
            w.hook_success("PostToolUse", f"PostToolUse:{call.name}", tid)

    def subagent_step(self) -> None:
        w = self.w
        rng = w.rng
        assert self.subagent_dir is not None
        agent_id = "a" + f"{rng.getrandbits(64):016x}"
        desc = w.fill.fill("Investigate {w} {w2} handling")
        prompt = (
            f"You are a research subagent. {w.fill.sentences(_PROMPTS, 3)}\n\n"
            + w.blobs.prose.window(rng.randrange(w.blobs.prose.n), rng.randint(3, 20))
        )
        tid = _tool_id(rng)
        use = {
            "type": "tool_use",
            "id": tid,
            "name": "Agent",
            "input": {"description": desc, "subagent_type": "general-purpose", "prompt": prompt},
            "caller": {"type": "direct"},
        }
        blocks: list[dict[str, Any]] = [{"type": "text", "text": w.text(1, 2)}, use]
        uuids = w.assistant_message(blocks, "tool_use", rng.randint(200, 4000))
        # the subagent's own transcript
        self.subagent_dir.mkdir(parents=True, exist_ok=True)
        path = self.subagent_dir / f"agent-{agent_id}.jsonl"
        meta = {"agentType": "general-purpose", "description": desc}
        (self.subagent_dir / f"agent-{agent_id}.meta.json").write_bytes(orjson.dumps(meta))
        budget = int(min(3e6, max(8_000, self.remaining() * rng.uniform(0.05, 0.25))))
        with path.open("wb", buffering=1 << 20) as fh:
            sw = _Writer(
                fh,
                rng,
                w.blobs,
                w.stats,
                session_id=w.session_id,
                cwd=w.cwd,
                version=w.version,
                git_branch=w.tail["gitBranch"],
                model=w.model,
                clock=w.clock,
                agent_id=agent_id,
                dense=w.dense,
            )
            sw.prompt_id = w.prompt_id
            sw.user(prompt, parent=None)
            sub = _SessionGen(sw, budget, Features(), None, False)
            while sub.remaining() > 0:
                sub.tool_step(_make_tool(sw, sub.remaining() // 2), rng.random() < 0.4)
            report = sw.text(3, 12)
            sw.assistant_message([{"type": "text", "text": report}], "end_turn", 800)
        self.sub_bytes += sw.bytes
        self.subagent_files.append(path)
        w.stats.files += 1
        w.stats.subagent_files += 1
        w.clock = sw.clock + rng.uniform(0.5, 5)
        tail = (
            f"agentId: {agent_id} (use SendMessage with to: '{agent_id}' to continue this agent)\n"
            f"<usage>total_tokens: {rng.randint(5000, 90000)}\ntool_uses: "
            f"{rng.randint(1, 40)}\nduration_ms: {rng.randint(10_000, 600_000)}</usage>"
        )
        content = [{"type": "text", "text": report}, {"type": "text", "text": tail}]
        result = {
            "status": "completed",
            "prompt": prompt,
            "agentId": agent_id,
            "agentType": "general-purpose",
            "content": [{"type": "text", "text": report}],
            "totalDurationMs": rng.randint(10_000, 600_000),
            "totalTokens": rng.randint(5000, 90000),
            "totalToolUseCount": rng.randint(1, 40),
        }
        block = {"tool_use_id": tid, "type": "tool_result", "content": content}
        w.user([block], tool_result=result, source_uuid=uuids[-1])
        w.stats.tool_calls += 1

    def compaction(self) -> None:
        w = self.w
        last = w.parent
        boundary = w.system(
            "compact_boundary",
            {
                "logicalParentUuid": last,
                "content": "Conversation compacted",
                "isMeta": False,
                "level": "info",
                "compactMetadata": {
                    "trigger": "auto",
                    "preTokens": w.rng.randint(150_000, 190_000),
                },
            },
            parent=None,
        )
        summary = (
            "This session is being continued from a previous conversation that ran out of context. "
            "The conversation is summarized below:\nAnalysis:\n"
            + w.blobs.prose.window(w.rng.randrange(w.blobs.prose.n), w.rng.randint(10, 60))
            + "\n\nSummary:\n1. Primary Request and Intent:\n   "
            + w.fill.sentences(_PROMPTS, 3)
            + "\n\nPlease continue the conversation from where we left it off without asking "
            "the user any further questions. Continue with the last task that you were asked to "
            "work on."
        )
        w.user(
            summary,
            parent=boundary,
            extra={"isVisibleInTranscriptOnly": True, "isCompactSummary": True},
        )
        w.stats.compactions += 1
        self.since_compaction = 0
        self.next_compaction = w.rng.uniform(1.5e6, 4.5e6)

    def clear_start(self, caveat: tuple[str, str]) -> None:
        """A session begun by /clear: caveat (re-used uuid and timestamp), command, stdout."""
        w = self.w
        text = f"<local-command-caveat>{_CAVEAT}</local-command-caveat>" if w.modern else _CAVEAT
        w.user(text, parent=None, meta=True, uuid=caveat[0], ts=caveat[1])
        w.user(
            "<command-name>/clear</command-name>\n            <command-message>clear"
            "</command-message>\n            <command-args></command-args>"
        )
        w.user("<local-command-stdout></local-command-stdout>")
        w.stats.clear_sessions += 1

    def local_command(self) -> None:
        w = self.w
        cmd = w.rng.choice(("model", "context", "cost", "mcp"))
        w.user(
            f"<local-command-caveat>{_CAVEAT}</local-command-caveat>" if w.modern else _CAVEAT,
            meta=True,
        )
        w.user(
            f"<command-name>/{cmd}</command-name>\n            <command-message>{cmd}"
            "</command-message>\n            <command-args></command-args>"
        )
        w.user(f"<local-command-stdout>{w.fill.fill('Set {w} to {w2}')}</local-command-stdout>")

    def turn(
        self, force_image: bool = False, force_big: bool = False, force_queue: bool = False
    ) -> None:
        w = self.w
        rng = w.rng
        start = self.total
        w.clock += rng.uniform(5, 900)
        prompt = w.fill.fill(rng.choice(_PROMPTS))
        if rng.random() < 0.15:
            prompt += "\n\n" + w.text(2, 10)
        uuid = _uuid(rng)
        w.prompt_id = _uuid(rng) if w.modern else ""
        if force_queue or rng.random() < 0.06:
            w.queue_operation(prompt)
        if rng.random() < 0.8:
            w.snapshot(uuid)
        ts = None
        if w.planter is not None:  # the planted words need the prompt's project and time
            ts = w.tick()
            prompt = w.planter(prompt, w.cwd, ts)
        w.user(self._with_image(prompt, force_image, force_big), uuid=uuid, ts=ts)
        w.stats.prompts += 1
        if w.modern and rng.random() < 0.3:
            w.hook_success("UserPromptSubmit", "UserPromptSubmit", _uuid(rng))
        budget = self.remaining()
        steps = max(0, int(rng.lognormvariate(math.log(6), 0.9)) - 1)
        if budget < 20_000:
            steps = min(steps, budget // 6000)
        self._tool_steps(steps, force_image)
        blocks: list[dict[str, Any]] = []
        if rng.random() < (0.1 if w.dense else 0.3):
            blocks.append(w.thinking_block())
        blocks.append({"type": "text", "text": w.text(1, 4) if w.dense else w.text(2, 14)})
        w.assistant_message(blocks, "end_turn", rng.randint(50, 2500))
        if w.modern and rng.random() < 0.5:
            w.system(
                "turn_duration",
                {"durationMs": int((w.clock % 600) * 1000), "messageCount": steps * 2 + 2},
            )
        if w.modern and rng.random() < 0.1:
            w.emit({"type": "last-prompt", "lastPrompt": prompt[:200], "sessionId": w.session_id})
        self.since_compaction += self.total - start

    def _with_image(self, prompt: str, force_image: bool, force_big: bool) -> Any:
        """The prompt's content: its text, or (forced, or now and then) a pasted image and it."""
        w = self.w
        rng = w.rng
        image_roll = rng.random()
        if not (force_image or force_big or (image_roll < 0.015 and not w.dense)):
            return prompt
        if force_big:
            img = w.blobs.images[2]
        elif force_image:
            img = w.blobs.images[0]
        else:
            img = rng.choices(w.blobs.images, (0.6, 0.3, 0.1))[0]
            if len(img.b64) > self.remaining():
                img = w.blobs.images[0]
        w.stats.images += 1
        return [
            {
                "type": "image",
                "source": {"type": "base64", "media_type": "image/png", "data": img.b64},
            },
            {"type": "text", "text": "[Image #1] " + prompt},
        ]

    def _tool_steps(self, steps: int, force_image: bool) -> None:
        """A turn's model steps between prompt and answer: tool calls, images, subagents."""
        w = self.w
        rng = w.rng
        forced_agent = self.features.subagent and not self.subagent_files
        for i in range(steps):
            budget = self.remaining()
            if budget <= 0 and i > 0:
                break
            if self.allow_subagents and (forced_agent or (budget > 80_000 and rng.random() < 0.03)):
                self.subagent_step()
                forced_agent = False
                continue
            if (rng.random() < 0.003 and not w.dense) or (force_image and i == 0 and steps > 1):
                weights = (1.0, 0.0, 0.0) if force_image else (0.5, 0.35, 0.15)
                img = rng.choices(w.blobs.images, weights)[0]
                if 2 * len(img.b64) > budget:
                    img = w.blobs.images[0]
                self.tool_step(_image_tool(w, img), rng.random() < 0.3)
                w.stats.images += 1
                continue
            per_step = max(2_000, budget // max(1, steps - i))
            self.tool_step(_make_tool(w, int(per_step * rng.uniform(0.5, 1.5))), rng.random() < 0.3)
        if forced_agent and self.allow_subagents:
            self.subagent_step()


def _session_meta(rng: random.Random, cwd: str) -> tuple[str, str, str]:
    if rng.random() < 0.2:
        version = rng.choice(_VERSIONS_20)
        model = "claude-sonnet-4-5-20250929"
    else:
        version = rng.choice(_VERSIONS_21)
        model = rng.choice(_MODELS_21)
    return version, model, rng.choice(_BRANCHES)


def make_session(
    path: Path,
    target_bytes: int,
    *,
    seed: int = 0,
    session_id: str | None = None,
    cwd: str = "/home/u/proj-0",
    version: str | None = None,
    model: str | None = None,
    git_branch: str | None = None,
    start_time: float | None = None,
    features: Features | None = None,
    clear_caveat: tuple[str, str] | None = None,
    subagents: bool = True,
    compactions: bool = True,
    dense: bool = False,
    planter: Planter | None = None,
) -> SessionInfo:
    """Write one session file (plus its subagent files) of about ``target_bytes`` bytes.

    ``path`` is ``<project dir>/<sessionId>.jsonl``; when ``session_id`` is omitted the file stem is
    used if it is a uuid, else a uuid is drawn. Subagent files go to ``<project dir>/<sessionId>/
    subagents/`` (2.1.x sessions only). ``clear_caveat`` = (uuid, timestamp) makes the session start
    the way a post-/clear session does. ``dense`` and ``planter``: see :func:`generate`.
    """
    rng = random.Random(seed)
    features = features or Features()
    stem = path.stem
    sid = session_id or (stem if re.fullmatch(r"[0-9a-f-]{36}", stem) else _uuid(rng))
    v, m, b = _session_meta(rng, cwd)
    version = version or v
    model = model or (m if version.startswith("2.1") else "claude-sonnet-4-5-20250929")
    git_branch = git_branch if git_branch is not None else b
    clock = start_time if start_time is not None else _BASE_EPOCH + rng.uniform(0, _SPAN_SECONDS)
    stats = Stats(files=1)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb", buffering=1 << 20) as fh:
        w = _Writer(
            fh,
            rng,
            _blobs(0),
            stats,
            session_id=sid,
            cwd=cwd,
            version=version,
            git_branch=git_branch,
            model=model,
            clock=clock,
            dense=dense,
            planter=planter,
        )
        gen = _SessionGen(w, target_bytes, features, path.parent / sid / "subagents", subagents)
        if w.modern:
            w.emit({"type": "permission-mode", "permissionMode": "default", "sessionId": sid})
        if features.clear or clear_caveat:
            gen.clear_start(clear_caveat or (_uuid(rng), _iso(clock - 3600)))
        elif w.modern and (features.compaction or rng.random() < 0.6):
            w.parent = None  # the SessionStart hook output is the root of the chain
            w.hook_success("SessionStart", "SessionStart:startup", _uuid(rng))
        _write_turns(gen, features, compactions, target_bytes)
    return SessionInfo(
        path=path,
        session_id=sid,
        cwd=cwd,
        version=version,
        git_branch=git_branch,
        last_uuid=w.parent,
        bytes=gen.total,
        main_bytes=w.bytes,
        subagent_files=gen.subagent_files,
        stats=stats,
    )


def _write_turns(gen: _SessionGen, features: Features, compactions: bool, target: int) -> None:
    """Turns until the session's size is reached: the features asked for in the first ones,
    compactions (forced ones near the middle, else at the end), the odd local command."""
    w, rng = gen.w, gen.w.rng
    first = True
    forced_compaction = features.compaction
    big_pending = features.big_line
    while gen.remaining() > 0 or first:
        if (
            compactions
            and w.parent is not None
            and (
                gen.since_compaction > gen.next_compaction
                or (forced_compaction and gen.total > target * 0.45)
            )
        ):
            gen.compaction()
            forced_compaction = False
        if not first and rng.random() < 0.01:
            gen.local_command()
        gen.turn(
            force_image=first and features.image,
            force_big=big_pending,
            force_queue=first and features.queue,
        )
        big_pending = False
        first = False
    if forced_compaction and compactions:  # too small to reach the middle: compact at the end
        gen.compaction()
        gen.turn()


# --------------------------------------------------------------------------------------------------
# appending a live turn


class TurnAppended(NamedTuple):
    bytes_appended: int
    last_uuid: str


def _tail_entry(path: Path) -> dict[str, Any] | None:
    """The last complete entry of ``path`` that carries a cwd (reads only the tail)."""
    size = path.stat().st_size
    chunk = 1 << 16
    with path.open("rb") as fh:
        while True:
            start = max(0, size - chunk)
            fh.seek(start)
            data = fh.read(size - start)
            lines = data.split(b"\n")
            if start > 0:
                lines = lines[1:]  # first piece may be partial
            for raw in reversed(lines):
                if b'"cwd"' not in raw:
                    continue
                try:
                    obj = orjson.loads(raw)
                except orjson.JSONDecodeError:
                    continue
                if isinstance(obj, dict) and "cwd" in obj:
                    return obj
            if start == 0 or chunk >= 1 << 25:
                return None
            chunk *= 4


def append_turn(
    path: Path,
    session_id: str,
    parent_uuid: str | None,
    *,
    seed: int | None = None,
    cwd: str | None = None,
    version: str | None = None,
    git_branch: str | None = None,
    tool_output_bytes: int = 6_000,
) -> TurnAppended:
    """Append one realistic turn (snapshot, prompt, assistant thinking+text+tool_use, tool_result,
    final reply) to an existing session file, written with a single ``write``.

    Returns the number of bytes appended and the uuid of the last line, to chain the next turn.
    """
    tail = None
    if cwd is None or version is None or git_branch is None:
        tail = _tail_entry(path)
    clock = time.time()
    if tail is not None:
        cwd = cwd or str(tail.get("cwd", "/home/u/proj-0"))
        version = version or str(tail.get("version", "2.1.114"))
        if git_branch is None:
            git_branch = str(tail.get("gitBranch", "main"))
        ts = tail.get("timestamp")
        if isinstance(ts, str):
            with contextlib.suppress(ValueError):
                clock = calendar.timegm(time.strptime(ts[:19], "%Y-%m-%dT%H:%M:%S"))
    rng = random.Random(seed if seed is not None else time.time_ns())
    buf = io.BytesIO()
    stats = Stats()
    w = _Writer(
        buf,
        rng,
        _blobs(0),
        stats,
        session_id=session_id,
        cwd=cwd or "/home/u/proj-0",
        version=version or "2.1.114",
        git_branch=git_branch or "main",
        model="claude-opus-4-7" if (version or "2.1").startswith("2.1") else _MODELS_21[2],
        clock=clock + rng.uniform(20, 120),
    )
    w.parent = parent_uuid
    gen = _SessionGen(w, 0, Features(), None, False)
    uuid = _uuid(rng)
    w.prompt_id = _uuid(rng) if w.modern else ""
    w.snapshot(uuid)
    w.user(w.fill.fill(rng.choice(_PROMPTS)), uuid=uuid)
    call = _make_tool(w, tool_output_bytes)
    gen.tool_step(call, True)
    w.assistant_message([{"type": "text", "text": w.text(2, 8)}], "end_turn", 300)
    data = buf.getvalue()
    fd = os.open(path, os.O_WRONLY | os.O_APPEND)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)
    assert w.parent is not None
    return TurnAppended(len(data), w.parent)


# --------------------------------------------------------------------------------------------------
# a whole corpus


@dataclass
class CorpusInfo:
    dest: Path
    projects_dir: Path
    target_bytes: int
    seed: int
    projects: int
    sessions: int
    seconds: float
    stats: Stats
    session_files: list[Path] = field(default_factory=list)

    @property
    def bytes(self) -> int:
        return self.stats.bytes

    def jsonl_files(self) -> list[Path]:
        return sorted(self.projects_dir.rglob("*.jsonl"))

    def to_dict(self) -> dict[str, Any]:
        return {
            "dest": str(self.dest),
            "projects_dir": str(self.projects_dir),
            "target_bytes": self.target_bytes,
            "bytes": self.bytes,
            "seed": self.seed,
            "projects": self.projects,
            "sessions": self.sessions,
            "seconds": round(self.seconds, 3),
            **asdict(self.stats),
        }


def _session_sizes(rng: random.Random, total: int, cap: int | None = None) -> list[int]:
    """Log-normal session sizes (median ~250 KB, long tail) adding up to ``total``."""
    cap = cap or max(50_000, min(total // 4, 80_000_000))
    sizes: list[int] = []
    left = total
    while left > 0:
        s = int(min(cap, max(3_000, rng.lognormvariate(math.log(250_000), 1.6))))
        s = min(s, left)
        if left - s < 3_000:
            s = left
        sizes.append(s)
        left -= s
    rng.shuffle(sizes)
    return sizes


def _planned_sizes(
    rng: random.Random, total_bytes: int, largest_session: int | None
) -> tuple[list[int], int | None]:
    """The sessions' sizes, and the pinned largest one's (it goes fourth) if any."""
    pinned = largest_session if largest_session and largest_session < total_bytes // 2 else None
    if not pinned:
        return _session_sizes(rng, total_bytes), None
    sizes = _session_sizes(rng, total_bytes - pinned, cap=pinned)
    sizes.insert(min(3, len(sizes)), pinned)
    return sizes, pinned


def _session_size(
    i: int, sizes: list[int], remaining: int, total_bytes: int, pinned: int | None
) -> int:
    # sessions 0-2 carry the forced features: keep them small enough for the others to come
    size = sizes[i] if i < len(sizes) else remaining
    size = min(size, remaining) if i < len(sizes) - 1 else remaining
    if i < 3:
        size = max(15_000, min(size, total_bytes // 6))
    elif pinned and i == 3:
        size = pinned
    return size


def generate(
    dest: Path,
    total_bytes: int,
    seed: int = 0,
    *,
    largest_session: int | None = None,
    dense: bool = False,
    planter: Planter | None = None,
) -> CorpusInfo:
    """Write a Claude Code history of about ``total_bytes`` bytes under ``dest/projects``.

    ``largest_session`` pins the size of the largest session (one session of that size, all
    others smaller), so corpora of different sizes can be compared at an equal largest file.

    ``dense`` writes many short messages (about ``DENSE_BYTES_PER_MESSAGE`` bytes of JSONL per
    stored message, so 1 GB holds ~600k messages, where the default holds ~160k): tool output
    cut short, little thinking (short signatures), no hook attachments, no pasted or read images
    past the first session's, no >= 1 MB lines, shorter replies. ``planter(prompt, cwd,
    timestamp) -> prompt`` may rewrite each user prompt before it is written (the search
    benchmark plants words whose hits it counts).
    """

    t0 = time.perf_counter()
    rng = random.Random(seed)
    projects_dir = dest / "projects"
    projects_dir.mkdir(parents=True, exist_ok=True)
    n_projects = max(3, min(12, 3 + total_bytes // 100_000_000))
    cwds = [f"/home/u/proj-{i}" for i in range(n_projects)]
    weights = [1.0 / (i + 1) for i in range(n_projects)]
    # /clear sessions of a project re-use one caveat line (same uuid and timestamp), as in real data
    caveats = [(_uuid(rng), _iso(_BASE_EPOCH - rng.uniform(86_400, 864_000))) for _ in cwds]
    sizes, pinned = _planned_sizes(rng, total_bytes, largest_session)
    stats = Stats()
    files: list[Path] = []
    big_every = 40_000_000  # about one >= 1 MB line per 40 MB
    next_big = big_every if total_bytes >= 20_000_000 and not dense else math.inf
    written = 0
    used: set[int] = set()
    for i in range(len(sizes) + 3):
        remaining = total_bytes - stats.bytes
        if remaining <= 0 and i >= 3:
            break
        size = _session_size(i, sizes, remaining, total_bytes, pinned)
        p = rng.choices(range(n_projects), weights)[0] if i >= n_projects else i
        used.add(p)
        cwd = cwds[p]
        sid = _uuid(rng)
        big_line = written >= next_big or (i == 0 and total_bytes >= 20_000_000 and not dense)
        feats = Features(compaction=i == 0, image=i == 0, queue=i == 0, clear=i == 1,
                         subagent=i == 2, big_line=big_line)  # fmt: skip
        if feats.big_line:
            next_big = written + big_every
        clear = feats.clear or rng.random() < 0.06
        path = projects_dir / project_dir_name(cwd) / f"{sid}.jsonl"
        info = make_session(
            path, size, seed=seed * 1_000_003 + i + 1, session_id=sid, cwd=cwd, features=feats,
            clear_caveat=caveats[p] if clear else None,
            version=rng.choice(_VERSIONS_21) if feats.subagent or feats.compaction else None,
            subagents=not (pinned and i == 3),  # the pinned session is one file
            dense=dense, planter=planter,
        )  # fmt: skip
        stats.add(info.stats)
        written = stats.bytes
        files.append(path)
    # a zero-byte session file, as Claude Code leaves them
    empty = projects_dir / project_dir_name(cwds[0]) / f"{_uuid(rng)}.jsonl"
    empty.touch()
    stats.files += 1
    return CorpusInfo(
        dest=dest,
        projects_dir=projects_dir,
        target_bytes=total_bytes,
        seed=seed,
        projects=len(used),
        sessions=len(files),
        seconds=time.perf_counter() - t0,
        stats=stats,
        session_files=files,
    )


# --------------------------------------------------------------------------------------------------
# checks (used by the unit test and by ``--check``)


def check_jsonl(paths: Iterable[Path]) -> list[str]:
    """Problems found: unparsable lines, parentUuid pointing nowhere in the same session's files,
    duplicate uuids within one file, sessionId mismatches. Empty list = fine."""
    problems: list[str] = []
    for path in paths:
        uuids: set[str] = set()
        parents: list[tuple[int, str]] = []
        is_agent = path.name.startswith("agent-")
        sid = path.parent.parent.name if is_agent else path.stem
        with path.open("rb") as fh:
            for n, raw in enumerate(fh, 1):
                try:
                    obj = orjson.loads(raw)
                except orjson.JSONDecodeError as e:
                    problems.append(f"{path}:{n}: bad JSON: {e}")
                    continue
                if not isinstance(obj, dict):
                    problems.append(f"{path}:{n}: not an object")
                    continue
                if "sessionId" in obj and obj["sessionId"] != sid:
                    problems.append(f"{path}:{n}: sessionId {obj['sessionId']} != {sid}")
                u = obj.get("uuid")
                if u is not None:
                    if u in uuids:
                        problems.append(f"{path}:{n}: duplicate uuid {u}")
                    uuids.add(u)
                    p = obj.get("parentUuid")
                    if p is not None:
                        parents.append((n, p))
                    if is_agent and (obj.get("isSidechain") is not True or "agentId" not in obj):
                        problems.append(f"{path}:{n}: subagent line without isSidechain/agentId")
        for n, p in parents:
            if p not in uuids:
                problems.append(f"{path}:{n}: parentUuid {p} not in file")
    return problems


# --------------------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("dest", type=Path)
    ap.add_argument("--size", default="200MB", help="total size, e.g. 200MB, 1GB (default 200MB)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--largest-session", default=None, help="pin the largest session, e.g. 40MB")
    ap.add_argument("--check", action="store_true", help="validate every file afterwards")
    args = ap.parse_args(argv)
    largest = parse_size(args.largest_session) if args.largest_session else None
    info = generate(args.dest, parse_size(args.size), args.seed, largest_session=largest)
    out = info.to_dict()
    out["mb_per_s"] = round(info.bytes / 1e6 / max(info.seconds, 1e-9), 1)
    if args.check:
        problems = check_jsonl(info.jsonl_files())
        out["problems"] = len(problems)
        for p in problems[:20]:
            print(p, file=sys.stderr)
    sys.stdout.write(orjson.dumps(out, option=orjson.OPT_INDENT_2).decode() + "\n")
    return 1 if out.get("problems") else 0


if __name__ == "__main__":
    raise SystemExit(main())
