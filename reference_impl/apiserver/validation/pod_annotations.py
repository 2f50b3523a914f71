"""``ValidatePodSpecificAnnotations`` of upstream v1.37.2's ``pkg/apis/core/validation``:
the annotations a pod's (not a template's) create and update check against its spec: the
mirror-pod annotation needs a node, the legacy tolerations annotation, the deletion cost,
and the legacy seccomp and AppArmor annotations."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any, Final

from reference_impl.api.well_known_annotations import APPARMOR_CONTAINER_PREFIX, MIRROR_POD
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.errors import Cause

__all__ = [
    "apparmor_annotation_field_causes",
    "apply_apparmor_version_skew",
    "pod_annotation_causes",
    "seccomp_annotation_field_causes",
]

Obj = dict[str, Any]
TolerationRules = Callable[[list[Obj], str], list[Cause]]
_TOLERATIONS: Final = "scheduler.alpha.kubernetes.io/tolerations"
_DELETION_COST: Final = "controller.kubernetes.io/pod-deletion-cost"
_SECCOMP_POD: Final = "seccomp.security.alpha.kubernetes.io/pod"
_SECCOMP_CTR: Final = "container.seccomp.security.alpha.kubernetes.io/"
_INT: Final = re.compile(r"-?[0-9]+")
_PATH: Final = "metadata.annotations"


def _cost_ok(value: str) -> bool:
    """``GetDeletionCostFromPodAnnotations``: a 32-bit integer without "+" or leading zeros."""
    if not value or not (value[0] == "-" or "1" <= value[0] <= "9" or value == "0"):
        return False
    return bool(_INT.fullmatch(value)) and -(2**31) <= int(value) < 2**31


def _tolerations(value: str, rules: TolerationRules) -> list[Cause]:
    """``ValidateTolerationsInPodAnnotations``: a JSON list of tolerations."""
    try:
        parsed = json.loads(value)
    except ValueError as e:
        return [fe.invalid(_PATH, _TOLERATIONS, str(e))]
    if not isinstance(parsed, list) or not all(isinstance(t, dict) for t in parsed):
        return [fe.invalid(_PATH, _TOLERATIONS, "cannot unmarshal into []Toleration")]
    return rules(parsed, f"{_PATH}.{_TOLERATIONS}") if parsed else []


def _seccomp(value: str, path: str) -> list[Cause]:
    """``ValidateSeccompProfile``."""
    if value in ("runtime/default", "docker/default", "unconfined"):
        return []
    if value.startswith("localhost/"):
        rel = value.removeprefix("localhost/")
        out = [fe.invalid(path, rel, "must be a relative path")] if rel.startswith("/") else []
        if ".." in rel.split("/"):
            out.append(fe.invalid(path, rel, "must not contain '..'"))
        return out
    return [fe.invalid(path, value, "must be a valid seccomp profile")]


def _container_names(spec: Obj) -> set[str]:
    lists = ("initContainers", "containers", "ephemeralContainers")
    return {str(c.get("name")) for lst in lists for c in spec.get(lst) or [] if isinstance(c, dict)}


def _apparmor(key: str, value: str, spec: Obj) -> list[Cause]:
    """``ValidateAppArmorPodAnnotations`` for one annotation."""
    out: list[Cause] = []
    name = key.removeprefix(APPARMOR_CONTAINER_PREFIX)
    if name not in _container_names(spec):
        out.append(fe.invalid(f"{_PATH}[{key}]", name, "container not found"))
    if value not in ("", "runtime/default", "unconfined") and not value.startswith("localhost/"):
        out.append(fe.invalid(f"{_PATH}[{key}]", value, f"invalid AppArmor profile name: {json.dumps(value)}"))
    return out


def pod_annotation_causes(
    pod: Obj, old: Obj | None, toleration_rules: TolerationRules, allow_bad_cost: bool | None = None
) -> list[Cause]:
    """The rules in upstream's order; an update keeps an invalid deletion cost the old pod
    had (``AllowInvalidPodDeletionCost``, or ``allow_bad_cost`` when given: pod_options)."""
    ann = (pod.get("metadata") or {}).get("annotations") or {}
    spec = pod.get("spec") or {}
    out: list[Cause] = []
    if MIRROR_POD in ann and not spec.get("nodeName"):
        out.append(fe.invalid(f"{_PATH}[{MIRROR_POD}]", ann[MIRROR_POD],
                              "must set spec.nodeName if mirror pod annotation is set"))
    if ann.get(_TOLERATIONS):
        out += _tolerations(str(ann[_TOLERATIONS]), toleration_rules)
    old_ann = ((old or {}).get("metadata") or {}).get("annotations") or {}
    if allow_bad_cost is None:
        allow_bad_cost = old is not None and _DELETION_COST in old_ann and not _cost_ok(str(old_ann[_DELETION_COST]))
    if _DELETION_COST in ann and not allow_bad_cost and not _cost_ok(str(ann[_DELETION_COST])):
        out.append(fe.invalid(f"{_PATH}[{_DELETION_COST}]", ann[_DELETION_COST], "must be a 32bit integer"))
    if _SECCOMP_POD in ann:
        out += _seccomp(str(ann[_SECCOMP_POD]), f"{_PATH}.{_SECCOMP_POD}")
    for k, v in ann.items():
        if k.startswith(_SECCOMP_CTR):
            out += _seccomp(str(v), f"{_PATH}.{k}")
    for k, v in ann.items():
        if k.startswith(APPARMOR_CONTAINER_PREFIX):
            out += _apparmor(k, str(v), spec)
    return out


def _seccomp_match(value: str, sp: Obj, path: str, what: str = "seccomp") -> list[Cause]:
    """``validateSeccompAnnotationsAndFieldsMatch``; with ``what="apparmor"`` the same rule
    of ``validateAppArmorAnnotationsAndFieldsMatchOnCreate`` (no docker/default there)."""
    kind, type_msg = sp.get("type"), f"{what} type in annotation and field must match"
    defaults = ("runtime/default", "docker/default") if what == "seccomp" else ("runtime/default",)
    if kind == "Unconfined" and value != "unconfined":
        return [fe.forbidden(f"{path}.type", type_msg)]
    if kind == "RuntimeDefault" and value not in defaults:
        return [fe.forbidden(f"{path}.type", type_msg)]
    if kind == "Localhost":
        if not value.startswith("localhost/"):
            return [fe.forbidden(f"{path}.type", type_msg)]
        if value.removeprefix("localhost/") != sp.get("localhostProfile"):
            return [fe.forbidden(f"{path}.localhostProfile", f"{what} profile in annotation and field must match")]
    return []


def seccomp_annotation_field_causes(meta: Obj, spec: Obj, path: str) -> list[Cause]:
    """``validateSeccompAnnotationsAndFields``: where a legacy seccomp annotation and the
    field are both set, at pod or container level, they must agree."""
    ann = meta.get("annotations") or {}
    out: list[Cause] = []
    sp = ((spec.get("securityContext") or {}) if isinstance(spec.get("securityContext"), dict) else {}).get("seccompProfile")
    if isinstance(sp, dict) and _SECCOMP_POD in ann:
        out += _seccomp_match(str(ann[_SECCOMP_POD]), sp, f"{path}.securityContext.seccompProfile")
    for lst in ("initContainers", "containers", "ephemeralContainers"):
        for i, c in enumerate(spec.get(lst) or []):
            csp = ((c.get("securityContext") or {}) if isinstance(c, dict) else {}).get("seccompProfile")
            key = f"{_SECCOMP_CTR}{c.get('name') if isinstance(c, dict) else ''}"
            if isinstance(csp, dict) and key in ann:
                out += _seccomp_match(str(ann[key]), csp, f"{path}.{lst}[{i}].securityContext.seccompProfile")
    return out


_CONTAINER_LISTS: Final = ("initContainers", "containers", "ephemeralContainers")


def _apparmor_field(value: str) -> Obj | None:
    """``ApparmorFieldForAnnotation``, None where ``ValidateAppArmorProfileField`` refuses it."""
    if value in ("unconfined", "runtime/default"):
        return {"type": "Unconfined" if value == "unconfined" else "RuntimeDefault"}
    profile = value.removeprefix("localhost/")
    if value.startswith("localhost/") and profile and profile.strip() == profile and len(profile.encode()) <= 4095:
        return {"type": "Localhost", "localhostProfile": profile}
    return None


def _pod_apparmor(spec: Obj) -> Any:
    sc = spec.get("securityContext")
    return sc.get("appArmorProfile") if isinstance(sc, dict) else None


def apply_apparmor_version_skew(pod: Obj) -> None:
    """``applyAppArmorVersionSkew`` (PrepareForCreate): a container's legacy AppArmor
    annotation becomes its field when it has none and it differs from the pod's."""
    spec, ann = pod.get("spec"), (pod.get("metadata") or {}).get("annotations") or {}
    if not isinstance(spec, dict) or (spec.get("os") or {}).get("name") == "windows":
        return
    for lst in _CONTAINER_LISTS:
        for c in spec.get(lst) or []:
            key = f"{APPARMOR_CONTAINER_PREFIX}{c.get('name') if isinstance(c, dict) else ''}"
            sc = c.get("securityContext") if isinstance(c, dict) else None
            if key not in ann or (isinstance(sc, dict) and sc.get("appArmorProfile") is not None):
                continue
            new = _apparmor_field(str(ann[key]))
            if new is not None and new != _pod_apparmor(spec):
                c["securityContext"] = {**(sc if isinstance(sc, dict) else {}), "appArmorProfile": new}


def apparmor_annotation_field_causes(meta: Obj, spec: Obj, path: str) -> list[Cause]:
    """``validateAppArmorAnnotationsAndFieldsMatchOnCreate``: a container's legacy AppArmor
    annotation must agree with its profile (its own, else the pod's); windows pods skip."""
    if (spec.get("os") or {}).get("name") == "windows":
        return []
    ann = meta.get("annotations") or {}
    out: list[Cause] = []
    for lst in _CONTAINER_LISTS:
        for i, c in enumerate(spec.get(lst) or []):
            sc = (c.get("securityContext") if isinstance(c, dict) else None) or {}
            profile = sc.get("appArmorProfile") if isinstance(sc, dict) else None
            if profile is None:  # a set profile, even an empty one, hides the pod's
                profile = _pod_apparmor(spec)
            key = f"{APPARMOR_CONTAINER_PREFIX}{c.get('name') if isinstance(c, dict) else ''}"
            if isinstance(profile, dict) and key in ann:
                p = f"{path}.{lst}[{i}].securityContext.appArmorProfile"
                out += _seccomp_match(str(ann[key]), profile, p, "apparmor")
    return out
