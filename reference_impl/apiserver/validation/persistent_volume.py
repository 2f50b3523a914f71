"""PersistentVolume rules of upstream v1.37.2's ``pkg/apis/core/validation``:
``ValidatePersistentVolumeSpec`` (a standalone volume, never an inline spec), its
PersistentVolume sources, ``ValidatePersistentVolumeUpdate`` and
``pkg/volume/validation``'s mount-option annotation check."""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from typing import Any, Final

from reference_impl.api.meta import dns1123_label_errors, dns1123_subdomain_errors, parse_quantity
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.apiserver.validation import pod_volumes as pv_src
from reference_impl.apiserver.validation.node_selector import node_selector, node_selector_term
from reference_impl.errors import Cause

__all__ = ["SOURCES", "mount_option_causes", "spec_causes", "update_causes"]

Obj = dict[str, Any]
Check = Callable[[Obj, str], list[Cause]]
ACCESS_MODES: Final = ("ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod")
_RECLAIM: Final = ("Delete", "Recycle", "Retain")
_VOLUME_MODES: Final = ("Block", "Filesystem")
_IMMUTABLE: Final = "field is immutable"
_MOUNT_OPTIONS: Final = "volume.beta.kubernetes.io/mount-options"
_BETA_TO_GA: Final = {
    "failure-domain.beta.kubernetes.io/zone": "topology.kubernetes.io/zone",
    "failure-domain.beta.kubernetes.io/region": "topology.kubernetes.io/region",
    "beta.kubernetes.io/os": "kubernetes.io/os",
    "beta.kubernetes.io/arch": "kubernetes.io/arch",
    "beta.kubernetes.io/instance-type": "node.kubernetes.io/instance-type",
}


def _o(v: Any) -> Obj:
    return v if isinstance(v, dict) else {}


def _s(v: Any) -> str:
    return v if isinstance(v, str) else ""


def _required(*keys: str) -> Check:
    def check(src: Obj, path: str) -> list[Cause]:
        return [fe.required(f"{path}.{k}") for k in keys if not src.get(k)]

    return check


def _secret_name_ns(ref: Obj, path: str) -> list[Cause]:
    """A PV secret reference must name both (cinder, storageos)."""
    return [fe.required(f"{path}.{k}") for k in ("name", "namespace") if not ref.get(k)]


def _glusterfs(src: Obj, path: str) -> list[Cause]:
    out = _required("endpoints", "path")(src, path)
    ns = src.get("endpointsNamespace")
    if ns == "":
        out.append(fe.invalid(f"{path}.endpointsNamespace", "",
                              "if the endpointnamespace is set, it must be a valid namespace name"))
    elif isinstance(ns, str):
        out += [fe.invalid(f"{path}.endpointsNamespace", ns, e) for e in dns1123_label_errors(ns)]
    return out


def _iscsi_name(value: str, path: str) -> list[Cause]:
    return [] if pv_src.iscsi_name_ok(value) else [fe.invalid(path, value, "must be valid format")]


def _iscsi(pv_name: str) -> Check:
    """``validateISCSIPersistentVolumeSource``."""

    def check(src: Obj, path: str) -> list[Cause]:
        portal, initiator = _s(src.get("targetPortal")), src.get("initiatorName")
        out = [] if portal else [fe.required(f"{path}.targetPortal")]
        if initiator is not None and len(f"{pv_name}:{portal}") > 64:
            out.append(fe.invalid(f"{path}.targetportal", portal, "Total length of <volume name>:<iscsi.targetPortal> "
                                  "must be under 64 characters if iscsi.initiatorName is specified."))
        iqn = _s(src.get("iqn"))
        out += _iscsi_name(iqn, f"{path}.iqn") if iqn else [fe.required(f"{path}.iqn")]
        lun = src.get("lun", 0)
        if isinstance(lun, int) and not 0 <= lun <= 255:
            out.append(fe.invalid(f"{path}.lun", lun, "must be between 0 and 255, inclusive"))
        ref = src.get("secretRef")
        if (src.get("chapAuthDiscovery") or src.get("chapAuthSession")) and ref is None:
            out.append(fe.required(f"{path}.secretRef"))
        if ref is not None and not _o(ref).get("name"):
            out.append(fe.required(f"{path}.secretRef.name"))
        if isinstance(initiator, str):
            out += _iscsi_name(initiator, f"{path}.initiatorname")
        return out

    return check


