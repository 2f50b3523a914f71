"""PersistentVolume matching and binding rules, shared by the scheduler's volume binder and
the PV controller: models k8s.io/component-helpers/storage/volume (helpers.go,
pv_helpers.go) and ``v1helper.MatchTopologySelectorTerms``.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from decimal import Decimal
from typing import Any, Final

from reference_impl.api.meta import parse_quantity, selector_from_label_selector
from reference_impl.api.node_affinity import compile_terms

__all__ = [
    "BETA_CLASS", "BIND_COMPLETED", "BOUND_BY_CONTROLLER", "NOT_SUPPORTED_PROVISIONER", "SELECTED_NODE",
    "bind_volume_to_claim", "check_access_modes", "check_node_affinity", "check_volume_mode_mismatches",
    "claim_class", "claim_size", "find_matching_volume", "fully_bound", "is_delay_binding_mode", "match_topology",
    "resource_version",
    "volume_bound_to_claim", "volume_class",
]

Obj = dict[str, Any]
BIND_COMPLETED: Final = "pv.kubernetes.io/bind-completed"
BOUND_BY_CONTROLLER: Final = "pv.kubernetes.io/bound-by-controller"
SELECTED_NODE: Final = "volume.kubernetes.io/selected-node"
NOT_SUPPORTED_PROVISIONER: Final = "kubernetes.io/no-provisioner"
BETA_CLASS: Final = "volume.beta.kubernetes.io/storage-class"


def _annotations(obj: Obj) -> Mapping[str, str]:
    anns: Mapping[str, str] = obj["metadata"].get("annotations") or {}
    return anns


def claim_class(pvc: Obj) -> str:
    """``GetPersistentVolumeClaimClass``: the beta annotation wins over the field."""
    anns = _annotations(pvc)
    if BETA_CLASS in anns:
        return str(anns[BETA_CLASS])
    return str(pvc["spec"].get("storageClassName") or "")


def volume_class(pv: Obj) -> str:
    """``GetPersistentVolumeClass``."""
    anns = _annotations(pv)
    if BETA_CLASS in anns:
        return str(anns[BETA_CLASS])
    return str(pv["spec"].get("storageClassName") or "")


def claim_size(pvc: Obj) -> Decimal:
    """The claim's storage request (zero when it has none)."""
    raw = ((pvc["spec"].get("resources") or {}).get("requests") or {}).get("storage")
    return Decimal(0) if raw is None else parse_quantity(raw)


def _volume_size(pv: Obj) -> Decimal:
    raw = (pv["spec"].get("capacity") or {}).get("storage")
    return Decimal(0) if raw is None else parse_quantity(raw)


def resource_version(obj: Obj | None) -> int:
    """``storage.APIObjectVersioner``: the resourceVersion as a number (0 when unset)."""
    rv = str(((obj or {}).get("metadata") or {}).get("resourceVersion") or "0")
    return int(rv) if rv.isdigit() else 0


def fully_bound(pvc: Obj) -> bool:
    """``isPVCFullyBound``: a volume name and the PV controller's bind-completed mark."""
    return bool(pvc["spec"].get("volumeName")) and BIND_COMPLETED in _annotations(pvc)


def is_delay_binding_mode(pvc: Obj, storage_class: Callable[[str], Obj | None]) -> bool:
    """``storagehelpers.IsDelayBindingMode``: the claim's class (looked up with
    ``storage_class``) exists and binds WaitForFirstConsumer. ValueError when that class
    has no volumeBindingMode (upstream's error, worded as upstream's)."""
    name = claim_class(pvc)
    sc = storage_class(name) if name else None
    if sc is None:
        return False
    mode = sc.get("volumeBindingMode")
    if mode is None:
        raise ValueError(f'VolumeBindingMode not set for StorageClass "{name}"')
    return bool(mode == "WaitForFirstConsumer")


def check_node_affinity(pv: Obj, labels: Mapping[str, str]) -> bool:
    """``CheckNodeAffinity``: the PV's required node selector admits a node with ``labels``
    (matched as a node without a name, as upstream builds it)."""
    required = (pv["spec"].get("nodeAffinity") or {}).get("required")
    if required is None:
        return True
    return any(t.matches(labels, "") for t in compile_terms(required.get("nodeSelectorTerms") or ()))


def volume_bound_to_claim(pv: Obj, pvc: Obj) -> bool:
    """``IsVolumeBoundToClaim``: claimRef names the claim (and its uid, when set)."""
    ref = pv["spec"].get("claimRef")
    if ref is None:
        return False
    meta = pvc["metadata"]
    if ref.get("name") != meta.get("name") or ref.get("namespace") != meta.get("namespace"):
        return False
    return not ref.get("uid") or ref.get("uid") == meta.get("uid")


