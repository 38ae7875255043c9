"""Secrets in transcript text, replaced by ``[redacted:<rule>]`` wherever the text leaves the store.

One table of rules (``RULES``), each with a name, a compiled pattern and the literal keywords
that must occur in the text for the pattern to be worth running: most messages hold none of
them, and a substring test costs a fraction of a regex scan. Rules run in table order over
the text as the previous ones left it, so a provider's own format (``ghp_…``) is named before
the generic assignment rule sees ``GITHUB_TOKEN=[redacted:github-token]``, and a marker is
never matched again. A rule whose secret is part of its match (the password of a database URL,
the value of ``API_KEY=…``) replaces only that part.

The raw archive keeps the bytes verbatim (ARCHITECTURE.md, invariant 2): improving a rule and
re-running ``lazy index rebuild`` re-applies the table. ``VERSION`` is bumped with any change
to it, and the index records the version it was built with.

Hand-written rather than detect-secrets: over ``bench/redaction.py``'s planted corpus this table
finds more of the planted secrets, flags fewer look-alikes (git SHAs, uuids, base64 images,
lockfile hashes) and runs many times faster (the figures are in the benchmark's output). The
provider formats follow gitleaks' ``config/gitleaks.toml`` where it has them.
"""

from __future__ import annotations

import math
import re
import string
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ahocorasick_rs import AhoCorasick

VERSION = 1  # bumped with every change to RULES: an index of another version should be rebuilt

Accept = Callable[["re.Match[str]"], bool]


def marker(name: str) -> str:
    return f"[redacted:{name}]"


@dataclass(frozen=True)
class Rule:
    """``keywords``: at least one must occur in the text (in its lower-cased form when
    ``fold``) before ``regex`` runs. ``group``: the part of a match that is the secret (0:
    all of it). ``accept``: a last judgement of a match (entropy, placeholders)."""

    name: str
    regex: re.Pattern[str]
    keywords: tuple[str, ...]
    fold: bool = False
    group: int | str = 0
    accept: Accept | None = None
    # matched only where a keyword starts (``regex.match`` there), not scanned for: a
    # pattern that opens with a case-folded alternation is tried at every character
    anchored: bool = False
    back: frozenset[str] = frozenset()  # an anchored match may start before its keyword, over these
    marker: str = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "marker", marker(self.name))


# ---- judging a candidate value ---------------------------------------------------------------


def entropy(value: str) -> float:
    """Shannon entropy of ``value``, bits per character."""
    n = len(value)
    if n == 0:
        return 0.0
    return -sum(c / n * math.log2(c / n) for c in Counter(value).values())


_HEX = re.compile(r"[0-9a-fA-F]+")
_UUID = re.compile(r"[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}")
_PLACEHOLDER = re.compile(
    r"(?i)(?:x+|\*+|\.+|-+|_+|#+|changeme|change[_-]?me|secret|password|passwd|pass|pwd|token"
    r"|redacted|hidden|none|null|nil|undefined|true|false|example|sample|dummy|test|placeholder"
    r"|your[_-]?\w*|my[_-]?\w*|\w*here|<[^>]*>|\[[^\]]*\]|\{[^}]*\}|\$\{[^}]*\}|\$\w+|%\w*%?"
    r"|\w+\(\)?)"
)
_IDENTIFIER = re.compile(r"[a-z_][a-z0-9_]*|[A-Z_][A-Z0-9_]*|[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")
_WORDS = re.compile(r"[A-Za-z_]+|[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")  # a name, never a password
_PATH = re.compile(r"(?:[~.]{0,2}/)(?:[\w.@-]+/)*[\w.@-]*|(?:[\w@-]+/)+[\w@-]*\.\w{1,8}")


def _classes(value: str) -> int:
    return (
        any(c.islower() for c in value)
        + any(c.isupper() for c in value)
        + any(c.isdigit() for c in value)
        + any(not c.isalnum() for c in value)
    )


def _placeholder(value: str) -> bool:
    return (
        _PLACEHOLDER.fullmatch(value) is not None
        or "$" in value
        or "{{" in value
        or "..." in value
        or "…" in value
    )


