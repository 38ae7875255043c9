"""usage/report: tokens and cost by day, week, project, agent or model, as `lazy usage`."""

from __future__ import annotations

from pygls.exceptions import JsonRpcInvalidParams

from lazy.server.protocol import UsageReportParams, UsageReportResult
from lazy.server.rpc import request
from lazy.server.sidecar import Sidecar
from lazy.usage.report import moment, report


def register(ls: Sidecar) -> None:
    @request(ls, "usage/report")
    def usage_report(ls: Sidecar, p: UsageReportParams) -> UsageReportResult:
        try:
            since, until = moment(p.since, "since"), moment(p.until, "until")
        except ValueError as e:
            raise JsonRpcInvalidParams(str(e)) from None
        projects = None if p.all_projects else list(p.workspace_folders)
        r = report(
            ls.store().conn,
            p.by,
            since=since,
            until=until,
            projects=projects,
            nested=True,
            home=ls.home,
        )
        return UsageReportResult.model_validate(r.model_dump())
