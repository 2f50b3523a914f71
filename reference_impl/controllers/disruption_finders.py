"""The controller finders of pkg/controller/disruption: whose scale governs a pod.

``getExpectedScale`` asks each finder in turn, in upstream's order (``finders``):
``getPodReplicationController``, ``getPodDeployment``, ``getPodReplicaSet``,
``getPodStatefulSet`` and last ``getScaleController``. A finder returns the controller's
(uid, replicas), None when the reference does not fit it, or raises ``SyncError``.
``verifyGroupKind`` accepts a ReplicaSet or Deployment of ``apps`` or ``extensions``, a
StatefulSet of ``apps`` only and a ReplicationController of the core group only.
``getScaleController`` reads any other owner through its ``/scale`` subresource (a custom
resource with a scale subresource governs its pods like a workload does).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final, Protocol

from reference_impl.api.resources import ResourceInfo
from reference_impl.apiserver.customresource.info import CustomResourceInfo
from reference_impl.apiserver.scale import SCALABLE
from reference_impl.controllers.controller_utils import controller_ref
from reference_impl.errors import ApiError, NotFound

__all__ = [
    "FINDERS",
    "Finder",
    "Sources",
    "SyncError",
    "get_pod_deployment",
    "get_pod_replica_set",
    "get_pod_replication_controller",
    "get_pod_stateful_set",
    "get_scale_controller",
    "parse_group",
]

Obj = dict[str, Any]


class Sources(Protocol):
    """What the finders read: the listers (``try_get``), the REST mapper (``resource``)
    and the scale client (``get_scale``); the APIServer is one."""

    def try_get(self, api_version: str, kind: str, name: str, namespace: str | None = None) -> Obj | None: ...

    def resource(self, api_version: str, kind: str) -> ResourceInfo: ...

    def get_scale(self, api_version: str, kind: str, name: str, namespace: str | None = None) -> Obj: ...


Finder = Callable[[Sources, Mapping[str, Any], str], "tuple[str, int] | None"]


class SyncError(Exception):
    """The PDB's status cannot be computed (the message goes into the SyncFailed condition)."""


def parse_group(api_version: str) -> str:
    """The group of ``schema.ParseGroupVersion``: "v1" and "/v1" are core; two slashes fail."""
    if api_version.count("/") > 1:
        raise SyncError(f"unexpected GroupVersion string: {api_version}")
    return api_version.partition("/")[0] if "/" in api_version else ""


def _verify_group_kind(ref: Mapping[str, Any], kind: str, groups: tuple[str, ...]) -> bool:
    """``verifyGroupKind``."""
    group = parse_group(str(ref.get("apiVersion", "")))
    return ref.get("kind") == kind and group in groups


def _replicas(obj: Obj) -> tuple[str, int]:
    return str(obj["metadata"]["uid"]), int((obj.get("spec") or {}).get("replicas", 1))


def _owned(get: Sources, api_version: str, kind: str, ref: Mapping[str, Any], ns: str) -> Obj | None:
    """The named object when its uid is the reference's (the listers' NotFound is None)."""
    obj = get.try_get(api_version, kind, str(ref.get("name", "")), ns)
    if obj is None or obj["metadata"].get("uid") != ref.get("uid"):
        return None
    return obj


def _replica_set(get: Sources, ref: Mapping[str, Any], ns: str) -> Obj | None:
    """The ReplicaSet ``ref`` names, when it is one (both finders start here)."""
    if not _verify_group_kind(ref, "ReplicaSet", ("apps", "extensions")):
        return None
    return _owned(get, "apps/v1", "ReplicaSet", ref, ns)


def get_pod_replica_set(get: Sources, ref: Mapping[str, Any], ns: str) -> tuple[str, int] | None:
    """``getPodReplicaSet``: a ReplicaSet that no Deployment controls."""
    rs = _replica_set(get, ref, ns)
    if rs is None:
        return None
    owner = controller_ref(rs)
    if owner is not None and owner.get("kind") == "Deployment":
        return None  # the Deployment finder speaks for it
    return _replicas(rs)


def get_pod_stateful_set(get: Sources, ref: Mapping[str, Any], ns: str) -> tuple[str, int] | None:
    """``getPodStatefulSet``."""
    if not _verify_group_kind(ref, "StatefulSet", ("apps",)):
        return None
    ss = _owned(get, "apps/v1", "StatefulSet", ref, ns)
    return None if ss is None else _replicas(ss)


def get_pod_deployment(get: Sources, ref: Mapping[str, Any], ns: str) -> tuple[str, int] | None:
    """``getPodDeployment``: the Deployment controlling the pod's ReplicaSet."""
    rs = _replica_set(get, ref, ns)
    if rs is None:
        return None
    owner = controller_ref(rs)
    if owner is None or not _verify_group_kind(owner, "Deployment", ("apps", "extensions")):
        return None
    dep = _owned(get, "apps/v1", "Deployment", owner, ns)
    return None if dep is None else _replicas(dep)


def get_pod_replication_controller(
    get: Sources, ref: Mapping[str, Any], ns: str
) -> tuple[str, int] | None:
    """``getPodReplicationController``."""
    if not _verify_group_kind(ref, "ReplicationController", ("",)):
        return None
    rc = _owned(get, "v1", "ReplicationController", ref, ns)
    return None if rc is None else _replicas(rc)


def _implements_scale(info: ResourceInfo) -> bool:
    """``implementsScale``: discovery lists ``<resource>/scale`` (of kind autoscaling/v1
    Scale) for the resource."""
    if isinstance(info, CustomResourceInfo):
        return bool(info.scale)
    return info.kind in SCALABLE


def get_scale_controller(get: Sources, ref: Mapping[str, Any], ns: str) -> tuple[str, int] | None:
    """``getScaleController``: the scale subresource of whatever the reference names.

    An unknown kind is the REST mapper's error; a NotFound from the scale client is
    None when the resource implements scale (the object is missing), else an error
    naming the resource; any other error is returned; another uid is None.
    """
    api_version, kind = str(ref.get("apiVersion", "")), str(ref.get("kind", ""))
    group = parse_group(api_version)
    gv = f"{group}/{api_version.rpartition('/')[2]}" if group else api_version.rpartition("/")[2]
    try:
        info = get.resource(gv, kind)
    except NotFound:  # meta.NoKindMatchError, one version searched
        raise SyncError(f'no matches for kind "{kind}" in version "{gv}"') from None
    try:
        scale = get.get_scale(gv, kind, str(ref.get("name", "")), ns)
    except NotFound:
        if not _implements_scale(info):
            raise SyncError(f"{info.group_resource} does not implement the scale subresource") from None
        return None
    except ApiError as e:
        raise SyncError(e.message) from None
    if (scale.get("metadata") or {}).get("uid") != ref.get("uid"):
        return None
    return str(scale["metadata"]["uid"]), int((scale.get("spec") or {}).get("replicas", 0))


FINDERS: Final[tuple[Finder, ...]] = (
    get_pod_replication_controller,
    get_pod_deployment,
    get_pod_replica_set,
    get_pod_stateful_set,
    get_scale_controller,
)
