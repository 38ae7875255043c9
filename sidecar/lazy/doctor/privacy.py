"""Whether LAZY_HOME is private: every file 0600, every folder 0700 (invariant 10).

Opening the store already tightens a store that is wider than that; this check walks the
whole of LAZY_HOME, tightens whatever is left, and says what was, since the transcripts were
readable by other users until then."""

from __future__ import annotations

from lazy.doctor.context import Context
from lazy.doctor.report import Check
from lazy.os.private import Tightened, tighten_home

TITLE = "Store is private"
SHOWN = 5  # paths listed at most


def privacy_check(ctx: Context) -> Check:
    if not ctx.home.exists():
        return Check(TITLE, "ok", [f"no {ctx.home} yet: lazy makes it 0700 when it first writes"])
    done = Tightened()
    if ctx.store is not None:
        done.extend(ctx.store.tightened)
    done.extend(tighten_home(ctx.home))
    if done.failed:
        detail = [f"{len(done.failed)} path(s) under {ctx.home} stay readable by other users:"]
        detail += [f"  {path}: {why}" for path, why in done.failed[:SHOWN]]
        if len(done.failed) > SHOWN:
            detail.append(f"  … and {len(done.failed) - SHOWN} more")
        fix = f"chmod -R go-rwx {ctx.home} (as the owner of the files; or chown them back)"
        return Check(TITLE, "fail", detail, fix)
    if done.changed:
        detail = [
            f"{len(done.changed)} path(s) under {ctx.home} were readable by other users"
            " until now; made private:"
        ]
        shown = sorted(done.changed, key=lambda c: (len(c[0].parts), str(c[0])))[:SHOWN]
        detail += [f"  {p} {was:04o} -> {now:04o}" for p, was, now in shown]  # the home first
        if len(done.changed) > SHOWN:
            detail.append(f"  … and {len(done.changed) - SHOWN} more")
        return Check(TITLE, "warn", detail)
    return Check(TITLE, "ok", [f"{ctx.home}: every file is 0600, every folder 0700"])
