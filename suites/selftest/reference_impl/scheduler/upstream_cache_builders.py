"""Builders for the cache and snapshot tables (test_upstream_snapshot*.py): ``st.MakePod``
and ``st.MakeNode`` as plain v1 dicts, and ``NewSnapshot`` over the reference cache."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from reference_impl.scheduler.cache import SchedulerCache

__all__ = ["HOSTNAME", "MB", "new_snapshot", "node", "pod"]

Obj = dict[str, Any]
MB = 1024 * 1024
HOSTNAME = "kubernetes.io/hostname"


def node(name: str, labels: dict[str, str] | None = None, images: Sequence[tuple[str, int]] = (),
         allocatable: dict[str, str] | None = None) -> Obj:
    status: Obj = {"images": [{"names": [n], "sizeBytes": s} for n, s in images]}
    if allocatable:
        status["allocatable"] = allocatable
    return {"metadata": {"name": name, "labels": labels or {}}, "status": status}


def pod(name: str, ns: str = "", node_name: str = "", *, affinity: Sequence[tuple[str, Obj]] = (),
        anti: Sequence[tuple[str, Obj]] = (), pvc: str = "", ports: Sequence[int] = (),
        annotations: dict[str, str] | None = None, priority: int | None = None) -> Obj:
    """``st.MakePod()``: required (anti-)affinity terms as (topologyKey, matchLabels or
    ``{"exists": key}``), a PVC volume, host ports."""
    meta: Obj = {"name": name, "uid": name}
    if ns:
        meta["namespace"] = ns
    if annotations:
        meta["annotations"] = annotations
    container: Obj = {"name": "c"}
    if ports:
        container["ports"] = [{"hostPort": p} for p in ports]
    spec: Obj = {"nodeName": node_name, "containers": [container]}
    if priority is not None:
        spec["priority"] = priority

    def terms(items: Sequence[tuple[str, Obj]]) -> list[Obj]:
        out = []
        for topo, sel in items:
            if "exists" in sel:
                ls: Obj = {"matchExpressions": [{"key": sel["exists"], "operator": "Exists"}]}
            else:
                ls = {"matchLabels": sel}
            out.append({"labelSelector": ls, "topologyKey": topo})
        return out

    aff: Obj = {}
    if affinity:
        aff["podAffinity"] = {"requiredDuringSchedulingIgnoredDuringExecution": terms(affinity)}
    if anti:
        aff["podAntiAffinity"] = {"requiredDuringSchedulingIgnoredDuringExecution": terms(anti)}
    if aff:
        spec["affinity"] = aff
    if pvc:
        spec["volumes"] = [{"name": pvc, "persistentVolumeClaim": {"claimName": pvc}}]
    return {"metadata": meta, "spec": spec, "status": {}}


def new_snapshot(pods: list[Obj], nodes: list[Obj]) -> SchedulerCache:
    """``NewSnapshot``: the pods first (their NodeInfos before the nodes), then the nodes."""
    cache = SchedulerCache()
    for p in pods:
        assert cache.add_pod(p) == ""
    for n in nodes:
        cache.add_node(n)
    return cache
