"""PersistentVolume (``pkg/registry/core/persistentvolume/strategy.go``, 1.37.2): defaults,
the status a create or update starts from, and the spec rules of
``reference_impl.apiserver.validation.persistent_volume``."""

from __future__ import annotations

from typing import Any

from reference_impl.api.formats import label_value_errors
from reference_impl.apiserver.registry import Context, defaulter, preparer, validator
from reference_impl.apiserver.strategies.pod_source_defaults import default_volume_source
from reference_impl.apiserver.validation import persistent_volume as rules
from reference_impl.apiserver.validation import pod_volumes
from reference_impl.errors import Cause

__all__: list[str] = []

Obj = dict[str, Any]


def _o(v: Any) -> Obj:
    return v if isinstance(v, dict) else {}


@defaulter("PersistentVolume")
def default_pv(pv: Obj, ctx: Context) -> None:
    """``SetDefaults_PersistentVolume``."""
    spec = pv.setdefault("spec", {})
    if isinstance(spec, dict):
        if not spec.get("persistentVolumeReclaimPolicy"):  # "" too (a string, not a pointer)
            spec["persistentVolumeReclaimPolicy"] = "Retain"
        if spec.get("volumeMode") is None:
            spec["volumeMode"] = "Filesystem"
        pod_volumes.default_azure_disk(spec.get("azureDisk"))
        default_volume_source(spec)  # SetObjectDefaults_PersistentVolume: the same markers
    status = pv.setdefault("status", {})
    if isinstance(status, dict) and not status.get("phase"):
        status["phase"] = "Pending"


@defaulter("PersistentVolumeClaim")
def default_pvc(pvc: Obj, ctx: Context) -> None:
    """``SetDefaults_PersistentVolumeClaimSpec``: a claim's volumeMode is Filesystem unless set."""
    if pvc.get("spec") is None:  # a null spec decodes to the empty struct, defaulted too
        pvc["spec"] = {}
    spec = pvc.get("spec")
    if isinstance(spec, dict) and spec.get("volumeMode") is None:
        spec["volumeMode"] = "Filesystem"


@preparer("PersistentVolume")
def prepare_pv(pv: Obj, old: Obj | None, now: str, ctx: Context) -> None:
    """Create: a Pending status stamped now; update: the stored status stays."""
    if old is None:
        pv["status"] = {"phase": "Pending", "lastPhaseTransitionTime": now}
    elif "status" in old:
        pv["status"] = old["status"]
    else:
        pv.pop("status", None)


@preparer("PersistentVolume", status=True)
def prepare_pv_status(pv: Obj, old: Obj | None, now: str, ctx: Context) -> None:
    """A phase change the client did not stamp gets now; an unchanged phase keeps its time."""
    status, ostatus = _o(pv.get("status")), _o((old or {}).get("status"))
    if not isinstance(pv.get("status"), dict):
        return
    same = status.get("phase") == ostatus.get("phase")
    stamp = status.get("lastPhaseTransitionTime")
    if same and stamp is None and "lastPhaseTransitionTime" in ostatus:
        status["lastPhaseTransitionTime"] = ostatus["lastPhaseTransitionTime"]
    elif not same and (stamp is None or stamp == ostatus.get("lastPhaseTransitionTime")):
        status["lastPhaseTransitionTime"] = now


def _invalid_label_values(old: Obj | None) -> bool:
    """``HasInvalidLabelValueInNodeSelectorTerms`` of the old volume's required terms."""
    req = _o(_o(_o((old or {}).get("spec")).get("nodeAffinity")).get("required"))
    for term in req.get("nodeSelectorTerms") or []:
        for rq in _o(term).get("matchExpressions") or []:
            if any(label_value_errors(str(v)) for v in _o(rq).get("values") or []):
                return True
    return False


@validator("PersistentVolume")
def validate_pv(pv: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``Validate`` / ``ValidateUpdate`` of the strategy."""
    causes = rules.spec_causes(pv, _invalid_label_values(old)) + rules.mount_option_causes(pv)
    if old is not None:
        causes += rules.update_causes(pv, old, ctx.gates.enabled("MutablePVNodeAffinity"))
    return causes