def secret_like(value: str, *, min_len: int = 16, bits: float = 3.5, hex_ok: bool = True) -> bool:
    """Whether ``value`` reads as a generated credential rather than a word, an identifier,
    a path, a placeholder or a number. Hex (a git SHA, a checksum) and uuids are taken only
    when ``hex_ok`` (the key said it is a secret), against a lower bar: hex has 4 bits a
    character at most."""
    if len(value) < min_len or _placeholder(value) or value.isdigit():
        return False
    if _UUID.fullmatch(value) or _HEX.fullmatch(value):
        return hex_ok and entropy(value) >= 3.0
    if _named(value) or _PATH.fullmatch(value) or "://" in value:
        return False
    return _classes(value) >= 2 and entropy(value) >= bits


def _named(value: str) -> bool:
    """An identifier (``user_name``, ``settings.SECRET_KEY``) rather than a generated
    token: the shape of one, with few digits in it."""
    return (
        _IDENTIFIER.fullmatch(value) is not None
        and sum(c.isdigit() for c in value) < len(value) / 4
    )


def _token(m: re.Match[str]) -> bool:
    """What follows ``Bearer``: long, varied, not a placeholder (``$TOKEN``, ``<token>``)."""
    value = m.group("value")
    if len(value) < 16 or _placeholder(value) or _classes(value) < 2:
        return False
    # an identifier (settings.access_token) reads near 3.7 bits a character, a generated
    # token of that shape (abC3.dE9f…) near 4.8
    return entropy(value) >= (4.3 if _named(value) else 3.0)


# ---- the generic assignment rule -------------------------------------------------------------

# what a key that holds a secret ends with; "strong" ones say so whatever else the key says
_STRONG = ("secret", "token", "passw", "pwd", "credential", "apikey", "api_key", "api-key",
           "private", "accesskey", "access_key", "passphrase")  # fmt: skip
# keys ending in "key" that name something else
_NOT_SECRET_KEY = re.compile(
    r"(?i).*(?:public|publishable|primary|foreign|sort|partition|cache|idempotency|unique"
    r"|composite|hash|range|row|group|lookup|map|dict|object|hot|short|shortcut|api_?key_?id"
    r"|key_?id|keyboard|kbd|sign(?:ing)?_?in|s3|i18n|translation|react|list|storage_?account)"
    r"[_.-]?(?:key|keys)$"
)
_IDCHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")


def _key_of(m: re.Match[str]) -> str:
    """The whole identifier the keyword ends (``DB_PASSWORD`` for ``PASSWORD``)."""
    text, i = m.string, m.start()
    while i > 0 and text[i - 1] in _IDCHARS:
        i -= 1
    return text[i : m.end("kw")]


def _assignment(m: re.Match[str]) -> bool:
    key = _key_of(m)
    kw = m.group("kw")
    before = key[: len(key) - len(kw)]
    low = key.lower()
    # the keyword ends a word of the key: API_KEY, apiKey, key; not monkey, author
    if before and before[-1] not in "_.-" and not (kw[0].isupper() and before[-1].islower()):
        return False
    if m.group("sep").isspace() and not key.startswith("-"):
        return False  # "the token expires": only a --flag takes its value after a space
    value = m.group("value").rstrip(".")
    strong = any(s in low for s in _STRONG)
    if not strong and _NOT_SECRET_KEY.fullmatch(key):
        return False
    if "passw" in low or "pwd" in low or low.endswith("pass"):
        return (
            len(value) >= 8
            and not _placeholder(value)
            and not _WORDS.fullmatch(value)
            and "://" not in value
            and (_classes(value) >= 2 or len(value) >= 16)
        )
    return secret_like(value, min_len=12 if strong else 16, hex_ok=strong)


_GENERIC = (
    r"(?P<kw>(?i:secret|token|passw(?:or)?d|passwd|pwd|pass|passphrase|credentials?|api_?key"
    r"|key|auth))(?![A-Za-z0-9_])"
    r"(?P<q>[\\\"']{0,3})(?P<sep>[ \t]{0,3}(?::=|=>|[:=])[ \t]{0,3}|[ \t]{1,3})"
    r"(?:[\\\"'`]{0,3}|b')(?P<value>[^\s\"'`\\,;()\[\]{}<>|&]{8,400}"
    # a separator inside the value (Tr0ub4dor&3) is the value's, unless what follows is the
    # next field (?token=…&user=…, Password=…;Host=…)
    r"(?:[&;,|](?![A-Za-z_][\w.-]*=)[^\s\"'`\\,;()\[\]{}<>|&]+){0,8})"
)

