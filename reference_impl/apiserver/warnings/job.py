"""``pkg/api/job/warnings.go`` (``WarningsForJobSpec``) and the Job and CronJob strategies'
WarningsOnCreate/Update (``pkg/registry/batch/{job,cronjob}/strategy.go``)."""

from __future__ import annotations

from typing import Any, Final

from reference_impl.apiserver.registry import Context, warner
from reference_impl.apiserver.warnings.pod import name_label_warnings, pod_template_warnings

__all__ = ["cronjob_warnings", "job_spec_warnings", "job_warnings"]

Obj = dict[str, Any]

_COMPLETIONS_SOFT_LIMIT: Final = 100_000
_PARALLELISM_SOFT_LIMIT: Final = 10_000
_NAMES: Final = "Pod names and hostnames"


def job_spec_warnings(path: str, spec: Obj, ctx: Context | None) -> list[str]:
    """``WarningsForJobSpec``: a huge Indexed Job, then the pod template's warnings."""
    out = []
    if spec.get("completionMode") == "Indexed":
        completions = spec.get("completions") or 0
        parallelism = spec.get("parallelism") or 0
        if completions > _COMPLETIONS_SOFT_LIMIT and parallelism > _PARALLELISM_SOFT_LIMIT:
            out.append(f"{path}: In Indexed Jobs with a number of completions higher than 10^5 and "
                       "a parallelism higher than 10^4, Kubernetes might not be able to track "
                       "completedIndexes when a big number of indexes fail")  # fmt: skip
    template_path = f"{path}.template" if path else "template"
    return out + pod_template_warnings(template_path, spec.get("template") or {}, ctx)


def _generation_changed(obj: Obj, old: Obj) -> bool:
    return bool(obj["metadata"].get("generation") != old["metadata"].get("generation"))


@warner("Job")
def job_warnings(job: Obj, old: Obj | None, ctx: Context) -> list[str]:
    """jobStrategy: the name on create; the spec when created or its generation moved."""
    if old is None:
        return name_label_warnings(job, _NAMES) + job_spec_warnings("spec", job.get("spec") or {}, ctx)
    if _generation_changed(job, old):
        return job_spec_warnings("spec", job.get("spec") or {}, ctx)
    return []


@warner("CronJob")
def cronjob_warnings(cj: Obj, old: Obj | None, ctx: Context) -> list[str]:
    """cronJobStrategy; an update also warns of a TZ in the schedule (its path, as
    upstream's, reads "spec.spec.schedule")."""
    spec = cj.get("spec") or {}
    template_spec = (spec.get("jobTemplate") or {}).get("spec") or {}
    path = "spec.jobTemplate.spec"
    if old is None:
        return name_label_warnings(cj, _NAMES) + job_spec_warnings(path, template_spec, ctx)
    out = job_spec_warnings(path, template_spec, ctx) if _generation_changed(cj, old) else []
    if "TZ" in spec.get("schedule", ""):
        out.append("cannot use TZ or CRON_TZ in spec.spec.schedule, use timeZone instead, see "
                   "https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more "
                   "details")  # fmt: skip
    return out
