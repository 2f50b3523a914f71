"""Pod updates of upstream v1.37.2's ``pkg/apis/core/validation``: ``ValidatePodUpdate``
after its metadata and spec checks: the mirror-pod and AppArmor annotations
(``ValidatePodSpecificAnnotationUpdates``), container count and images,
activeDeadlineSeconds, only-added tolerations, only-deleted scheduling gates, the node
selector and node affinity a gated pod may extend, and the rest of the spec immutable."""

from __future__ import annotations

import copy
from typing import Any, Final

from reference_impl.api.well_known_annotations import APPARMOR_CONTAINER_PREFIX, MIRROR_POD
from reference_impl.apiserver.equality import semantic as _sem
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.errors import Cause

__all__ = ["pod_annotation_update_causes", "pod_update_causes"]

Obj = dict[str, Any]
_RA: Final = "requiredDuringSchedulingIgnoredDuringExecution"
_NA_PATH: Final = "spec.affinity.nodeAffinity"
_UPDATABLE: Final = (
    "`spec.containers[*].image`",
    "`spec.initContainers[*].image`",
    "`spec.activeDeadlineSeconds`",
    "`spec.tolerations` (only additions to existing tolerations)",
    "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)",
)
# Upstream appends a diff of the two specs, which is not reproduced.
_SPEC_MSG: Final = f"pod updates may not change fields other than {','.join(_UPDATABLE)}"


def _o(v: Any) -> Obj:
    return v if isinstance(v, dict) else {}


def _l(v: Any) -> list[Any]:
    return v if isinstance(v, list) else []


def pod_annotation_update_causes(new: Obj, old: Obj) -> list[Cause]:
    """``ValidatePodSpecificAnnotationUpdates``: the mirror-pod and AppArmor annotations
    may be neither added, removed nor changed."""
    out: list[Cause] = []
    path = "metadata.annotations"
    for k, v in old.items():
        if k in new and new[k] == v:
            continue
        if k.startswith(APPARMOR_CONTAINER_PREFIX):
            out.append(fe.forbidden(f"{path}[{k}]", "may not remove or update AppArmor annotations"))
        if k == MIRROR_POD:
            out.append(fe.forbidden(f"{path}[{k}]", "may not remove or update mirror pod annotation"))
    for k in new:
        if k in old:
            continue
        if k.startswith(APPARMOR_CONTAINER_PREFIX):
            out.append(fe.forbidden(f"{path}[{k}]", "may not add AppArmor annotations"))
        if k == MIRROR_POD:
            out.append(fe.forbidden(f"{path}[{k}]", "may not add mirror pod annotation"))
    return out


def _container_updates(new: list[Any], old: list[Any], path: str) -> tuple[list[Cause], bool]:
    """``ValidateContainerUpdates``."""
    if len(new) != len(old):
        return [fe.forbidden(path, "pod updates may not add or remove containers")], True
    out: list[Cause] = []
    for i, c in enumerate(new):
        image = _o(c).get("image") or ""
        if not image:
            out.append(fe.required(f"{path}[{i}].image"))
        if str(image).strip() != image:
            out.append(fe.invalid(f"{path}[{i}].image", image, "must not have leading or trailing whitespace"))
    return out, False


def _deadline(new: Any, old: Any) -> tuple[list[Cause], bool]:
    """The activeDeadlineSeconds rule: set from nil, or lowered; True stops the checks."""
    path = "spec.activeDeadlineSeconds"
    if isinstance(new, int):
        if not 0 <= new <= 2**31 - 1:
            return [fe.invalid(path, new, "must be between 0 and 2147483647, inclusive")], True
        if isinstance(old, int) and old < new:
            return [fe.invalid(path, new, "must be less than or equal to previous value")], True
        return [], False
    if old is not None:
        return [fe.invalid(path, None, "must not update from a positive integer to nil value")], False
    return [], False


def _only_added_tolerations(new: list[Any], old: list[Any]) -> list[Cause]:
    """``validateOnlyAddedTolerations``: every old toleration kept, up to its seconds
    (the new list's own rules are ``ValidatePodSpec``'s, already run)."""
    for t in old:
        base = {k: v for k, v in _o(t).items() if k != "tolerationSeconds"}
        if not any({k: v for k, v in _o(n).items() if k != "tolerationSeconds"} == base for n in new):
            return [fe.forbidden("spec.tolerations", "existing toleration can not be modified except its tolerationSeconds")]
    return []


def _only_deleted_gates(new: list[Any], old: list[Any]) -> list[Cause]:
    """``validateOnlyDeletedSchedulingGates``: a name not in the old list, at its last index."""
    added = {str(_o(g).get("name") or ""): i for i, g in enumerate(new)}
    for g in old:
        added.pop(str(_o(g).get("name") or ""), None)
    return [
        fe.forbidden(f"spec.schedulingGates[{i}].name", f"only deletion is allowed, but found new scheduling gate '{name}'")
        for name, i in added.items()
    ]


def _node_selector_mutation(new: Obj, old: Obj) -> list[Cause]:
    """``validateNodeSelectorMutation``: every old key kept with its value."""
    if any(k not in new or new[k] != v for k, v in old.items()):
        msg = "only additions to spec.nodeSelector are allowed (no mutations or deletions)"
        return [fe.invalid("spec.nodeSelector", new, msg)]
    return []


