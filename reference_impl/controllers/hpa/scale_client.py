"""How the HPA reaches its target's ``/scale``, after ``pkg/controller/podautoscaler/
horizontal.go`` (``reconcileAutoscaler``'s mapping steps, ``scaleForResourceMappings`` and
the rescale's ``retry.RetryOnConflict``) and client-go ``scale/client.go``.

The reference's REST mapper knows the built-in kinds and the Established CRDs' served
versions. A group/kind maps to one resource here, and the scale client reads and writes
it at its preferred version (``pathAndVersionFor``), so every mapping gives the same
answer and one read stands for the loop over mappings.
"""

from __future__ import annotations

from typing import Any, Final

from reference_impl.api import resources
from reference_impl.apiserver.customresource.deprecation import kube_aware_key
from reference_impl.apiserver.customresource.info import stored_crds
from reference_impl.apiserver.server import APIServer
from reference_impl.errors import ApiError, Conflict

__all__ = ["DEFAULT_RETRY_STEPS", "MappingError", "ScaleTarget", "scale_for_target", "update_scale"]

Obj = dict[str, Any]
DEFAULT_RETRY_STEPS: Final = 5  # retry.DefaultRetry: Steps 5 (10ms apart, not modelled)


class MappingError(Exception):
    """The scale target reference cannot be mapped to a resource (the message is
    upstream's error text)."""


class ScaleTarget:
    """A read Scale and the apiVersion of the resource it came from (``targetGR``)."""

    __slots__ = ("api_version", "kind", "scale")

    def __init__(self, api_version: str, kind: str, scale: Obj) -> None:
        self.api_version, self.kind, self.scale = api_version, kind, scale


def parse_group(api_version: str) -> str:
    """The group of ``schema.ParseGroupVersion``; MappingError for two slashes."""
    if api_version.count("/") > 1:
        raise MappingError(f"unexpected GroupVersion string: {api_version}")
    return api_version.partition("/")[0] if "/" in api_version else ""


def _versions(server: APIServer, group: str, kind: str) -> list[str]:
    """The group's versions serving ``kind`` (``RESTMappings``), preferred first."""
    names = {av.rpartition("/")[2] for av in resources.served_versions()
             if av.rpartition("/")[0] == group and resources.lookup(av, kind) is not None}  # fmt: skip
    if group:
        for crd in stored_crds(server.store).crds:
            spec = crd.get("spec") or {}
            if spec.get("group") == group:
                names.update(
                    str(v.get("name")) for v in spec.get("versions") or () if isinstance(v, dict)
                )
    out: list[str] = []
    for v in sorted(names, key=kube_aware_key):
        av = f"{group}/{v}" if group else v
        try:
            info = server.resource(av, kind)  # gated off, or not a served CRD version
        except ApiError:
            continue
        if info.kind == kind:
            out.append(av)
    return out


def scale_for_target(server: APIServer, ref: Obj, namespace: str) -> ScaleTarget:
    """``ParseGroupVersion``, ``RESTMappings`` and ``scaleForResourceMappings``: the
    target's Scale; MappingError or the apiserver's error (its first) otherwise."""
    kind, name = str(ref.get("kind", "")), str(ref.get("name", ""))
    group = parse_group(str(ref.get("apiVersion") or ""))
    mappings = _versions(server, group, kind)
    if not mappings:  # meta.NoKindMatchError without searched versions
        raise MappingError(f'no matches for kind "{kind}" in group "{group}"')
    return ScaleTarget(mappings[0], kind, server.get_scale(mappings[0], kind, name, namespace))


def update_scale(server: APIServer, target: ScaleTarget, replicas: int) -> ScaleTarget:
    """The rescale: ``RetryOnConflict(DefaultRetry, ...)`` around the Scale update; after
    a failed update the latest Scale is read for the next try (a failed read keeps the
    old one). Raises the last update error: a conflict once the steps are spent, or the
    first error of any other kind."""
    scale = target.scale
    meta = scale.get("metadata") or {}
    for step in range(DEFAULT_RETRY_STEPS):
        try:
            out = server.update_scale(
                target.api_version, target.kind, {**scale, "spec": {"replicas": replicas}}
            )
            return ScaleTarget(target.api_version, target.kind, out)
        except ApiError as err:
            try:
                scale = server.get_scale(target.api_version, target.kind, str(meta.get("name", "")),
                                         meta.get("namespace"))  # fmt: skip
            except ApiError:
                pass  # utilruntime.HandleError: the next try sends the old one
            if not isinstance(err, Conflict) or step == DEFAULT_RETRY_STEPS - 1:
                raise
    raise AssertionError("unreachable")  # pragma: no cover
