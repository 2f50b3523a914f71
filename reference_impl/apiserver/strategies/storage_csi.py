"""storage.k8s.io CSI objects: CSIDriver and CSINode.

Models ``ValidateCSIDriver``/``ValidateCSIDriverUpdate`` and
``ValidateCSINode``/``ValidateCSINodeUpdate`` of ``pkg/apis/storage/validation`` (1.37.2)
and ``SetDefaults_CSIDriver``. SELinuxMountReadWriteOncePod, CSIServiceAccountTokenSecrets
and MutableCSINodeAllocatableCount are GA and locked on in 1.37; VolumeLimitScaling is
beta and read from the gates.
"""

from __future__ import annotations

from typing import Any, Final

from reference_impl.apiserver.registry import Context, defaulter, preparer, validator
from reference_impl.apiserver.strategies.storage import (
    immutable,
    qualified_name_causes,
)
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.apiserver.validation.persistent_volume import csi_driver_causes
from reference_impl.errors import Cause

__all__: list[str] = []

Obj = dict[str, Any]
_FS_GROUP: Final = ("File", "None", "ReadWriteOnceWithFSType")
_LIFECYCLE: Final = ("Persistent", "Ephemeral")
_MIN_EXPIRATION: Final = 600
_MAX_EXPIRATION: Final = 1 << 32
_NODE_ID_MAX: Final = 256
_VOLUME_LIMIT_SCALING: Final = "VolumeLimitScaling"
_VOLUME_HEALTH: Final = "CSIVolumeHealth"
_SPEC_DEFAULTS: Final[dict[str, Any]] = {
    "attachRequired": True,
    "podInfoOnMount": False,
    "storageCapacity": False,
    "fsGroupPolicy": "ReadWriteOnceWithFSType",
    "requiresRepublish": False,
    "seLinuxMount": False,
}


@defaulter("CSIDriver")
def default_csi_driver(driver: Obj, ctx: Context) -> None:
    """``SetDefaults_CSIDriver``."""
    spec = driver.get("spec")
    if not isinstance(spec, dict):
        spec = driver["spec"] = {}
    for k, v in _SPEC_DEFAULTS.items():
        if spec.get(k) is None:
            spec[k] = v
    if not spec.get("volumeLifecycleModes"):
        spec["volumeLifecycleModes"] = ["Persistent"]
    if spec.get("preventPodSchedulingIfMissing") is None and ctx.gates.enabled(_VOLUME_LIMIT_SCALING):
        spec["preventPodSchedulingIfMissing"] = False


def _token_requests(requests: list[Obj], path: str) -> list[Cause]:
    """``validateTokenRequests``: distinct audiences; expiry between 10 minutes and 2^32 s."""
    out: list[Cause] = []
    seen: set[str] = set()
    for i, req in enumerate(requests):
        p, audience = f"{path}[{i}]", str(req.get("audience") or "")
        if audience in seen:
            out.append(fe.duplicate(f"{p}.audience", audience))
            continue
        seen.add(audience)
        exp = req.get("expirationSeconds")
        if not isinstance(exp, int):
            continue
        if exp < _MIN_EXPIRATION:
            out.append(fe.invalid(f"{p}.expirationSeconds", exp, "may not specify a duration less than 10 minutes"))
        if exp > _MAX_EXPIRATION:
            out.append(fe.invalid(f"{p}.expirationSeconds", exp, "may not specify a duration larger than 2^32 seconds"))
    return out


def _required_flags(spec: Obj) -> list[Cause]:
    names = ["attachRequired", "podInfoOnMount", "storageCapacity"]
    # attachRequired is reported under upstream's misspelt "attachedRequired".
    paths = {"attachRequired": "spec.attachedRequired"}
    return [fe.required(paths.get(n, f"spec.{n}")) for n in names if spec.get(n) is None]