def _term_only_additions(new: Obj, old: Obj) -> bool:
    """``validateNodeSelectorTermHasOnlyAdditions``: an empty term stays empty; otherwise
    each requirement list keeps the old entries as its prefix."""
    pairs = [(_l(new.get(f)), _l(old.get(f))) for f in ("matchExpressions", "matchFields")]
    if not any(o for _, o in pairs) and any(n for n, _ in pairs):
        return False
    return all(not o or (len(n) >= len(o) and _sem(n[: len(o)]) == _sem(o)) for n, o in pairs)


def _node_affinity_mutation(new: Obj | None, old: Obj | None) -> list[Cause]:
    """``validateNodeAffinityMutation``: a non-empty required term list keeps its length
    and each term only gains requirements; the rest may change freely."""
    old_req = _o(old).get(_RA)
    if old is None or old_req is None:
        return []
    old_terms = _l(_o(old_req).get("nodeSelectorTerms"))
    new_req = _o(new).get(_RA)
    new_terms = _l(_o(new_req).get("nodeSelectorTerms")) if new_req is not None else []
    path = f"{_NA_PATH}.{_RA}.nodeSelectorTerms"
    if old_terms and len(old_terms) != len(new_terms):
        msg = "no additions/deletions to non-empty NodeSelectorTerms list are allowed"
        return [fe.invalid(path, new_terms, msg)]
    return [
        fe.invalid(f"{path}[{i}]", new_terms[i], "only additions are allowed (no mutations or deletions)")
        for i, o in enumerate(old_terms)
        if not _term_only_additions(_o(new_terms[i]), _o(o))
    ]


def _munge_node_affinity(munged: Obj, old: Obj, old_na: Any) -> None:
    """Put the old node affinity back into ``munged``, as upstream's four cases do."""
    aff = munged.get("affinity")
    if aff is None:
        if old_na is not None:
            munged["affinity"] = {"nodeAffinity": old_na}
    elif old.get("affinity") is None and aff.get("podAntiAffinity") is None and aff.get("podAffinity") is None:
        munged.pop("affinity")
    elif old_na is None:
        aff.pop("nodeAffinity", None)
    else:
        aff["nodeAffinity"] = old_na


def _gated_mutations(munged: Obj, old: Obj) -> list[Cause]:
    """A gated pod may add to nodeSelector and extend its node affinity."""
    out: list[Cause] = []
    new_sel, old_sel = _o(munged.get("nodeSelector")), _o(old.get("nodeSelector"))
    if new_sel != old_sel:
        out += _node_selector_mutation(new_sel, old_sel)
        munged.pop("nodeSelector", None)
        if old.get("nodeSelector") is not None:
            munged["nodeSelector"] = old["nodeSelector"]
    old_na = _o(old.get("affinity")).get("nodeAffinity")
    new_na = _o(munged.get("affinity")).get("nodeAffinity")
    if _sem(old_na) != _sem(new_na):
        out += _node_affinity_mutation(new_na, old_na)
        _munge_node_affinity(munged, old, old_na)
    return out


def _munged(spec: Obj, old: Obj) -> Obj:
    """``spec`` with the updatable fields set back to ``old``'s."""
    munged = copy.deepcopy(spec)
    for lst in ("containers", "initContainers"):
        for c, oc in zip(_l(munged.get(lst)), _l(old.get(lst)), strict=True):
            if isinstance(c, dict):
                c["image"] = _o(oc).get("image")
    for f in ("activeDeadlineSeconds", "schedulingGates", "tolerations"):
        munged.pop(f, None)
        if f in old:
            munged[f] = old[f]
    old_tgps, tgps = old.get("terminationGracePeriodSeconds"), munged.get("terminationGracePeriodSeconds")
    if isinstance(old_tgps, int) and old_tgps < 0 and tgps == 1:
        munged["terminationGracePeriodSeconds"] = old_tgps
    return munged


def _spec_update_causes(spec: Obj, old: Obj) -> list[Cause]:
    """``ValidatePodUpdate``'s spec rules, in its order."""
    out: list[Cause] = []
    for lst in ("containers", "initContainers"):
        errs, stop = _container_updates(_l(spec.get(lst)), _l(old.get(lst)), f"spec.{lst}")
        out += errs
        if stop:
            return out
    errs, stop = _deadline(spec.get("activeDeadlineSeconds"), old.get("activeDeadlineSeconds"))
    out += errs
    if stop:
        return out
    out += _only_added_tolerations(_l(spec.get("tolerations")), _l(old.get("tolerations")))
    out += _only_deleted_gates(_l(spec.get("schedulingGates")), _l(old.get("schedulingGates")))
    if _sem(spec) == _sem(old):
        return out
    munged = _munged(spec, old)
    if old.get("schedulingGates"):
        out += _gated_mutations(munged, old)
    if _sem(munged) != _sem(old):
        out.append(fe.forbidden("spec", _SPEC_MSG))
    return out


def pod_update_causes(pod: Obj, old: Obj) -> list[Cause]:
    """``ValidatePodUpdate`` less its metadata and spec checks (run as on create)."""
    new_ann = _o(_o(pod.get("metadata")).get("annotations"))
    old_ann = _o(_o(old.get("metadata")).get("annotations"))
    out = pod_annotation_update_causes(new_ann, old_ann)
    return out + _spec_update_causes(_o(pod.get("spec")), _o(old.get("spec")))
