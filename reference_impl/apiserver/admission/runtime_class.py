"""Models plugin/pkg/admission/runtimeclass: the RuntimeClass plugin (default-on).

On pod create, a pod naming a RuntimeClass that does not exist is Forbidden. Mutating:
the class's ``overhead.podFixed`` becomes ``spec.overhead`` (a pod that already states a
different overhead is Forbidden), its ``scheduling.nodeSelector`` is merged into the
pod's (a conflicting value is Forbidden) and its tolerations are merged with the pod's
(``tolerations.MergeTolerations``, redundant ones dropped). Validating: the pod's overhead
must be exactly the class's, and a pod without such a class may state none.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any, Final

from reference_impl.api.quantity import quantity_value
from reference_impl.api.resources import ResourceInfo
from reference_impl.apiserver.registry import Context, Operation
from reference_impl.errors import Cause, Forbidden

if TYPE_CHECKING:
    from reference_impl.apiserver.server import APIServer

__all__ = ["RuntimeClassAdmission", "install", "merge_tolerations"]

Obj = dict[str, Any]
_FIELDS: Final = ("key", "operator", "value", "effect", "tolerationSeconds")


def _norm(t: Obj) -> tuple[Any, ...]:
    """A toleration as Go's struct compares it (absent strings are "")."""
    return tuple(t.get(f) if f == "tolerationSeconds" else (t.get(f) or "") for f in _FIELDS)


def _is_superset(ss: Obj, t: Obj) -> bool:
    """``isSuperset``: whether toleration ``ss`` tolerates everything ``t`` does."""
    sk, sop, sval, seff, ssec = _norm(ss)
    tk, top, tval, teff, tsec = _norm(t)
    if _norm(ss) == _norm(t):
        return True
    if tk != sk and (sk != "" or sop != "Exists"):
        return False
    if teff != seff and seff != "":
        return False
    if seff == "NoExecute" and ssec is not None and (tsec is None or tsec > ssec):
        return False
    if sop in ("Equal", ""):
        return bool(top == "Equal" and tval == sval)
    return bool(sop == "Exists")


def merge_tolerations(first: list[Obj], second: list[Obj]) -> list[Obj]:
    """``MergeTolerations``: both lists, without a toleration another one covers."""
    every = [*first, *second]
    merged: list[Obj] = []
    for i, t in enumerate(every):
        if any(_is_superset(m, t) for m in merged):
            continue
        if any(_norm(t) != _norm(t2) and _is_superset(t2, t) for t2 in every[i + 1 :]):
            continue
        merged.append(t)
    return merged


def _same(a: Obj | None, b: Obj | None) -> bool:
    """``Semantic.DeepEqual`` of two resource lists (quantities by value; nil and empty
    differ, as Go's maps do)."""
    if a is None or b is None:
        return a is b
    try:
        return a.keys() == b.keys() and all(quantity_value(a[k]) == quantity_value(b[k]) for k in a)
    except ValueError:
        return False


class RuntimeClassAdmission:
    """Apply and check a pod's RuntimeClass overhead and scheduling."""

    name = "RuntimeClass"

    @staticmethod
    def _runtime_class(op: Operation, info: ResourceInfo, pod: Obj, ctx: Context) -> Obj | None:
        """``prepareObjects``: the class the pod names (Forbidden when missing)."""
        name = (pod.get("spec") or {}).get("runtimeClassName")
        if name is None:
            return None
        rc = ctx.lister_get("node.k8s.io/v1", "RuntimeClass", str(name), None)
        if rc is None:
            pod_name = pod["metadata"].get("name") or pod["metadata"].get("generateName") or ""
            raise Forbidden(
                f'pods "{pod_name}" is forbidden: pod rejected: RuntimeClass "{name}" not found'
            )
        return rc

    @staticmethod
    def _applies(op: Operation, info: ResourceInfo, ctx: Context) -> bool:
        """Pod creates only (``NewHandler(admission.Create)``, no subresource)."""
        return op is Operation.CREATE and info.group_resource == "pods" and not ctx.subresource

    def admit(
        self, op: Operation, info: ResourceInfo, obj: Obj, old: Obj | None, ctx: Context
    ) -> None:
        """``setOverhead`` and ``setScheduling``."""
        if not self._applies(op, info, ctx):
            return
        rc = self._runtime_class(op, info, obj, ctx)
        if rc is None:
            return
        spec = obj.setdefault("spec", {})
        name = obj["metadata"].get("name") or obj["metadata"].get("generateName") or ""
        fixed = (rc.get("overhead") or {}).get("podFixed")
        if rc.get("overhead") is not None:
            if spec.get("overhead") and not _same(fixed, spec["overhead"]):
                raise Forbidden(
                    f'pods "{name}" is forbidden: pod rejected: Pod\'s Overhead doesn\'t match '
                    "RuntimeClass's defined Overhead"
                )
            if fixed is None:
                spec.pop("overhead", None)
            else:
                spec["overhead"] = copy.deepcopy(fixed)
        scheduling = rc.get("scheduling")
        if scheduling is None:
            return
        selector = dict(spec.get("nodeSelector") or {})
        for key, value in sorted((scheduling.get("nodeSelector") or {}).items()):
            if key in selector and selector[key] != value:
                raise Forbidden(
                    f'pods "{name}" is forbidden: conflict: runtimeClass.scheduling.nodeSelector'
                    f"[{key}] = {value}; pod.spec.nodeSelector[{key}] = {selector[key]}"
                )
            selector[key] = value
        if selector:
            spec["nodeSelector"] = selector
        merged = merge_tolerations(
            list(spec.get("tolerations") or []), list(scheduling.get("tolerations") or [])
        )
        if merged:
            spec["tolerations"] = copy.deepcopy(merged)

    def validate(
        self, op: Operation, info: ResourceInfo, obj: Obj, old: Obj | None, ctx: Context
    ) -> list[Cause]:
        """``validateOverhead``."""
        if not self._applies(op, info, ctx):
            return []
        rc = self._runtime_class(op, info, obj, ctx)
        overhead = (obj.get("spec") or {}).get("overhead")
        name = obj["metadata"].get("name") or obj["metadata"].get("generateName") or ""
        if rc is not None and rc.get("overhead") is not None:
            if not _same((rc["overhead"] or {}).get("podFixed"), overhead):
                raise Forbidden(
                    f'pods "{name}" is forbidden: pod rejected: Pod\'s Overhead doesn\'t match '
                    "RuntimeClass's defined Overhead"
                )
        elif overhead is not None:
            raise Forbidden(
                f'pods "{name}" is forbidden: pod rejected: Pod Overhead set without '
                "corresponding RuntimeClass defined Overhead"
            )
        return []


def install(server: APIServer) -> None:
    """Enable the plugin (default-on in kube-apiserver)."""
    server.admission.append(RuntimeClassAdmission())