def check_volume_mode_mismatches(pvc: Obj, pv: Obj) -> bool:
    """``CheckVolumeModeMismatches``: unset means Filesystem on both sides."""
    return (pvc["spec"].get("volumeMode") or "Filesystem") != (pv["spec"].get("volumeMode") or "Filesystem")


def check_access_modes(pvc: Obj, pv: Obj) -> bool:
    """``CheckAccessModes``: the volume offers every mode the claim asks for."""
    offered = set(pv["spec"].get("accessModes") or ())
    return all(m in offered for m in pvc["spec"].get("accessModes") or ())


def find_matching_volume(
    claim: Obj, volumes: Sequence[Obj], node_labels: Mapping[str, str] | None,
    excluded: Collection[str], delay_binding: bool,
) -> Obj | None:
    """``FindMatchingVolume`` (VolumeAttributesClass on, as it is GA): a volume pre-bound
    to the claim wins outright (None when its node affinity fails); otherwise the smallest
    Available volume of the claim's class that is large enough, of the same volume mode and
    attributes class, unselected by ``excluded``, not being deleted, matching the claim's
    selector, the node's labels and the claim's access modes. The first of equal sizes wins."""
    requested = claim_size(claim)
    cls = claim_class(claim)
    sel = claim["spec"].get("selector")
    selector = selector_from_label_selector(sel) if sel is not None else None
    claim_vac = claim["spec"].get("volumeAttributesClassName") or ""
    best: Obj | None = None
    best_size = Decimal(0)
    for pv in volumes:
        if pv["metadata"]["name"] in excluded:
            continue
        if pv["spec"].get("claimRef") is not None and not volume_bound_to_claim(pv, claim):
            continue
        size = _volume_size(pv)
        if size < requested or check_volume_mode_mismatches(claim, pv):
            continue
        if (pv["spec"].get("volumeAttributesClassName") or "") != claim_vac:
            continue
        if pv["metadata"].get("deletionTimestamp"):
            continue
        affinity_ok = node_labels is None or check_node_affinity(pv, node_labels)
        if volume_bound_to_claim(pv, claim):
            return pv if affinity_ok else None  # pre-bound: this volume or none
        if node_labels is None and delay_binding:
            continue
        if (pv.get("status") or {}).get("phase") != "Available":
            continue
        if selector is not None and not selector.matches(pv["metadata"].get("labels") or {}):
            continue
        if volume_class(pv) != cls or not affinity_ok:
            continue
        if node_labels is not None and not check_access_modes(claim, pv):
            continue
        if best is None or best_size > size:
            best, best_size = pv, size
    return best


def match_topology(terms: Sequence[Obj] | None, labels: Mapping[str, str]) -> bool:
    """``MatchTopologySelectorTerms``: no terms match all; an empty term matches nothing;
    a term matches when every key's label value is one of its values."""
    if not terms:
        return True
    for term in terms:
        exprs = term.get("matchLabelExpressions") or ()
        if exprs and all(e.get("key") in labels and labels[e["key"]] in (e.get("values") or ()) for e in exprs):
            return True
    return False


def bind_volume_to_claim(pv: Obj, pvc: Obj) -> tuple[Obj, bool]:
    """``GetBindVolumeToClaim``: a copy of ``pv`` whose claimRef names the claim (with its
    uid and resourceVersion), marked bound-by-controller unless it was already bound to
    it; and whether anything changed."""
    dirty = False
    bound_before = volume_bound_to_claim(pv, pvc)
    meta = pvc["metadata"]
    ref = pv["spec"].get("claimRef")
    out: Obj = {**pv, "metadata": dict(pv["metadata"]), "spec": dict(pv["spec"])}
    if ref is None or (ref.get("name"), ref.get("namespace"), ref.get("uid")) != (
        meta.get("name"), meta.get("namespace"), meta.get("uid")
    ):
        new_ref = {"kind": "PersistentVolumeClaim", "namespace": meta.get("namespace"), "name": meta.get("name"),
                   "uid": meta.get("uid"), "apiVersion": "v1", "resourceVersion": meta.get("resourceVersion")}
        out["spec"]["claimRef"] = {k: v for k, v in new_ref.items() if v}
        dirty = True
    anns = dict(out["metadata"].get("annotations") or {})
    if not bound_before and BOUND_BY_CONTROLLER not in anns:
        anns[BOUND_BY_CONTROLLER] = "yes"
        out["metadata"]["annotations"] = anns
        dirty = True
    return out, dirty