# ---- URLs with a password ---------------------------------------------------------------------

_DB_SCHEMES = (
    r"postgres(?:ql)?|mysql|mariadb|mongodb(?:\+srv)?|redis|rediss|valkey|amqps?|mssql"
    r"|sqlserver|clickhouse|cockroachdb|couchdb|neo4j(?:\+s)?|bolt|oracle|db2|snowflake"
    r"|memcached|cassandra|elasticsearch|influxdb|jdbc:[a-z0-9]+|mysqlx|sqlalchemy"
)
_URL_PASSWORD = (
    # the user may be empty: redis://:PASSWORD@host
    r"(?P<scheme>\b[a-zA-Z][a-zA-Z0-9+.:-]{1,30})://(?P<user>[^\s:/?#@'\"<>\\]{0,100}):"
    r"(?P<pw>[^\s@/'\"<>\\]{1,300})@(?=[\w\[])"
)
_SCHEME_CHARS = frozenset(string.ascii_letters + string.digits + "+.:-")
_DB = re.compile(rf"(?:{_DB_SCHEMES})(?:\+[a-z0-9]+)?", re.IGNORECASE)


def _url_password(db: bool) -> Accept:
    def accept(m: re.Match[str]) -> bool:
        if (_DB.fullmatch(m.group("scheme")) is not None) != db:
            return False
        pw = m.group("pw")
        return not _placeholder(pw) and not pw.startswith("[redacted:")

    return accept


def _rule(
    name: str,
    pattern: str,
    keywords: tuple[str, ...],
    *,
    fold: bool = False,
    group: int | str = 0,
    accept: Accept | None = None,
    flags: int = 0,
    anchored: bool = False,
    back: frozenset[str] = frozenset(),
) -> Rule:
    return Rule(name, re.compile(pattern, flags), keywords, fold, group, accept, anchored, back)


_B = r"(?<![A-Za-z0-9_-])"  # a token starts here (\b would let "x-ghp_…" through)
_E = r"(?![A-Za-z0-9_-])"

