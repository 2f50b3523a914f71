"""DaemonSet status (``daemon_controller.go``): ``updateDaemonSetStatus``'s counters and
``storeDaemonSetStatus``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from reference_impl.clock import Instant
from reference_impl.controllers.controller_utils import is_pod_available, is_pod_ready
from reference_impl.controllers.daemon.placement import Placement, pod_order_key
from reference_impl.controllers.daemon.util import generation_or_none, is_pod_updated
from reference_impl.errors import ApiError

__all__ = ["COUNTERS", "calculate_status", "store_daemon_set_status"]

Obj = dict[str, Any]
COUNTERS: Final = (
    "desiredNumberScheduled", "currentNumberScheduled", "numberMisscheduled", "numberReady",
    "updatedNumberScheduled", "numberAvailable", "numberUnavailable",
)  # fmt: skip
STATUS_UPDATE_RETRIES: Final = 1


def calculate_status(
    ds: Mapping[str, Any],
    nodes: list[Obj],
    node_to_pods: Mapping[str, list[Obj]],
    hash_: str,
    now: Instant,
    placement: Placement,
) -> dict[str, int]:
    """The counters of ``updateDaemonSetStatus``: per node that should run a pod, its
    oldest scheduled pod decides ready, available and updated; pods on other nodes are
    misscheduled."""
    out = dict.fromkeys(COUNTERS, 0)
    min_ready = int(ds["spec"].get("minReadySeconds", 0) or 0)
    generation = generation_or_none(ds)
    for node in nodes:
        should_run = placement.should_run(node)[0]
        pods = node_to_pods.get(str(node["metadata"]["name"])) or []
        if not should_run:
            out["numberMisscheduled"] += bool(pods)
            continue
        out["desiredNumberScheduled"] += 1
        if not pods:
            continue
        out["currentNumberScheduled"] += 1
        pod = min(pods, key=pod_order_key)
        if is_pod_ready(pod):
            out["numberReady"] += 1
            out["numberAvailable"] += is_pod_available(pod, min_ready, now)
        out["updatedNumberScheduled"] += is_pod_updated(pod, hash_, generation)
    out["numberUnavailable"] = out["desiredNumberScheduled"] - out["numberAvailable"]
    return out


def store_daemon_set_status(
    server: Any, ds: Obj, counters: Mapping[str, int], update_observed_gen: bool
) -> Obj | None:
    """``storeDaemonSetStatus``: nothing when every counter is as stored and the
    generation observed; else /status, once more on the fresh object after a failure."""
    status = ds.get("status") or {}
    generation = int(ds["metadata"].get("generation", 0) or 0)
    if all(int(status.get(k, 0) or 0) == v for k, v in counters.items()) and int(
        status.get("observedGeneration", 0) or 0
    ) >= generation:
        return None
    to_update: Obj = ds
    for attempt in range(STATUS_UPDATE_RETRIES + 1):
        new_status = dict(to_update.get("status") or {})
        if update_observed_gen:
            new_status["observedGeneration"] = generation
        new_status.update(counters)
        for key in ("numberAvailable", "numberUnavailable", "updatedNumberScheduled",
                    "observedGeneration"):  # fmt: skip
            if new_status.get(key) == 0:
                new_status.pop(key)  # omitempty on the wire
        try:
            out: Obj = server.update_status({**to_update, "status": new_status})
            return out
        except ApiError:
            if attempt >= STATUS_UPDATE_RETRIES:
                raise
            meta = ds["metadata"]
            to_update = server.get("apps/v1", "DaemonSet", meta["name"], meta.get("namespace"))
    return None
