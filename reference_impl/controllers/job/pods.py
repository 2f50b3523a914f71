"""Creating and deleting a Job's pods (``job_controller.go`` ``manageJob``)."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from reference_impl.controllers.controller_utils import pod_from_template
from reference_impl.controllers.job.indexed_job_utils import COMPLETION_INDEX, index_of
from reference_impl.controllers.job.tracking import JOB_TRACKING_FINALIZER

__all__ = ["new_pod", "pending_indexes", "wanted_active"]

Obj = dict[str, Any]


def wanted_active(job: Mapping[str, Any], succeeded: int) -> int:
    """How many pods should be active: parallelism, capped by the remaining completions."""
    spec = job["spec"]
    parallelism = int(spec.get("parallelism", 1))
    completions = spec.get("completions")
    if completions is None:
        # Work-queue Jobs stop starting pods once any pod succeeded.
        return parallelism if succeeded == 0 else 0
    return max(0, min(parallelism, int(completions) - succeeded))


def pending_indexes(job: Mapping[str, Any], completed: set[int], active: list[Obj]) -> list[int]:
    """Indexes below completions that are neither completed nor running, ascending."""
    busy = {index_of(p) for p in active}
    total = int(job["spec"].get("completions") or 0)
    return [i for i in range(total) if i not in completed and i not in busy]


def new_pod(job: Mapping[str, Any], index: int | None) -> Obj:
    """A pod from the Job template, tracked by the job-tracking finalizer."""
    name = job["metadata"]["name"]
    prefix = f"{name}-" if index is None else f"{name}-{index}-"
    pod = pod_from_template(job["spec"]["template"], job, prefix)
    meta = pod["metadata"]
    meta["finalizers"] = [*(meta.get("finalizers") or []), JOB_TRACKING_FINALIZER]
    if index is not None:
        meta.setdefault("annotations", {})[COMPLETION_INDEX] = str(index)
        meta.setdefault("labels", {})[COMPLETION_INDEX] = str(index)
        pod["spec"].setdefault("hostname", f"{name}-{index}")
        _add_index_env(pod["spec"])
    return pod


def _add_index_env(spec: Obj) -> None:
    env = {
        "name": "JOB_COMPLETION_INDEX",
        "valueFrom": {"fieldRef": {"fieldPath": f"metadata.annotations['{COMPLETION_INDEX}']"}},
    }
    for lst in ("initContainers", "containers"):
        for c in spec.get(lst) or []:
            if not any(e.get("name") == "JOB_COMPLETION_INDEX" for e in c.get("env") or []):
                c["env"] = [*(c.get("env") or []), copy.deepcopy(env)]