def _with_secret(keys: tuple[str, ...]) -> Check:
    """Cinder and StorageOS: the required keys, and a secretRef naming name and namespace."""

    def check(src: Obj, path: str) -> list[Cause]:
        out = _required(*keys)(src, path)
        ref = src.get("secretRef")
        return out + (_secret_name_ns(_o(ref), f"{path}.secretRef") if ref is not None else [])

    return check


def _storageos(src: Obj, path: str) -> list[Cause]:
    """``validateStorageOSPersistentVolumeSource``."""
    name, ns = _s(src.get("volumeName")), _s(src.get("volumeNamespace"))
    out = [fe.invalid(f"{path}.volumeName", name, e) for e in dns1123_label_errors(name)] if name else [
        fe.required(f"{path}.volumeName")]
    out += [fe.invalid(f"{path}.volumeNamespace", ns, e) for e in dns1123_label_errors(ns)] if ns else []
    ref = src.get("secretRef")
    return out + (_secret_name_ns(_o(ref), f"{path}.secretRef") if ref is not None else [])


def _azure_file(src: Obj, path: str) -> list[Cause]:
    out = _required("secretName", "shareName")(src, path)
    if src.get("secretNamespace") == "":
        out.append(fe.required(f"{path}.secretNamespace"))
    return out


def _local(src: Obj, path: str) -> list[Cause]:
    p = _s(src.get("path"))
    return pv_src.no_backsteps(p, f"{path}.path") if p else [fe.required(f"{path}.path")]


def _pv_secret_ref(ref: Obj, path: str) -> list[Cause]:
    """``validatePVSecretReference``."""
    name, ns = _s(ref.get("name")), _s(ref.get("namespace"))
    out = [fe.invalid(f"{path}.name", name, e) for e in dns1123_subdomain_errors(name)] if name else [
        fe.required(f"{path}.name")]
    out += [fe.invalid(f"{path}.namespace", ns, e) for e in dns1123_label_errors(ns)] if ns else [
        fe.required(f"{path}.namespace")]
    return out


def csi_driver_causes(driver: str, path: str) -> list[Cause]:
    """``ValidateCSIDriverName``."""
    if not driver:
        return [fe.required(path)]
    out = [fe.too_long(path, 63)] if len(driver) > 63 else []
    return out + [fe.invalid(path, driver, e) for e in dns1123_subdomain_errors(driver.lower())]


def _csi(src: Obj, path: str) -> list[Cause]:
    """``validateCSIPersistentVolumeSource`` (nodeStageSecretRef goes unchecked upstream)."""
    out = csi_driver_causes(_s(src.get("driver")), f"{path}.driver")
    if not src.get("volumeHandle"):
        out.append(fe.required(f"{path}.volumeHandle"))
    for key in ("controllerPublishSecretRef", "controllerExpandSecretRef", "nodePublishSecretRef",
                "nodeExpandSecretRef"):
        if src.get(key) is not None:
            out += _pv_secret_ref(_o(src[key]), f"{path}.{key}")
    return out


def _host_path(src: Obj, path: str) -> list[Cause]:
    return pv_src.volume_source_causes("hostPath", src, path)


def _nfs(src: Obj, path: str) -> list[Cause]:
    return pv_src.volume_source_causes("nfs", src, path)


def _fc(src: Obj, path: str) -> list[Cause]:
    return pv_src.volume_source_causes("fc", src, path)


