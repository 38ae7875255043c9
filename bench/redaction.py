"""The redaction benchmark: recall and false positives per rule over a planted corpus, and speed.

    .venv/bin/python -m bench.redaction [--plants 40] [--size 20MB] [--out bench/out] [--no-import]

* planted secrets: ``--plants`` fresh secrets of each rule's kind, each in several contexts
  (an env file, JSON, a shell command, YAML, prose, a JSON-escaped tool input); a plant is
  found when the secret is gone from ``redact(text)`` and the rule's marker is there (gone
  under another rule's marker is counted apart);
* look-alikes that must be left alone: git SHAs, uuids and tool ids, base64 PNG data, lockfile
  integrity hashes (npm, yarn, pnpm, Cargo, poetry, go.sum), docker digests, hex colours,
  thinking signatures, English about tokens and passwords, code that names keys without
  holding one, public keys and certificates; a false positive is any change to one, charged
  to the rules that made it;
* throughput: ``redact()`` over the message text of a generated Claude Code history
  (``corpus.generate``, ``--size``), MB/s of CPU time; and the import of that history,
  ``lazy import-conversation`` (which indexes what it imported) in a child process, with
  redaction on and with ``LAZY_REDACT=0``, and ``lazy index rebuild`` both ways;
* detect-secrets (Yelp, when installed: ``pip install detect-secrets``): the same plants and
  look-alikes through ``scan_file`` with its default plugins and filters, and its throughput.

Figures and ratios only, never an assertion. Output: tables on stdout, every figure in
``<out>/redaction.json``.
"""

from __future__ import annotations

import argparse
import base64
import json
import random
import string
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from bench import corpus, harness
from bench.harness import Row, console, table

ALNUM = string.ascii_letters + string.digits
UPPER_DIGITS = string.ascii_uppercase + string.digits
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "-_"


