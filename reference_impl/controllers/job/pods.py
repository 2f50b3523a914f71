"""A Job's new pods (``job_controller.go`` ``manageJob``, ``indexed_job_utils.go``)."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any, Final

from reference_impl.controllers.controller_utils import pod_from_template
from reference_impl.controllers.job.indexed_job_utils import COMPLETION_INDEX
from reference_impl.controllers.job.tracking import JOB_TRACKING_FINALIZER

__all__ = ["generate_name_with_index", "new_pod"]

Obj = dict[str, Any]
MAX_GENERATED_NAME_LENGTH: Final = 58  # names.MaxGeneratedNameLength: 63 less 5 random


def new_pod(job: Mapping[str, Any], index: int | None) -> Obj:
    """A pod from the Job template, tracked by the job-tracking finalizer."""
    name = job["metadata"]["name"]
    prefix = f"{name}-" if index is None else generate_name_with_index(name, index)
    pod = pod_from_template(job["spec"]["template"], job, prefix)
    meta = pod["metadata"]
    meta["finalizers"] = [*(meta.get("finalizers") or []), JOB_TRACKING_FINALIZER]
    if index is not None:
        meta.setdefault("annotations", {})[COMPLETION_INDEX] = str(index)
        meta.setdefault("labels", {})[COMPLETION_INDEX] = str(index)
        pod["spec"]["hostname"] = f"{name}-{index}"
        _add_index_env(pod["spec"])
    return pod


def generate_name_with_index(job_name: str, index: int) -> str:
    """``podGenerateNameWithIndex``: "<job>-<index>-", the job name cut so the prefix
    fits MaxGeneratedNameLength (58)."""
    suffix = f"-{index}-"
    prefix = job_name + suffix
    if len(prefix) > MAX_GENERATED_NAME_LENGTH:
        prefix = prefix[: MAX_GENERATED_NAME_LENGTH - len(suffix)] + suffix
    return prefix


def _add_index_env(spec: Obj) -> None:
    """``addCompletionIndexEnvVariables``: JOB_COMPLETION_INDEX from the index label."""
    env = {
        "name": "JOB_COMPLETION_INDEX",
        "valueFrom": {"fieldRef": {"fieldPath": f"metadata.labels['{COMPLETION_INDEX}']"}},
    }
    for lst in ("initContainers", "containers"):
        for c in spec.get(lst) or []:
            if not any(e.get("name") == "JOB_COMPLETION_INDEX" for e in c.get("env") or []):
                c["env"] = [*(c.get("env") or []), copy.deepcopy(env)]