RULES: tuple[Rule, ...] = (
    # a whole key block, over lines (or JSON's \n escapes); cut off before its END (a
    # truncated tool output), the block's body as far as it goes
    _rule(
        "private-key",
        r"-----BEGIN[A-Z0-9 _-]{0,40}PRIVATE KEY(?: BLOCK)?-----"
        r"(?:[\s\S]{0,20000}?-----END[A-Z0-9 _-]{0,40}PRIVATE KEY(?: BLOCK)?-----"
        r"|(?:[A-Za-z0-9+/=\s:,-]|\\[nr])*)",
        ("PRIVATE KEY",),
    ),
    _rule("anthropic-api-key", _B + r"sk-ant-[a-z]{2,8}\d{0,3}-[A-Za-z0-9_-]{20,}", ("sk-ant-",)),
    _rule("openrouter-api-key", _B + r"sk-or-v\d-[A-Za-z0-9]{32,}" + _E, ("sk-or-",)),
    _rule(
        "openai-api-key",
        _B + r"sk-(?:(?:proj|svcacct|admin|None)-)?[A-Za-z0-9_-]{10,}T3BlbkFJ[A-Za-z0-9_-]{10,}"
        r"|" + _B + r"sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,}"
        r"|" + _B + r"sk-[A-Za-z0-9]{48}" + _E,
        ("sk-",),
    ),
    _rule(
        "aws-access-key",
        r"\b(?:A3T[A-Z0-9]|AKIA|ASIA)[A-Z0-9]{16}\b",
        ("AKIA", "ASIA", "A3T"),
    ),
    _rule(
        "aws-secret-key",
        r"(?i:aws_?secret_?(?:access_?)?key|secret_?access_?key|aws_?session_?token)"
        r"[\\\"']{0,3}[ \t]{0,3}[:=][ \t]{0,3}[\\\"']{0,3}(?P<value>[A-Za-z0-9/+=]{40,})"
        r"(?![A-Za-z0-9/+=])",
        (
            "secret_access_key",
            "secretaccesskey",
            "aws_secret",
            "awssecret",
            "session_token",
            "sessiontoken",
        ),
        fold=True,
        group="value",
    ),
    _rule(
        "github-token",
        _B
        + r"(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,255}"
        + _E
        + r"|"
        + _B
        + r"github_pat_[A-Za-z0-9_]{50,255}"
        + _E,
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
    ),
    _rule(
        "gitlab-token",
        _B + r"(?:glpat|gldt|glrt|glptt|glsoat|glcbt|glft|glimt|glagent|gloas)-[A-Za-z0-9_-]{20,}",
        ("glpat-", "gldt-", "glrt-", "glptt-", "glcbt-", "glsoat-"),
    ),
    _rule(
        "slack-webhook",
        r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/_-]{20,}",
        ("hooks.slack.com",),
    ),
    _rule(
        "slack-token",
        _B + r"xox[abposre]-[A-Za-z0-9-]{10,}|" + _B + r"xapp-\d-[A-Z0-9]+-\d+-[a-z0-9]+",
        ("xox", "xapp-"),
    ),
    _rule("stripe-key", _B + r"(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}", ("k_live_", "k_test_")),
    _rule("stripe-webhook-secret", _B + r"whsec_[A-Za-z0-9+/=]{24,}", ("whsec_",)),
    _rule("google-api-key", _B + r"AIza[0-9A-Za-z_-]{35}" + _E, ("AIza",)),
    _rule(
        "google-oauth",
        _B + r"GOCSPX-[A-Za-z0-9_-]{28}" + _E + r"|" + _B + r"ya29\.[0-9A-Za-z_-]{20,}",
        ("GOCSPX-", "ya29."),
    ),
    _rule("npm-token", _B + r"npm_[A-Za-z0-9]{36}" + _E, ("npm_",)),
    _rule("pypi-token", _B + r"pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}", ("pypi-AgEI",)),
    _rule("huggingface-token", _B + r"hf_[A-Za-z0-9]{34,}" + _E, ("hf_",)),
    _rule("groq-api-key", _B + r"gsk_[A-Za-z0-9]{48,}" + _E, ("gsk_",)),
    _rule("digitalocean-token", _B + r"do[opr]_v1_[a-f0-9]{64}" + _E, ("_v1_",)),
    _rule("shopify-token", _B + r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}" + _E, ("shp",)),
    _rule("sendgrid-api-key", _B + r"SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}" + _E, ("SG.",)),
    _rule("twilio-api-key", r"\bSK[0-9a-fA-F]{32}\b", ("SK",)),
    _rule("telegram-bot-token", r"\b\d{8,10}:AA[A-Za-z0-9_-]{33}" + _E, (":AA",)),
    _rule("age-secret-key", r"\bAGE-SECRET-KEY-1[0-9A-Z]{58}\b", ("AGE-SECRET-KEY-",)),
    _rule(
        "jwt",
        _B + r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}" + _E,
        ("eyJ",),
    ),
    *(
        _rule(
            name,
            _URL_PASSWORD,
            ("://",),
            group="pw",
            accept=_url_password(db=db),
            anchored=True,
            back=_SCHEME_CHARS,
        )
        for name, db in (("database-url", True), ("url-password", False))
    ),
    _rule(
        "authorization-header",
        r"(?i:\b(?:authorization|bearer|token|basic))[\\\"']{0,3}[ \t]{0,3}:?[ \t]{0,3}"
        r"(?i:bearer|token|basic)?[ \t]{1,3}(?P<value>[A-Za-z0-9_.~+/-]{16,}=*)",
        ("bearer", "authorization", "basic "),
        fold=True,
        group="value",
        accept=_token,
    ),
    _rule(
        "generic-secret",
        _GENERIC,
        ("secret", "token", "pass", "pwd", "credential", "key", "auth"),
        fold=True,
        group="value",
        accept=_assignment,
        anchored=True,
    ),
)

NAMES: tuple[str, ...] = tuple(r.name for r in RULES)


# ---- applying the table ----------------------------------------------------------------------