def _s(rng: random.Random, alphabet: str, k: int) -> str:
    return "".join(rng.choices(alphabet, k=k))


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _jwt(rng: random.Random) -> str:
    head = _b64url(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    claims = {
        "sub": str(rng.randrange(10**9)),
        "name": "Ada",
        "iat": 1700000000 + rng.randrange(10**6),
    }
    body = _b64url(json.dumps(claims).encode())
    return f"{head}.{body}.{_b64url(rng.randbytes(32))}"


def _pem(rng: random.Random) -> str:
    kind = rng.choice(("RSA ", "EC ", "OPENSSH ", "", "ENCRYPTED "))
    body = base64.b64encode(rng.randbytes(rng.choice((300, 600, 1200)))).decode()
    lines = "\n".join(body[i : i + 64] for i in range(0, len(body), 64))
    return f"-----BEGIN {kind}PRIVATE KEY-----\n{lines}\n-----END {kind}PRIVATE KEY-----"


def _password(rng: random.Random) -> str:
    return _s(rng, ALNUM, rng.randint(10, 16)) + rng.choice("!#%^*+=-_") + _s(rng, ALNUM, 3)


# rule -> a fresh secret of its kind
GENERATORS: dict[str, Callable[[random.Random], str]] = {
    "private-key": _pem,
    "anthropic-api-key": lambda r: f"sk-ant-api03-{_s(r, URLSAFE, 93)}AA",
    "openrouter-api-key": lambda r: f"sk-or-v1-{_s(r, HEX, 64)}",
    "openai-api-key": lambda r: r.choice(
        (
            f"sk-proj-{_s(r, URLSAFE, 74)}T3BlbkFJ{_s(r, URLSAFE, 74)}",
            f"sk-{_s(r, ALNUM, 20)}T3BlbkFJ{_s(r, ALNUM, 20)}",
            f"sk-svcacct-{_s(r, URLSAFE, 64)}",
        )
    ),
    "aws-access-key": lambda r: r.choice(("AKIA", "ASIA")) + _s(r, UPPER_DIGITS, 16),
    "aws-secret-key": lambda r: _s(r, B64, 40),
    "github-token": lambda r: r.choice(
        (
            f"{r.choice(('ghp', 'gho', 'ghu', 'ghs', 'ghr'))}_{_s(r, ALNUM, 36)}",
            f"github_pat_{_s(r, ALNUM, 22)}_{_s(r, ALNUM, 59)}",
        )
    ),
    "gitlab-token": lambda r: f"glpat-{_s(r, URLSAFE, 20)}",
    "slack-webhook": lambda r: (
        "https://hooks.slack.com/services/T"
        + f"{_s(r, UPPER_DIGITS, 8)}/B{_s(r, UPPER_DIGITS, 8)}/{_s(r, ALNUM, 24)}"
    ),
    "slack-token": lambda r: (
        f"xox{r.choice('bpa')}-{r.randrange(10**11, 10**12)}-"
        f"{r.randrange(10**12, 10**13)}-{_s(r, ALNUM, 24)}"
    ),
    "stripe-key": lambda r: (
        f"{r.choice(('sk', 'rk'))}_{r.choice(('live', 'test'))}_{_s(r, ALNUM, 24)}"
    ),
    "stripe-webhook-secret": lambda r: f"whsec_{_s(r, ALNUM, 32)}",
    "google-api-key": lambda r: f"AIza{_s(r, URLSAFE, 35)}",
    "google-oauth": lambda r: r.choice(
        (f"GOCSPX-{_s(r, URLSAFE, 28)}", f"ya29.{_s(r, URLSAFE, 60)}")
    ),
    "npm-token": lambda r: f"npm_{_s(r, ALNUM, 36)}",
    "pypi-token": lambda r: f"pypi-AgEIcHlwaS5vcmc{_s(r, URLSAFE, 70)}",
    "huggingface-token": lambda r: f"hf_{_s(r, ALNUM, 34)}",
    "groq-api-key": lambda r: f"gsk_{_s(r, ALNUM, 52)}",
    "digitalocean-token": lambda r: f"dop_v1_{_s(r, HEX, 64)}",
    "shopify-token": lambda r: f"shpat_{_s(r, HEX, 32)}",
    "sendgrid-api-key": lambda r: f"SG.{_s(r, URLSAFE, 22)}.{_s(r, URLSAFE, 43)}",
    "twilio-api-key": lambda r: f"SK{_s(r, HEX, 32)}",
    "telegram-bot-token": lambda r: f"{r.randrange(10**8, 10**9)}:AA{_s(r, URLSAFE, 33)}",
    "age-secret-key": lambda r: f"AGE-SECRET-KEY-1{_s(r, UPPER_DIGITS, 58)}",
    "jwt": _jwt,
    "database-url": _password,
    "url-password": lambda r: _s(r, ALNUM, 24),
    "authorization-header": lambda r: _s(r, URLSAFE + ".", 40),
    "generic-secret": lambda r: r.choice(
        (
            _s(r, ALNUM, 32),
            _s(r, B64, 44),
            _s(r, HEX, 40),
            str(uuid.UUID(int=r.getrandbits(128))),
            _password(r),
        )
    ),
}

_ENV_NAMES = ("API_KEY", "SERVICE_TOKEN", "APP_SECRET", "DB_PASSWORD", "CLIENT_SECRET",
              "AUTH_TOKEN", "SECRET_KEY", "ACCESS_TOKEN", "PRIVATE_TOKEN", "WEBHOOK_SECRET")  # fmt: skip


def _contexts(rule: str, rng: random.Random, v: str) -> list[str]:
    """The ways a secret of ``rule`` shows up in a transcript (``v`` the secret)."""
    if rule == "database-url":
        scheme = rng.choice(("postgres", "postgresql", "mysql", "mongodb+srv", "redis", "amqp"))
        url = f"{scheme}://app_user:{v}@db-{rng.randrange(99)}.internal.example.com:5432/prod"
        return [f"DATABASE_URL={url}", f'{{"url": "{url}"}}', f"connecting to {url} ...",
                f"psql '{url}' -c 'select 1'"]  # fmt: skip
    if rule == "url-password":
        url = f"https://x-access-token:{v}@git.example.com/org/repo.git"
        return [f"git clone {url}", f"remote.origin.url={url}", f'"registry": "{url}"']
    if rule == "aws-secret-key":
        return [f"aws_secret_access_key = {v}", f"AWS_SECRET_ACCESS_KEY={v}",
                f'{{"SecretAccessKey": "{v}"}}', f'secretAccessKey: "{v}"']  # fmt: skip
    if rule == "authorization-header":
        return [f"curl -H 'Authorization: Bearer {v}' https://api.example.com",
                f'{{"headers": {{"Authorization": "Bearer {v}"}}}}',
                f"Authorization: token {v}"]  # fmt: skip
    if rule == "generic-secret":
        name = rng.choice(_ENV_NAMES)
        return [f"{name}={v}", f'export {name}="{v}"', f'{{"{name.lower()}": "{v}"}}',
                f"{name.lower()}: {v}", f'\\"{name.lower()}\\": \\"{v}\\"',
                f"--{name.lower().replace('_', '-')} {v}"]  # fmt: skip
    if rule == "private-key":
        escaped = json.dumps(v)[1:-1]  # a tool input, JSON-escaped: \n between lines
        return [
            f"cat ~/.ssh/id_rsa\n{v}\n",
            f'{{"content": "{escaped}"}}',
            v.split("-----END")[0],
        ]  # fmt: skip  (cut off before its END: a truncated output)
    return [f"export TOKEN_VALUE={v}", f'{{"key": "{v}", "user": "ada"}}', f"use {v} for now",
            f"  credentials:\n    value: {v}\n", f"Bearer-less header X-Api: {v}",
            f'Bash({{"command": "curl -s -u me:{v} https://x"}})']  # fmt: skip


@dataclass
class Plant:
    rule: str
    text: str
    secret: str


def plants(per_rule: int, seed: int = 0) -> list[Plant]:
    from lazy.view.redaction import NAMES

    rng = random.Random(seed)
    out = []
    for rule in NAMES:
        for _ in range(per_rule):
            secret = GENERATORS[rule](rng)
            ctx = rng.choice(_contexts(rule, rng, secret))
            # the part that must be gone: a PEM block's body (its header may stay)
            key = secret.split("\n")[2] if rule == "private-key" else secret
            out.append(Plant(rule, ctx, key))
    return out


def _png_b64(rng: random.Random) -> str:
    return base64.b64encode(corpus._png(rng, rng.randint(8, 24), rng.randint(8, 24))).decode()


def _words(rng: random.Random, k: int) -> str:
    return " ".join(rng.choices(corpus._WORDS, k=k))


# kind -> a look-alike that must come out unchanged
LOOK_ALIKES: dict[str, Callable[[random.Random], str]] = {
    "git-sha": lambda r: r.choice(
        (
            f"commit {_s(r, HEX, 40)}\nAuthor: Ada <ada@example.com>",
            f"{_s(r, HEX, 7)} Fix the {_words(r, 2)}",
            f'{{"sha": "{_s(r, HEX, 40)}"}}',
            f"HEAD is now at {_s(r, HEX, 12)} {_words(r, 3)}",
            f"git cherry-pick {_s(r, HEX, 40)}",
            f"index {_s(r, HEX, 7)}..{_s(r, HEX, 7)} 100644",
        )
    ),
    "uuid": lambda r: r.choice(
        (
            f'{{"uuid": "{uuid.UUID(int=r.getrandbits(128))}", "parentUuid": null}}',
            f'"sessionId": "{uuid.UUID(int=r.getrandbits(128))}"',
            f"request id {uuid.UUID(int=r.getrandbits(128))}",
            f'{{"tool_use_id": "toolu_01{_s(r, ALNUM, 22)}"}}',
            f'"id": "msg_01{_s(r, ALNUM, 22)}"',
            f'"requestId": "req_011C{_s(r, ALNUM, 20)}"',
        )
    ),
    "base64-image": lambda r: r.choice(
        (
            f"![shot](data:image/png;base64,{_png_b64(r)})",
            '{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "'
            + _png_b64(r)
            + '"}}',
        )
    ),
    "lockfile-hash": lambda r: r.choice(
        (
            f'"integrity": "sha512-{base64.b64encode(r.randbytes(64)).decode()}",',
            f"  integrity sha512-{base64.b64encode(r.randbytes(64)).decode()}",
            f'checksum = "{_s(r, HEX, 64)}"',
            f'{{file = "pkg-1.0-py3-none-any.whl", hash = "sha256:{_s(r, HEX, 64)}"}}',
            f"golang.org/x/text v0.3.7 h1:{base64.b64encode(r.randbytes(32)).decode()}",
            f"    resolution: {{integrity: sha512-{base64.b64encode(r.randbytes(64)).decode()}}}",
            f'"shasum": "{_s(r, HEX, 40)}"',
            f'"resolved": "https://registry.npmjs.org/left-pad/-/left-pad-1.{r.randrange(9)}.0.tgz"',
        )
    ),
    "digest": lambda r: r.choice(
        (
            f"FROM python:3.12-slim@sha256:{_s(r, HEX, 64)}",
            f"{_s(r, HEX, 64)}  dist/app.tar.gz",
            f'"etag": "\\"{_s(r, HEX, 32)}\\""',
            f"md5: {_s(r, HEX, 32)}",
        )
    ),
    "hex-colour": lambda r: f"color: #{_s(r, HEX, 6)}; background: #{_s(r, HEX, 3).upper()};",
    "signature": lambda r: r.choice(
        (
            f'{{"type": "thinking", "signature": "{base64.b64encode(r.randbytes(180)).decode()}"}}',
            f'"encrypted_content": "gAAAAA{base64.urlsafe_b64encode(r.randbytes(120)).decode()}"',
        )
    ),
    "english": lambda r: r.choice(
        (
            "The password must be at least twelve characters long and is never logged.",
            "Rotate the API key from the dashboard, then restart the worker.",
            "Each request is limited by max_tokens=4096 and the token budget of the session.",
            "The secret to fast imports is batching writes in one transaction.",
            f"The auth flow: {_words(r, 8)}.",
            f"key points: {_words(r, 10)}",
            "token expires after one hour; refresh tokens last thirty days.",
        )
    ),
    "code": lambda r: r.choice(
        (
            'token = request.headers.get("Authorization")',
            "api_key: str = Field(default=None)",
            "password = getpass.getpass()",
            "const secret = process.env.JWT_SECRET;",
            "def verify_token(token: str) -> bool:",
            '"input_tokens": 1234, "cache_read_input_tokens": 5678',
            "<li key={item.id}>{item.name}</li>",
            '{"key": "src/components/Button.tsx"}',
            'primaryKey: "user_id"',
            "self.secret_key = settings.SECRET_KEY",
            "password_hash = bcrypt.hashpw(password.encode(), salt)",
            "tokenizer: cl100k_base",
            "postgres://localhost:5432/app_test",
            "postgres://app:${DB_PASSWORD}@db:5432/app",
            "https://ada@github.com/org/repo.git",
            "arn:aws:iam::123456789012:role/deploy",
            'auth: { user: "deploy", method: "oidc" }',
            "sort_key = f'{user_id}#{created_at}'",
            f'cache_key = "{_s(r, HEX, 40)}"',
            f"idempotency_key={uuid.UUID(int=r.getrandbits(128))}",
            "AWS_ACCESS_KEY_ID=$AWS_ACCESS_KEY_ID",
            "GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}",
            "export OPENAI_API_KEY=<your key here>",
            "password: changeme",
        )
    ),
    "public-key": lambda r: r.choice(
        (
            f"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{_s(r, B64, 43)} ada@laptop",
            "-----BEGIN PUBLIC KEY-----\n"
            + base64.b64encode(r.randbytes(270)).decode()
            + "\n-----END PUBLIC KEY-----",
            "-----BEGIN CERTIFICATE-----\n"
            + base64.b64encode(r.randbytes(600)).decode()
            + "\n-----END CERTIFICATE-----",
            f"pk_live_{_s(r, ALNUM, 24)}",
        )
    ),
}


def look_alikes(per_kind: int, seed: int = 1) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    return [(kind, gen(rng)) for kind, gen in LOOK_ALIKES.items() for _ in range(per_kind)]


# ---- judging -----------------------------------------------------------------------------------


@dataclass
class RuleRow:
    rule: str
    planted: int = 0
    found: int = 0  # gone, under this rule's marker
    other: int = 0  # gone, under another rule's marker
    false_positives: int = 0  # look-alikes this rule changed

    @property
    def recall(self) -> float:
        return self.found / self.planted if self.planted else 0.0


@dataclass
class Verdict:
    rows: dict[str, RuleRow] = field(default_factory=dict)
    fp_by_kind: dict[str, int] = field(default_factory=dict)
    look_alikes: int = 0
    missed: list[str] = field(default_factory=list)  # a few contexts that were missed
    fp_examples: list[str] = field(default_factory=list)


def judge_lazy(planted: list[Plant], lookalikes: list[tuple[str, str]]) -> Verdict:
    from lazy.view.redaction import NAMES, marker, redact, redact_counted

    v = Verdict(rows={r: RuleRow(r) for r in NAMES})
    for p in planted:
        row = v.rows[p.rule]
        row.planted += 1
        out = redact(p.text)
        if p.secret in out:
            if len(v.missed) < 12:
                v.missed.append(f"{p.rule}: {p.text[:120]!r}")
        elif marker(p.rule) in out:
            row.found += 1
        else:
            row.other += 1
    v.look_alikes = len(lookalikes)
    for kind, text in lookalikes:
        out, counts = redact_counted(text)
        v.fp_by_kind.setdefault(kind, 0)
        if out != text:
            v.fp_by_kind[kind] += 1
            for name in counts:
                v.rows[name].false_positives += 1
            if len(v.fp_examples) < 12:
                v.fp_examples.append(f"{kind} -> {out[:140]!r}")
    return v


@dataclass
class DetectSecrets:
    version: str | None = None
    error: str | None = None
    recall: dict[str, tuple[int, int]] = field(default_factory=dict)  # rule -> (found, planted)
    fp_by_kind: dict[str, int] = field(default_factory=dict)
    mb_per_s: float | None = None


def _detect_secrets() -> tuple[Any, Any, str] | None:
    try:
        from detect_secrets.core.scan import scan_file
        from detect_secrets.settings import default_settings
    except ImportError:
        return None
    from importlib.metadata import version

    return scan_file, default_settings, version("detect-secrets")


def _ds_scan(scan_file: Any, texts: list[str], where: Path) -> list[list[str]]:
    """The secret values detect-secrets reports in each of ``texts``, scanned as one file
    the way `detect-secrets scan` does (its entropy limits and its filters of ids applied:
    ``scan_line``, its ad-hoc scan, reports every candidate word)."""
    lines: list[int] = []  # the text each line of the file comes from
    with open(where, "w", encoding="utf-8") as f:
        for n, text in enumerate(texts):
            for line in text.split("\n"):
                f.write(line + "\n")
                lines.append(n)
    found: list[list[str]] = [[] for _ in texts]
    for secret in scan_file(str(where)):
        if secret.secret_value:
            found[lines[secret.line_number - 1]].append(str(secret.secret_value))
    return found


def judge_detect_secrets(
    planted: list[Plant], lookalikes: list[tuple[str, str]], texts: list[str], work: Path
) -> DetectSecrets:
    got = _detect_secrets()
    if got is None:
        return DetectSecrets(error="not installed (pip install detect-secrets to compare)")
    scan_file, default_settings, ver = got
    r = DetectSecrets(version=ver)
    with default_settings():
        values = _ds_scan(scan_file, [p.text for p in planted], work / "ds-plants.txt")
        for p, vals in zip(planted, values, strict=True):
            hit = any(p.secret in val or (len(val) >= 8 and val in p.secret) for val in vals)
            f, n = r.recall.get(p.rule, (0, 0))
            r.recall[p.rule] = (f + hit, n + 1)
        values = _ds_scan(scan_file, [t for _, t in lookalikes], work / "ds-lookalikes.txt")
        for (kind, _), vals in zip(lookalikes, values, strict=True):
            r.fp_by_kind[kind] = r.fp_by_kind.get(kind, 0) + bool(vals)
        size = sum(len(t.encode()) for t in texts)
        t0 = time.process_time()
        _ds_scan(scan_file, texts, work / "ds-corpus.txt")
        r.mb_per_s = size / 1e6 / max(time.process_time() - t0, 1e-9)
    return r


# ---- throughput ----------------------------------------------------------------------------------


def _leaves(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            if k not in ("signature", "data"):  # what the index never sees
                yield from _leaves(v)
    elif isinstance(value, list):
        for v in value:
            yield from _leaves(v)


def transcript_texts(projects: Path) -> list[str]:
    """The text of every message of a generated history (its content's strings, joined)."""
    texts = []
    for path in sorted(projects.rglob("*.jsonl")):
        with open(path, "rb") as f:
            for line in f:
                try:
                    obj = json.loads(line)
                except ValueError:
                    continue
                message = obj.get("message") if isinstance(obj, dict) else None
                if isinstance(message, dict):  # one message, one text: as the index takes it
                    said = "\n\n".join(t for t in _leaves(message.get("content")) if t)
                    if said:
                        texts.append(said)
    return texts


@dataclass
class Speed:
    text_mb: float = 0.0
    messages: int = 0
    redact_mb_per_s: float = 0.0
    changed: int = 0  # texts the corpus's own content had redacted (look-alikes in the wild)
    changed_by: dict[str, int] = field(default_factory=dict)


def speed(texts: list[str], reps: int = 3) -> Speed:
    from lazy.view.redaction import redact, redact_counted

    s = Speed(messages=len(texts), text_mb=sum(len(t.encode()) for t in texts) / 1e6)
    best = float("inf")
    for _ in range(reps):  # CPU time: the wall clock of a shared machine says more of it
        t0 = time.process_time()
        for t in texts:
            redact(t)
        best = min(best, time.process_time() - t0)
    s.redact_mb_per_s = s.text_mb / max(best, 1e-9)
    by: Counter[str] = Counter()
    for t in texts:
        out, counts = redact_counted(t)
        if out != t:
            s.changed += 1
            by += counts
    s.changed_by = dict(by)
    return s


@dataclass
class ImportRun:
    redaction: str  # "on" | "off"
    import_seconds: float | None = None
    rebuild_seconds: float | None = None
    import_cpu: float | None = None  # the child's user + system CPU seconds
    rebuild_cpu: float | None = None
    corpus_mb: float = 0.0
    error: str | None = None

    @property
    def import_mb_per_s(self) -> float | None:
        return self.corpus_mb / self.import_seconds if self.import_seconds else None


def import_runs(projects: Path, base: Path, corpus_mb: float, timeout: float) -> list[ImportRun]:
    runs = []
    for mode in ("on", "off"):
        run = ImportRun(mode, corpus_mb=corpus_mb)
        home = base / f"home-{mode}"
        env = harness.isolated_env(base, home)
        env["LAZY_REDACT"] = "1" if mode == "on" else "0"
        child = harness.import_history(projects, env, timeout)
        if child.returncode != 0:
            run.error = f"import exit {child.returncode}: {child.stderr_tail.strip()[-300:]}"
        else:
            run.import_seconds, run.import_cpu = child.seconds, child.cpu_seconds
            rebuild = harness.rebuild_index(env, timeout, "--json")
            if rebuild.returncode == 0:
                run.rebuild_seconds, run.rebuild_cpu = rebuild.seconds, rebuild.cpu_seconds
            else:
                run.error = f"rebuild exit {rebuild.returncode}: {rebuild.stderr_tail[-300:]}"
        runs.append(run)
    return runs


# ---- the report ----------------------------------------------------------------------------------


def _pct(x: float | None) -> str:
    return "—" if x is None else f"{100 * x:.0f}%"


def throughput_rows(ds: DetectSecrets, sp: Speed, imports: list[ImportRun]) -> list[list[str]]:
    s: list[list[str]] = []

    def add(*cells: str) -> None:
        s.append(list(cells))

    add("transcript text", f"{sp.text_mb:,.1f} MB in {sp.messages:,} strings")
    add("redact() MB/s (CPU time)", f"{sp.redact_mb_per_s:,.0f}")
    add("detect-secrets scan_file MB/s (CPU time)",
              f"{ds.mb_per_s:,.1f}" if ds.mb_per_s else (ds.error or "—"))  # fmt: skip
    if ds.mb_per_s:
        add("redact() ÷ detect-secrets", f"{sp.redact_mb_per_s / ds.mb_per_s:,.0f}×")
    add("corpus strings changed", f"{sp.changed:,} ({sp.changed_by})")
    for run in imports:
        if run.error:
            add(f"import, redaction {run.redaction}", run.error)
            continue
        add(f"import + index, redaction {run.redaction}",
                  f"{run.import_seconds:.2f} s ({run.import_cpu:.2f} s CPU),"
                  f" {run.import_mb_per_s:,.1f} MB/s")  # fmt: skip
        add(f"index rebuild, redaction {run.redaction}",
                  f"{run.rebuild_seconds:.2f} s ({run.rebuild_cpu:.2f} s CPU)")  # fmt: skip
    on = next((r for r in imports if r.redaction == "on" and r.import_seconds), None)
    off = next((r for r in imports if r.redaction == "off" and r.import_seconds), None)
    if on and off and on.import_cpu and off.import_cpu:
        add("import CPU, on ÷ off", f"{on.import_cpu / off.import_cpu:.2f}")
        if on.rebuild_cpu and off.rebuild_cpu:
            add("rebuild CPU, on ÷ off", f"{on.rebuild_cpu / off.rebuild_cpu:.2f}")
    return s


def render(v: Verdict, ds: DetectSecrets, sp: Speed, imports: list[ImportRun]) -> None:
    rows: list[list[str] | Row] = []
    for row in v.rows.values():
        f, n = ds.recall.get(row.rule, (0, 0))
        rows.append([row.rule, str(row.planted), str(row.found), _pct(row.recall), str(row.other),
                     str(row.false_positives), _pct(f / n) if n else "—"])  # fmt: skip
    planted = sum(r.planted for r in v.rows.values())
    found = sum(r.found + r.other for r in v.rows.values())
    ds_found = sum(f for f, _ in ds.recall.values())
    rows.append(Row(["all (hidden by any rule)", str(planted), str(found), _pct(found / planted),
                     "", "", _pct(ds_found / planted) if ds.recall else "—"], "bold"))  # fmt: skip
    table("Recall and false positives per rule (planted corpus)",
          ("rule", "planted", "found", "recall", "other rule", "false pos.", "detect-secrets"),
          rows, right=1, header_style="bold")  # fmt: skip
    fps: list[list[str] | Row] = [
        [kind, str(n), str(ds.fp_by_kind.get(kind, "—"))] for kind, n in v.fp_by_kind.items()
    ]
    fps.append(Row(["all", str(sum(v.fp_by_kind.values())),
                    str(sum(ds.fp_by_kind.values())) if ds.fp_by_kind else "—"], "bold"))  # fmt: skip
    table(f"Look-alikes changed ({v.look_alikes} in all)", ("kind", "lazy", "detect-secrets"), fps,
          right=1, header_style="bold")  # fmt: skip
    table("Throughput", ("figure", "value"), throughput_rows(ds, sp, imports), right=None,
          header_style="bold")  # fmt: skip
    if v.missed:
        console.print("[bold]missed (first few):[/bold]")
        for m in v.missed:
            console.print(f"  {m}", markup=False)
    if v.fp_examples:
        console.print("[bold]look-alikes changed (first few):[/bold]")
        for m in v.fp_examples:
            console.print(f"  {m}", markup=False)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--plants", type=int, default=40, help="secrets per rule, look-alikes per kind")
    ap.add_argument("--size", default="20MB", help="generated history for the throughput figures")
    ap.add_argument("--out", type=Path, default=harness.OUT)
    ap.add_argument("--workdir", default=None)
    ap.add_argument("--no-import", action="store_true", help="skip the import children")
    ap.add_argument("--timeout", type=float, default=1800)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    planted = plants(args.plants, args.seed)
    lookalikes = look_alikes(args.plants, args.seed + 1)
    verdict = judge_lazy(planted, lookalikes)
    with tempfile.TemporaryDirectory(prefix="lazy-bench-redaction-", dir=args.workdir) as tmp:
        base = Path(tmp)
        info = corpus.generate(base / "corpus", corpus.parse_size(args.size), seed=args.seed)
        texts = transcript_texts(info.projects_dir)
        sp = speed(texts)
        ds = judge_detect_secrets(planted, lookalikes, texts, base)
        corpus_mb = sum(p.stat().st_size for p in info.projects_dir.rglob("*.jsonl")) / 1e6
        imports = (
            [] if args.no_import else import_runs(info.projects_dir, base, corpus_mb, args.timeout)
        )
    render(verdict, ds, sp, imports)
    args.out.mkdir(parents=True, exist_ok=True)
    report = {
        "rules": [asdict(r) | {"recall": r.recall} for r in verdict.rows.values()],
        "look_alikes": verdict.look_alikes,
        "false_positives_by_kind": verdict.fp_by_kind,
        "missed": verdict.missed,
        "fp_examples": verdict.fp_examples,
        "speed": asdict(sp),
        "detect_secrets": asdict(ds),
        "imports": [asdict(r) | {"import_mb_per_s": r.import_mb_per_s} for r in imports],
    }
    (args.out / "redaction.json").write_text(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
