"""What tokens cost: the prices of ``genai-prices`` (pydantic's table, bundled in the package
and read offline: lazy never asks it to update), as of the day of each response, with the
user's own rates from ``config.toml`` before them:

    [prices."claude-sonnet-4-5*"]     # a model name, or an fnmatch pattern of one
    input = 3.0                      # US dollars per million tokens
    output = 15.0
    cache_read = 0.3
    cache_write = 3.75

Why genai-prices: it is maintained (weekly releases), ships its table inside the wheel, covers
Anthropic, OpenAI (the Codex models included) and the providers OpenCode routes through
(OpenRouter, Groq, Google, ...), and keeps price history with start dates. A model it does
not know (nor the configuration) has no price: its cost is unknown, never $0.

Costs are integers in millionths of a dollar. Most prices are linear in tokens, so a sum of
responses costs what its parts cost; a tiered price (a higher rate for every token of a
request past a size) is applied response by response.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from functools import lru_cache
from importlib.metadata import version
from pathlib import Path
from typing import Any

from lazy import config

MTOK = 1_000_000
KINDS = ("input", "output", "cache_read", "cache_write")


@dataclass(frozen=True, slots=True)
class Rates:
    """Dollars per million tokens of each kind, and the request size past which a tiered
    price changes (None: linear at any size)."""

    input: Decimal
    output: Decimal
    cache_read: Decimal
    cache_write: Decimal
    tier_from: int | None = None
    source: str = "genai-prices"
    price: Any = None  # the table's price, for a tiered one

    def micros(self, i: int, o: int, cr: int, cw: int) -> Decimal:
        """Tokens summed at these rates ($ per Mtok x tokens = millionths of a dollar),
        exact: the caller rounds its total once."""
        return i * self.input + o * self.output + cr * self.cache_read + cw * self.cache_write

    def response_micros(self, i: int, o: int, cr: int, cw: int) -> Decimal:
        """One response, at the tier its size reaches."""
        if self.price is None:
            return self.micros(i, o, cr, cw)
        from genai_prices import Usage

        usage = Usage(
            input_tokens=i + cr + cw, output_tokens=o, cache_read_tokens=cr, cache_write_tokens=cw
        )
        return Decimal(self.price.calc_price(usage)["total_price"]) * MTOK


def table_version() -> str:
    return version("genai-prices")


def provenance(home: Path | None = None) -> str:
    own = overrides(home)
    text = f"prices of genai-prices {table_version()}"
    if own:
        text += f", own rates for {', '.join(sorted(own))} ({config.path(home)})"
    return text


def overrides(home: Path | None = None) -> dict[str, Rates]:
    """The user's own rates (``[prices."<model pattern>"]``), checked as they are read."""
    table = config.load(home).get("prices", {})
    if not isinstance(table, dict):
        raise config.ConfigError(f"{config.path(home)}: [prices] must be a table of models")
    out: dict[str, Rates] = {}
    for pattern, spec in table.items():
        if not isinstance(spec, dict):
            raise config.ConfigError(
                f"{config.path(home)}: [prices.{pattern!r}] must be a table ({', '.join(KINDS)})"
            )
        vals: dict[str, Decimal] = {}
        for k, v in spec.items():
            if k not in KINDS or isinstance(v, bool) or not isinstance(v, int | float) or v < 0:
                raise config.ConfigError(
                    f"{config.path(home)}: [prices.{pattern!r}] {k} = {v!r}: the keys are"
                    f" {', '.join(KINDS)}, each a price in US dollars per million tokens"
                )
            vals[k] = Decimal(str(v))
        out[str(pattern)] = Rates(
            vals.get("input", Decimal(0)),
            vals.get("output", Decimal(0)),
            vals.get("cache_read", vals.get("input", Decimal(0))),
            vals.get("cache_write", vals.get("input", Decimal(0))),
            source="config",
        )
    return out


def rates(
    model: str | None, provider: str | None, day: str | None, home: Path | None = None
) -> Rates | None:
    """The rates in force for a model on a day (YYYY-MM-DD); None: no known price."""
    if not model:
        return None
    for pattern, r in overrides(home).items():
        if fnmatch.fnmatchcase(model, pattern):
            return r
    return _table_rates(model, provider, day)


@lru_cache(maxsize=4096)
def _table_rates(model: str, provider: str | None, day: str | None) -> Rates | None:
    from genai_prices import Usage
    from genai_prices.data_snapshot import get_snapshot
    from genai_prices.types import TieredPrices

    snap = get_snapshot()
    found = None
    for pid in dict.fromkeys((provider, None)):
        try:
            found = snap.find_provider_model(model, None, pid, None)
        except LookupError:
            continue
        break
    # the table's look-up falls back to a cached provider's model on a miss: a price counts
    # only when the model found answers to the name asked for
    if found is None or not found[1].is_match(model):
        return None
    try:
        when = datetime.fromisoformat(day or "").replace(tzinfo=UTC)
    except ValueError:  # no time said (or not one that parses): today's prices
        when = datetime.now(tz=UTC)
    price = found[1].get_prices(when)

    n = 1000  # below any tier: the base rates, per million by x1000 (exact in Decimal)

    def cost(**kw: int) -> Decimal:
        return Decimal(price.calc_price(Usage(**kw))["total_price"]) * (MTOK // n)

    try:
        r = Rates(
            input=cost(input_tokens=n),
            output=cost(output_tokens=n),
            cache_read=cost(input_tokens=n, cache_read_tokens=n),
            cache_write=cost(input_tokens=n, cache_write_tokens=n),
        )
    except (ValueError, KeyError, TypeError):
        return None
    tiers = [t.start for v in vars(price).values() if isinstance(v, TieredPrices) for t in v.tiers]
    if tiers:
        r = Rates(r.input, r.output, r.cache_read, r.cache_write, min(tiers), price=price)
    return r


@lru_cache(maxsize=1)
def tier_split() -> int:
    """The smallest request size at which any tiered price of the table changes: a
    response at least this big is priced on its own."""
    from genai_prices.data_snapshot import get_snapshot
    from genai_prices.types import ModelPrice, TieredPrices

    starts = [1 << 62]
    for prov in get_snapshot().providers:
        for m in prov.models:
            prices = m.prices if isinstance(m.prices, list) else [m.prices]
            for p in prices:
                mp = p if isinstance(p, ModelPrice) else p.prices
                for v in vars(mp).values():
                    if isinstance(v, TieredPrices):
                        starts.extend(t.start for t in v.tiers)
    return min(starts)
