// Compile-time check (part of `tsc --noEmit`, never run): every example in
// protocol/fixtures/ is assignable to the generated types. JSON imports widen literals
// ("captured" → string, [48, 53] → number[]), so the targets are widened the same way; the
// literals themselves are checked at run time by test/unit/fixtures.test.ts.
import type * as P from "../src/protocol";
import askRun from "../../protocol/fixtures/ask_run.json";
import buildersDidChange from "../../protocol/fixtures/builders_didChange.json";
import buildersGet from "../../protocol/fixtures/builders_get.json";
import buildersList from "../../protocol/fixtures/builders_list.json";
import buildersName from "../../protocol/fixtures/builders_name.json";
import buildersSources from "../../protocol/fixtures/builders_sources.json";
import captureDidFail from "../../protocol/fixtures/capture_didFail.json";
import captureStatus from "../../protocol/fixtures/capture_status.json";
import doctorRun from "../../protocol/fixtures/doctor_run.json";
import importPreview from "../../protocol/fixtures/import_preview.json";
import importRun from "../../protocol/fixtures/import_run.json";
import searchQuery from "../../protocol/fixtures/search_query.json";
import tasksList from "../../protocol/fixtures/tasks_list.json";
import tasksPromote from "../../protocol/fixtures/tasks_promote.json";
import transcriptsPage from "../../protocol/fixtures/transcripts_page.json";

type Widen<T> = T extends string
  ? string
  : T extends number
    ? number
    : T extends boolean
      ? boolean
      : T extends readonly (infer U)[]
        ? Widen<U>[]
        : T extends object
          ? { [K in keyof T]: Widen<T[K]> }
          : T;

/** Fails to compile unless A has no field that B lacks (one level deep). */
type NoExtraKeys<A, B> = Exclude<keyof A, keyof B> extends never ? true : never;
const exact = <A, B>(_: NoExtraKeys<A, B>): void => undefined;

export const checks: unknown[] = [
  ((p: Widen<P.AskRunParams>) => p)(askRun.params),
  ((r: Widen<P.AskRunResult>) => r)(askRun.result),
  ((p: Widen<P.BuildersDidChange>) => p)(buildersDidChange.params),
  ((p: Widen<P.BuildersGetParams>) => p)(buildersGet.params),
  ((r: Widen<P.BuilderInfo>) => r)(buildersGet.result),
  ((p: Widen<P.BuildersListParams>) => p)(buildersList.params),
  ((r: Widen<P.BuildersListResult>) => r)(buildersList.result),
  ((p: Widen<P.BuildersNameParams>) => p)(buildersName.params),
  ((r: Widen<P.BuilderInfo>) => r)(buildersName.result),
  ((p: Widen<P.BuildersGetParams>) => p)(buildersSources.params),
  ((r: Widen<P.BuildersSourcesResult>) => r)(buildersSources.result),
  ((p: Widen<P.CaptureFailure>) => p)(captureDidFail.params),
  ((r: Widen<P.CaptureStatusResult>) => r)(captureStatus.result),
  ((r: Widen<P.DoctorReport>) => r)(doctorRun.result),
  ((p: Widen<P.ImportParams>) => p)(importPreview.params),
  ((r: Widen<P.ImportResult>) => r)(importPreview.result),
  ((p: Widen<P.ImportParams>) => p)(importRun.params),
  ((r: Widen<P.ImportResult>) => r)(importRun.result),
  ((p: Widen<P.SearchQueryParams>) => p)(searchQuery.params),
  ((r: Widen<P.SearchResults>) => r)(searchQuery.result),
  ((p: Widen<P.TasksListParams>) => p)(tasksList.params),
  ((r: Widen<P.TasksListResult>) => r)(tasksList.result),
  ((p: Widen<P.TasksPromoteParams>) => p)(tasksPromote.params),
  ((r: Widen<P.TasksPromoteResult>) => r)(tasksPromote.result),
  ((p: Widen<P.TranscriptsPageParams>) => p)(transcriptsPage.params),
  ((r: Widen<P.TranscriptsPageResult>) => r)(transcriptsPage.result),
];

exact<typeof askRun.params, P.AskRunParams>(true);
exact<typeof askRun.result, P.AskRunResult>(true);
exact<typeof buildersGet.result, P.BuilderInfo>(true);
exact<typeof captureStatus.params, P.NoParams>(true);
exact<(typeof buildersList.result.items)[number], P.BuilderInfo>(true);
exact<typeof buildersList.params, P.BuildersListParams>(true);
exact<typeof buildersSources.result, P.BuildersSourcesResult>(true);
exact<(typeof buildersSources.result.files)[number], P.SourceFile>(true);
exact<typeof captureStatus.result, P.CaptureStatusResult>(true);
exact<typeof captureDidFail.params, P.CaptureFailure>(true);
exact<typeof doctorRun.params, P.NoParams>(true);
exact<typeof doctorRun.result, P.DoctorReport>(true);
exact<(typeof doctorRun.result.checks)[number], P.HealthCheck>(true);
exact<typeof importRun.result.reports.claude, P.ImportReport>(true);
exact<(typeof searchQuery.result.groups)[number], P.SearchGroup>(true);
exact<(typeof searchQuery.result.groups)[number]["hits"][number], P.SearchHit>(true);
exact<(typeof transcriptsPage.result.messages)[number], P.MessageView>(true);
exact<typeof transcriptsPage.result, P.TranscriptsPageResult>(true);
exact<typeof tasksList.params, P.TasksListParams>(true);
exact<(typeof tasksList.result.items)[number], P.Task>(true);
exact<typeof tasksPromote.params, P.TasksPromoteParams>(true);
exact<typeof tasksPromote.result.task, P.Task>(true);
