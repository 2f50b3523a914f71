"""``DropDisabledFields`` of ``pkg/api/job/util.go`` (1.37.2), run by the Job and CronJob
strategies' PrepareForCreate/Update: without WorkloadWithJob a Job spec's ``scheduling``
is dropped unless the old spec already had one."""

from __future__ import annotations

from typing import Any

from reference_impl.apiserver.registry import Context, preparer
from reference_impl.features import FeatureGates

__all__ = ["drop_disabled_fields"]

Obj = dict[str, Any]


def drop_disabled_fields(spec: Obj, old_spec: Obj | None, gates: FeatureGates) -> None:
    """``DropDisabledFields``; ``old_spec`` is None on create (``schedulingInUse``)."""
    if gates.enabled("WorkloadWithJob"):
        return
    if old_spec is not None and old_spec.get("scheduling") is not None:
        return
    spec.pop("scheduling", None)


def _at(obj: Obj | None, *path: str) -> Obj | None:
    node: Any = obj
    for step in path:
        node = node.get(step) if isinstance(node, dict) else None
    return node if isinstance(node, dict) else None


def _drop(obj: Obj, old: Obj | None, path: tuple[str, ...], gates: FeatureGates) -> None:
    spec = _at(obj, *path)
    if spec is not None:
        # On update the old JobSpec is a struct, never nil: an absent one is empty.
        drop_disabled_fields(spec, None if old is None else _at(old, *path) or {}, gates)


@preparer("Job")
def drop_disabled_job_fields(job: Obj, old: Obj | None, now: str, ctx: Context) -> None:
    _drop(job, old, ("spec",), ctx.gates)


@preparer("CronJob")
def drop_disabled_cronjob_fields(cj: Obj, old: Obj | None, now: str, ctx: Context) -> None:
    _drop(cj, old, ("spec", "jobTemplate", "spec"), ctx.gates)
