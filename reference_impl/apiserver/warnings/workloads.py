"""The pod-template kinds' WarningsOnCreate/Update: PodTemplate, ReplicationController
(``pkg/registry/core/{podtemplate,replicationcontroller}/strategy.go``) and Deployment,
ReplicaSet, DaemonSet, StatefulSet (``pkg/registry/apps/*/strategy.go``). An update warns
only when the generation (DaemonSet: templateGeneration) moved."""

from __future__ import annotations

from typing import Any, Final

from reference_impl.apiserver.registry import Context, warner
from reference_impl.apiserver.warnings.persistentvolumeclaim import pvc_spec_warnings
from reference_impl.apiserver.warnings.pod import name_label_warnings, pod_template_warnings

__all__ = [
    "daemonset_warnings", "named_template_warnings", "pod_template_kind_warnings",
    "replication_controller_warnings", "statefulset_warnings",
]

Obj = dict[str, Any]

_NAMES: Final = "Pod names and hostnames"
_TGEN: Final = "deprecated.daemonset.template.generation"
_HISTORY: Final = ("spec.revisionHistoryLimit: a negative value retains all historical "
                   "revisions; a value >= 0 is recommended")  # fmt: skip


def _generation(obj: Obj) -> object:
    return obj["metadata"].get("generation")


def _template_generation(ds: Obj) -> object:
    """apps/v1 carries the internal spec.templateGeneration in this annotation."""
    return (ds["metadata"].get("annotations") or {}).get(_TGEN)


def _template(obj: Obj) -> Obj:
    return (obj.get("spec") or {}).get("template") or {}


@warner("PodTemplate")
def pod_template_kind_warnings(pt: Obj, old: Obj | None, ctx: Context) -> list[str]:
    """podTemplateStrategy."""
    if old is None or _generation(pt) != _generation(old):
        return pod_template_warnings("template", pt.get("template") or {}, ctx)
    return []


@warner("Deployment", "ReplicaSet")
def named_template_warnings(obj: Obj, old: Obj | None, ctx: Context) -> list[str]:
    """deploymentStrategy and rsStrategy: the name on create, then the template."""
    if old is None:
        return name_label_warnings(obj, _NAMES) + pod_template_warnings("spec.template", _template(obj), ctx)
    if _generation(obj) != _generation(old):
        return pod_template_warnings("spec.template", _template(obj), ctx)
    return []


@warner("ReplicationController")
def replication_controller_warnings(rc: Obj, old: Obj | None, ctx: Context) -> list[str]:
    """rcStrategy. Its update passes the old template where the new one belongs
    (``GetWarningsForPodTemplate(..., oldRc.Spec.Template, newRc.Spec.Template)``), so an
    update warns of what the old template had; kept as upstream does."""
    if old is None:
        return name_label_warnings(rc, _NAMES) + pod_template_warnings(
            "spec.template", (rc.get("spec") or {}).get("template"), ctx)
    if _generation(rc) != _generation(old):
        return pod_template_warnings("spec.template", (old.get("spec") or {}).get("template"), ctx)
    return []


@warner("DaemonSet")
def daemonset_warnings(ds: Obj, old: Obj | None, ctx: Context) -> list[str]:
    """daemonSetStrategy: no name check; an update compares spec.templateGeneration."""
    if old is None or _template_generation(ds) != _template_generation(old):
        return pod_template_warnings("spec.template", _template(ds), ctx)
    return []


@warner("StatefulSet")
def statefulset_warnings(sts: Obj, old: Obj | None, ctx: Context) -> list[str]:
    """statefulSetStrategy: the template, every volumeClaimTemplate's spec (an update's
    path reads ".Spec", as upstream's), and a negative revisionHistoryLimit."""
    spec = sts.get("spec") or {}
    out: list[str] = []
    if old is None or _generation(sts) != _generation(old):
        out = pod_template_warnings("spec.template", _template(sts), ctx)
    tail = "" if old is None else ".Spec"
    for i, pvc in enumerate(spec.get("volumeClaimTemplates") or ()):
        out += pvc_spec_warnings(f"spec.volumeClaimTemplates[{i}]{tail}", pvc.get("spec") or {})
    limit = spec.get("revisionHistoryLimit")
    if limit is not None and limit < 0:
        out.append(_HISTORY)
    return out