# ValidatePersistentVolumeSpec's order: (key, the path its Forbidden names, the path its
# own rules name, the rules); the first set is validated, later ones are forbidden. The
# name-dependent iSCSI rules are filled in per volume.
SOURCES: Final[tuple[tuple[str, str, str, Check | None], ...]] = (
    ("hostPath", "hostPath", "hostPath", _host_path),
    ("gcePersistentDisk", "gcePersistentDisk", "persistentDisk", pv_src.partitioned("pdName")),
    ("awsElasticBlockStore", "awsElasticBlockStore", "awsElasticBlockStore", pv_src.partitioned("volumeID")),
    ("glusterfs", "glusterfs", "glusterfs", _glusterfs),
    ("flocker", "flocker", "flocker", pv_src.flocker_causes),
    ("nfs", "nfs", "nfs", _nfs),
    ("rbd", "rbd", "rbd", _required("monitors", "image")),
    ("quobyte", "quobyte", "quobyte", pv_src.quobyte_causes),
    ("cephfs", "cephFS", "cephfs", _required("monitors")),
    ("iscsi", "iscsi", "iscsi", None),
    ("cinder", "cinder", "cinder", _with_secret(("volumeID",))),
    ("fc", "fc", "fc", _fc),
    ("flexVolume", "", "flexVolume", pv_src.flex_causes),
    ("azureFile", "azureFile", "azureFile", _azure_file),
    ("vsphereVolume", "vsphereVolume", "vsphereVolume", _required("volumePath")),
    ("photonPersistentDisk", "photonPersistentDisk", "photonPersistentDisk", _required("pdID")),
    ("portworxVolume", "portworxVolume", "portworxVolume", _required("volumeID")),
    ("azureDisk", "azureDisk", "azureDisk", pv_src.azure_disk_causes),
    ("scaleIO", "scaleIO", "scaleIO", _required("gateway", "system", "volumeName")),
    ("local", "local", "local", _local),
    ("storageos", "storageos", "storageos", _storageos),
    ("csi", "csi", "csi", _csi),
)
SOURCE_KEYS: Final = tuple(k for k, _, _, _ in SOURCES)


def _sources(spec: Obj, name: str, affinity_set: bool) -> list[Cause]:
    out: list[Cause] = []
    seen = 0
    for key, forbid_path, own_path, check in SOURCES:
        if spec.get(key) is None:
            continue
        if seen and forbid_path:  # flexVolume is never forbidden, only counted
            out.append(fe.forbidden(f"spec.{forbid_path}", "may not specify more than 1 volume type"))
            continue
        seen += 1
        rules = check or _iscsi(name)
        out += rules(_o(spec[key]), f"spec.{own_path}")
        if key == "local" and not affinity_set:
            out.append(fe.required("spec.nodeAffinity", "Local volume requires node affinity"))
    return out if seen else [*out, fe.required("spec", "must specify a volume type")]


def access_mode_causes(modes: list[Any], path: str) -> list[Cause]:
    """A volume's accessModes (a PV's, or an inline spec's in a VolumeAttachment)."""
    out = [] if modes else [fe.required(path)]
    out += [fe.not_supported(path, m, ACCESS_MODES) for m in modes if m not in ACCESS_MODES]
    if "ReadWriteOncePod" in modes and any(m in ACCESS_MODES and m != "ReadWriteOncePod" for m in modes):
        out.append(fe.forbidden(path, "may not use ReadWriteOncePod with other access modes"))
    return out


def _capacity(spec: Obj) -> list[Cause]:
    cap = _o(spec.get("capacity"))
    out = [] if cap else [fe.required("spec.capacity")]
    if "storage" not in cap or len(cap) > 1:
        out.append(fe.not_supported("spec.capacity", cap, ("storage",)))
    for r, q in cap.items():
        out += _quantity(q, f"spec.capacity[{r}]")
    return out