def _csi_driver_spec(spec: Obj, ctx: Context) -> list[Cause]:
    """``validateCSIDriverSpec``, its checks in upstream's order."""
    out = _required_flags(spec)
    policy = spec.get("fsGroupPolicy")
    if policy is not None and policy not in _FS_GROUP:
        out.append(fe.not_supported("spec.fsGroupPolicy", policy, _FS_GROUP))
    tokens = [t for t in spec.get("tokenRequests") or () if isinstance(t, dict)]
    out += _token_requests(tokens, "spec.tokenRequests")
    for mode in spec.get("volumeLifecycleModes") or ():
        if mode not in _LIFECYCLE:
            out.append(fe.not_supported("spec.volumeLifecycleModes", mode, _LIFECYCLE))
    if spec.get("seLinuxMount") is None:
        out.append(fe.required("spec.seLinuxMount"))
    period = spec.get("nodeAllocatableUpdatePeriodSeconds")
    if isinstance(period, int) and period < 10:
        out.append(fe.invalid("spec.nodeAllocatableUpdatePeriodSeconds", period, "must be greater than or equal to 10 seconds"))
    in_secrets = spec.get("serviceAccountTokenInSecrets")
    if in_secrets is not None and not tokens:
        out.append(fe.invalid("spec.serviceAccountTokenInSecrets", in_secrets, "serviceAccountTokenInSecrets is set but no tokenRequests are specified"))
    if spec.get("preventPodSchedulingIfMissing") is None and ctx.gates.enabled(_VOLUME_LIMIT_SCALING):
        out.append(fe.required("spec.preventPodSchedulingIfMissing"))
    return out


@validator("CSIDriver")
def validate_csi_driver(driver: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``ValidateCSIDriver``; on update attachRequired and volumeLifecycleModes are frozen."""
    spec = driver.get("spec") or {}
    out = _csi_driver_spec(spec, ctx)
    if old is None:
        return out
    ospec = old.get("spec") or {}
    out += immutable("spec.attachedRequired", spec.get("attachRequired"), ospec.get("attachRequired"))
    modes, omodes = spec.get("volumeLifecycleModes") or [], ospec.get("volumeLifecycleModes") or []
    return out + immutable("spec.volumeLifecycleModes", modes, omodes)


def _node_id(node_id: str, path: str) -> list[Cause]:
    out = [fe.required(path)] if not node_id else []
    if len(node_id) > _NODE_ID_MAX:
        out.append(fe.invalid(path, node_id, f"must be {_NODE_ID_MAX} characters or less"))
    return out


def _topology_keys(keys: list[str], path: str) -> list[Cause]:
    """Each key: required, once, a qualified name; every error at the driver's path."""
    out: list[Cause] = []
    for i, key in enumerate(keys):
        if not key:
            out.append(fe.required(path))
        if key in keys[:i]:
            out.append(fe.duplicate(path, key))
        out += qualified_name_causes(key, path)
    return out


def _csinode_driver(driver: Obj, seen: set[str], path: str) -> list[Cause]:
    """``validateCSINodeDriver``."""
    name = str(driver.get("name") or "")
    out = csi_driver_causes(name, f"{path}.name")
    out += _node_id(str(driver.get("nodeID") or ""), f"{path}.nodeID")
    count = (driver.get("allocatable") or {}).get("count")
    if isinstance(count, int) and count < 0:
        out.append(fe.invalid(f"{path}.allocatable.count", count, "must be greater than or equal to 0"))
    if name in seen:
        out.append(fe.duplicate(f"{path}.name", name))
    seen.add(name)
    return out + _topology_keys([str(k) for k in driver.get("topologyKeys") or ()], path)


def _comparable(driver: Obj) -> Obj:
    """A driver as the update compares it: without allocatable, empty lists as absent."""
    return {k: v for k, v in driver.items() if k != "allocatable" and v not in (None, [], "")}


@validator("CSINode")
def validate_csinode(node: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``ValidateCSINode``; on update a driver kept by name may change only allocatable."""
    drivers = [d for d in (node.get("spec") or {}).get("drivers") or () if isinstance(d, dict)]
    seen: set[str] = set()
    out: list[Cause] = []
    for i, d in enumerate(drivers):
        out += _csinode_driver(d, seen, f"spec.drivers[{i}]")
    for od in ((old or {}).get("spec") or {}).get("drivers") or ():
        for d in drivers:
            if d.get("name") == od.get("name"):
                out += immutable("spec.drivers", _comparable(d), _comparable(od))
    return out


def _volume_health(ctx: Context) -> bool:
    return ctx.gates.enabled(_VOLUME_HEALTH)


@preparer("CSINode")
def prepare_csinode(node: Obj, old: Obj | None, now: str, ctx: Context) -> None:
    """Create clears the status (a spec update keeps the stored one)."""
    if old is None:
        node["status"] = {}


@preparer("CSINode", status=True)
def prepare_csinode_status(node: Obj, old: Obj | None, now: str, ctx: Context) -> None:
    """``dropDisabledCSINodeFields``: storageHealth only with CSIVolumeHealth or in use."""
    in_use = bool(((old or {}).get("status") or {}).get("storageHealth"))
    status = node.get("status")
    if isinstance(status, dict) and not _volume_health(ctx) and not in_use:
        status.pop("storageHealth", None)
