"""Upstream v1.37.2's ``validateEphemeralContainers`` (``pkg/apis/core/validation``):
``validateContainerCommon`` (pull policy, resources and claims are ``pod_spec``'s, the
resize policy the Pod validator's), names unique across every container, a target among the
regular and init containers, only the allow-listed fields set, no volume subpaths."""

from __future__ import annotations

import json
from typing import Any, Final

from reference_impl.api.meta import dns1123_label_errors
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.apiserver.validation.pod_container_rules import common_container_causes
from reference_impl.apiserver.validation.pod_security import container_security_causes
from reference_impl.errors import Cause

__all__ = ["ephemeral_causes"]

Obj = dict[str, Any]
_MSG: Final = "cannot be set for an Ephemeral Container"
# EphemeralContainerCommon's fields off allowedEphemeralContainerFields, in field order.
_DISALLOWED: Final = ("ports", "resources", "resizePolicy", "restartPolicy", "restartPolicyRules",
                      "livenessProbe", "readinessProbe", "startupProbe", "lifecycle")


def _set(value: Any) -> bool:
    """Not Go's zero value: a struct (``resources``) counts when one of its fields does."""
    if isinstance(value, dict):
        return any(v is not None for v in value.values())
    return value is not None


def _common(c: Obj, path: str, volumes: dict[str, Obj], host_users: bool, allow_sys_admin: bool) -> list[Cause]:
    """The part of ``validateContainerCommon`` kept here."""
    out: list[Cause] = []
    name = str(c.get("name") or "")
    if not name:
        out.append(fe.required(f"{path}.name"))
    out += [fe.invalid(f"{path}.name", name, e) for e in (dns1123_label_errors(name) if name else [])]
    if not c.get("image"):
        out.append(fe.required(f"{path}.image"))
    out += common_container_causes(c, path, volumes)
    return out + container_security_causes(c, path, host_users, allow_sys_admin)


def _one(c: Obj, path: str, names: set[str], others: set[str]) -> list[Cause]:
    out: list[Cause] = []
    name = c.get("name") or ""
    if name in names:
        out.append(fe.duplicate(f"{path}.name", name))
    else:
        names.add(name)
    target = c.get("targetContainerName") or ""
    if target and target not in others:
        out.append(Cause(f"{path}.targetContainerName", "FieldValueNotFound", f"Not found: {json.dumps(target)}"))
    for k in _DISALLOWED:
        if k == "resources" and not isinstance(c.get(k), dict):
            continue
        if k in c and _set(c[k]):
            out.append(fe.forbidden(f"{path}.{k}", _MSG))
    for i, m in enumerate(c.get("volumeMounts") or []):
        for k in ("subPath", "subPathExpr"):
            if isinstance(m, dict) and m.get(k):
                out.append(fe.forbidden(f"{path}.volumeMounts[{i}].{k}", _MSG))
    return out


def ephemeral_causes(spec: Obj, path: str, volumes: dict[str, Obj], allow_sys_admin: bool = False) -> list[Cause]:
    """The rules above for ``spec.ephemeralContainers`` (``allow_sys_admin``:
    AllowSysAdminWhenPrivilegeEscalationFalse)."""
    host_users = spec.get("hostUsers") is not False
    others = {str(c.get("name") or "") for lst in ("containers", "initContainers")
              for c in spec.get(lst) or [] if isinstance(c, dict)}
    names = set(others)
    out: list[Cause] = []
    for i, c in enumerate(spec.get("ephemeralContainers") or []):
        if isinstance(c, dict):
            p = f"{path}.ephemeralContainers[{i}]"
            out += _common(c, p, volumes, host_users, allow_sys_admin) + _one(c, p, names, others)
    return out