def _quantity(q: Any, path: str) -> list[Cause]:
    """``validateBasicResource`` and ``ValidatePositiveQuantityValue``."""
    try:
        v = parse_quantity(q)
    except ValueError:
        return []  # a bad quantity fails decoding first
    out = [fe.invalid(path, q, "must be a valid resource quantity")] if v < 0 else []
    return out + ([fe.invalid(path, q, "must be greater than zero")] if v <= 0 else [])


def _affinity(spec: Obj, allow_invalid_values: bool) -> tuple[bool, list[Cause]]:
    """``validateVolumeNodeAffinity``: whether it is set, and its causes."""
    aff = spec.get("nodeAffinity")
    if aff is None:
        return False, []
    req = _o(aff).get("required")
    if req is None:
        return True, [fe.required("spec.nodeAffinity.required", "must specify required node constraints")]
    path = "spec.nodeAffinity.required"
    if not allow_invalid_values:
        return True, node_selector(req, path)
    terms = _o(req).get("nodeSelectorTerms") or []
    if not terms:
        return True, [fe.required(f"{path}.nodeSelectorTerms", "must have at least one node selector term")]
    out: list[Cause] = []
    for i, t in enumerate(terms):
        out += node_selector_term(_o(t), f"{path}.nodeSelectorTerms[{i}]", values=False)
    return True, out


def _class_names(spec: Obj) -> list[Cause]:
    out: list[Cause] = []
    sc = _s(spec.get("storageClassName"))
    if sc:
        out += [fe.invalid("spec.storageClassName", sc, e) for e in dns1123_subdomain_errors(sc)]
    vac = spec.get("volumeAttributesClassName")
    if vac is not None:  # VolumeAttributesClass is GA and locked on
        if vac == "":
            out.append(fe.required("spec.volumeAttributesClassName", "an empty string is disallowed"))
        else:
            out += [fe.invalid("spec.volumeAttributesClassName", vac, e) for e in dns1123_subdomain_errors(_s(vac))]
        if spec.get("csi") is None:
            out.append(fe.required("spec.csi", "has to be specified when using volumeAttributesClassName"))
    return out


def spec_causes(pv: Obj, allow_invalid_values: bool = False) -> list[Cause]:
    """``ValidatePersistentVolumeSpec`` of a standalone volume."""
    spec = _o(pv.get("spec"))
    out = access_mode_causes(spec.get("accessModes") or [], "spec.accessModes") + _capacity(spec)
    policy = _s(spec.get("persistentVolumeReclaimPolicy"))
    if policy and policy not in _RECLAIM:
        out.append(fe.not_supported("spec.persistentVolumeReclaimPolicy", policy, _RECLAIM))
    affinity_set, errs = _affinity(spec, allow_invalid_values)
    out += errs + _sources(spec, _s(_o(pv.get("metadata")).get("name")), affinity_set)
    host = spec.get("hostPath")
    if host is not None and posixpath.normpath(_s(_o(host).get("path")) or ".") == "/" and policy == "Recycle":
        out.append(fe.forbidden("spec.persistentVolumeReclaimPolicy", "may not be 'recycle' for a hostPath mount of '/'"))
    out += _class_names(spec)
    mode = spec.get("volumeMode")
    if mode is not None and mode not in _VOLUME_MODES:
        out.append(fe.not_supported("spec.volumeMode", mode, _VOLUME_MODES))
    return out


def mount_option_causes(pv: Obj) -> list[Cause]:
    """``checkMountOption``: only some sources take the mount-options annotation."""
    spec = _o(pv.get("spec"))
    takes = ("gcePersistentDisk", "awsElasticBlockStore", "glusterfs", "nfs", "rbd", "quobyte", "iscsi",
             "cinder", "cephfs", "azureFile", "vsphereVolume", "azureDisk", "photonPersistentDisk")
    if any(spec.get(k) is not None for k in takes):
        return []
    if _MOUNT_OPTIONS in _o(_o(pv.get("metadata")).get("annotations")):
        return [fe.forbidden(f"metadata.annotations.{_MOUNT_OPTIONS}", "may not specify mount options for this volume type")]
    return []