def _apply(rule: Rule, text: str, counts: Counter[str] | None) -> str:
    group, accept, mark = rule.group, rule.accept, rule.marker

    def replace(m: re.Match[str]) -> str:
        if accept is not None and not accept(m):
            return m.group(0)
        if counts is not None:
            counts[rule.name] += 1
        if group == 0:
            return mark
        start, end, at = m.start(group), m.end(group), m.start()
        whole = m.group(0)
        return whole[: start - at] + mark + whole[end - at :]

    return rule.regex.sub(replace, text)


def _apply_at(rule: Rule, text: str, hay: str, counts: Counter[str] | None) -> str:
    """``_apply`` for an anchored rule: its pattern tried where one of its keywords starts
    in ``hay`` (``text`` case-folded, of the same length)."""
    starts = {start for _, start, _ in _FINDERS[rule.name].find_matches_as_indexes(hay, True)}
    pieces: list[str] = []
    done = 0  # text[:done] is decided
    back = rule.back
    for pos in sorted(starts):
        if back:  # the keyword is inside the match (a URL's "://"): start at what leads to it
            while pos > done and text[pos - 1] in back:
                pos -= 1
        if pos < done:
            continue
        m = rule.regex.match(text, pos)
        if m is None or (rule.accept is not None and not rule.accept(m)):
            continue
        if counts is not None:
            counts[rule.name] += 1
        start, end = m.span(rule.group)
        pieces += [text[done:start], rule.marker]
        done = end
    if not pieces:
        return text
    pieces.append(text[done:])
    return "".join(pieces)


# One pass over the case-folded text finds which keywords occur at all (Aho-Corasick, in
# Rust): a substring test per keyword is a pass each, and 50 of them cost 8 times as much.
_GATE = AhoCorasick(sorted({k.lower() for r in RULES for k in r.keywords}))
_RULES_OF: dict[str, list[int]] = {}  # a folded keyword -> the rules (by index) it opens
for _i, _r in enumerate(RULES):
    for _k in {k.lower() for k in _r.keywords}:
        _RULES_OF.setdefault(_k, []).append(_i)
_EXACT = AhoCorasick(sorted({k for r in RULES if not r.fold for k in r.keywords}))
# where an anchored rule's keywords start (character offsets, as str indexes count)
_FINDERS = {r.name: AhoCorasick(r.keywords) for r in RULES if r.anchored}


def _run(text: str, counts: Counter[str] | None) -> str:
    folded = text.lower()
    seen = set(_GATE.find_matches_as_strings(folded, overlapping=True))
    if not seen:
        return text
    lower: str | None = folded
    exact: set[str] | None = None  # the keywords of case-sensitive rules, as written
    for i in sorted({i for k in seen for i in _RULES_OF[k]}):  # in table order
        rule = RULES[i]
        if rule.fold:
            if lower is None:
                lower = text.lower()
            hay = lower
        else:
            hay = text
            if exact is None:
                exact = set(_EXACT.find_matches_as_strings(text, overlapping=True))
            if exact.isdisjoint(rule.keywords):  # as written, not folded
                continue
        before = text
        if rule.anchored and len(hay) == len(text):  # folding kept every position
            text = _apply_at(rule, text, hay, counts)
        else:
            text = _apply(rule, text, counts)
        if text is not before:  # re.sub hands back the very string when nothing matched
            lower = None  # it may have changed: fold again if a later rule needs it
    return text


def redact(text: str) -> str:
    """``text`` with every secret the rules find replaced by ``[redacted:<rule>]``."""
    return _run(text, None) if text else text


def redact_counted(text: str) -> tuple[str, Counter[str]]:
    """``redact(text)``, and how many secrets of each rule it replaced."""
    counts: Counter[str] = Counter()
    return (_run(text, counts) if text else text), counts


def keep(text: str) -> str:
    """The text as it is: what a store with redaction turned off shows."""
    return text


def redactor(home: Path | None = None) -> Callable[[str], str]:
    """``redact``, or ``keep`` where the store's settings turn redaction off
    (``lazy config set redaction.enabled false``, or ``LAZY_REDACT=0``)."""
    from lazy.config import redaction_enabled

    return redact if redaction_enabled(home) else keep


class Counting:
    """``redact``, counting what it replaced (by rule) over every text it is given: an
    export says how many secrets it left out."""

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()

    def __call__(self, text: str) -> str:
        out, found = redact_counted(text)
        self.counts.update(found)
        return out

    @property
    def total(self) -> int:
        return sum(self.counts.values())