def _requirements(term: Obj, key: str) -> list[Obj]:
    return [_o(r) for r in term.get(key) or []]


def _same_requirement(new: Obj, old: Obj) -> bool:
    """Semantic equality where the old key may have moved from a beta label to its GA one."""
    okey = old.get("key")
    if okey != new.get("key") and _BETA_TO_GA.get(_s(okey)) == new.get("key"):
        old = {**old, "key": new.get("key")}
    return bool(_norm(new) == _norm(old))


def _norm(v: Any) -> Any:
    """Semantic equality treats an unset field like its zero value (an empty list, map,
    string or false)."""
    if isinstance(v, dict):
        return {k: _norm(x) for k, x in v.items() if x is not None and x not in ([], {}, "", False)}
    if isinstance(v, list):
        return [_norm(x) for x in v]
    return v


def _same_term(new: Obj, old: Obj) -> bool:
    for key in ("matchExpressions", "matchFields"):
        n, o = _requirements(new, key), _requirements(old, key)
        if len(n) != len(o) or not all(_same_requirement(a, b) for a, b in zip(n, o, strict=True)):
            return False
    rest = ("matchExpressions", "matchFields")
    return bool(_norm({k: v for k, v in new.items() if k not in rest}) == _norm({k: v for k, v in old.items() if k not in rest}))


def _same_affinity(new: Any, old: Any) -> bool:
    """``getMaskNodeSelectorLabelChangeEqualities().DeepEqual`` of two VolumeNodeAffinity."""
    if new is None or old is None:
        return new is None and old is None
    nreq, oreq = _o(new).get("required"), _o(old).get("required")
    if nreq is None or oreq is None:
        return nreq is None and oreq is None
    nt, ot = _o(nreq).get("nodeSelectorTerms") or [], _o(oreq).get("nodeSelectorTerms") or []
    return len(nt) == len(ot) and all(_same_term(_o(a), _o(b)) for a, b in zip(nt, ot, strict=True))


def _source_of(spec: Obj) -> Obj:
    return {k: _norm(spec[k]) for k in SOURCE_KEYS if spec.get(k) is not None}


def update_causes(pv: Obj, old: Obj, mutable_affinity: bool) -> list[Cause]:
    """``ValidatePersistentVolumeUpdate`` past its revalidation of the new volume."""
    spec, ospec = _o(pv.get("spec")), _o(old.get("spec"))
    nsrc, osrc = _source_of(spec), _source_of(ospec)
    # A controllerExpandSecretRef may be set once, from unset.
    ocsi, ncsi = osrc.get("csi"), nsrc.get("csi")
    if isinstance(ocsi, dict) and isinstance(ncsi, dict) and "controllerExpandSecretRef" not in ocsi:
        nsrc["csi"] = {k: v for k, v in ncsi.items() if k != "controllerExpandSecretRef"}
    out: list[Cause] = []
    if nsrc != osrc:
        out.append(fe.forbidden("spec.persistentvolumesource", "spec.persistentvolumesource is immutable after creation"))
    if spec.get("volumeMode") != ospec.get("volumeMode"):
        out.append(fe.invalid("volumeMode", spec.get("volumeMode"), _IMMUTABLE))
    if not mutable_affinity and ospec.get("nodeAffinity") is not None and not _same_affinity(
        spec.get("nodeAffinity"), ospec.get("nodeAffinity")
    ):
        out.append(fe.invalid("nodeAffinity", spec.get("nodeAffinity"),
                              f"{_IMMUTABLE}, except for updating from beta label to GA"))
    ovac, nvac = ospec.get("volumeAttributesClassName"), spec.get("volumeAttributesClassName")
    if ovac != nvac and ovac is not None and nvac is None:
        out.append(fe.forbidden("spec.volumeAttributesClassName", "update from non-nil value to nil is forbidden"))
    return out
