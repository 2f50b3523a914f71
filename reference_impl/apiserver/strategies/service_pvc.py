"""Service and PersistentVolumeClaim spec rules of ``pkg/apis/core/validation`` (1.37.2):
service type and ports (names, numbers, protocols, target ports, duplicates), and the
claim's access modes, storage request, volume mode, storage class and immutability."""

from __future__ import annotations

import copy
from typing import Any, Final

from reference_impl.api.meta import dns1123_label_errors, dns1123_subdomain_errors, parse_quantity
from reference_impl.apiserver.registry import Context, defaulter, preparer, validator
from reference_impl.apiserver.strategies import pvc_util
from reference_impl.apiserver.strategies.meta import labels_causes
from reference_impl.apiserver.strategies.pod_containers import port_name_errors, port_number_errors
from reference_impl.apiserver.strategies.policy import label_selector_causes
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.apiserver.validation.persistent_volume import ACCESS_MODES
from reference_impl.errors import Cause

__all__: list[str] = []

Obj = dict[str, Any]
_TYPES: Final = ("ClusterIP", "ExternalName", "LoadBalancer", "NodePort")
_PROTOCOLS: Final = ("SCTP", "TCP", "UDP")
_VOLUME_MODES: Final = ("Block", "Filesystem")
_BETA_CLASS: Final = "volume.beta.kubernetes.io/storage-class"


def _port_causes(sp: Obj, path: str, require_name: bool, names: set[str]) -> list[Cause]:
    causes: list[Cause] = []
    name = str(sp.get("name") or "")
    if require_name and not name:
        causes.append(fe.required(f"{path}.name"))
    elif name:
        causes += [fe.invalid(f"{path}.name", name, e) for e in dns1123_label_errors(name)]
        if name in names:
            causes.append(fe.duplicate(f"{path}.name", name))
        names.add(name)
    port = sp.get("port") or 0
    causes += [fe.invalid(f"{path}.port", port, e) for e in port_number_errors(port)]
    proto = sp.get("protocol", "TCP")
    if not proto:
        causes.append(fe.required(f"{path}.protocol"))
    elif proto not in _PROTOCOLS:
        causes.append(fe.not_supported(f"{path}.protocol", proto, _PROTOCOLS))
    target = sp.get("targetPort", port)
    if isinstance(target, str):
        causes += [fe.invalid(f"{path}.targetPort", target, e) for e in port_name_errors(target)]
    elif isinstance(target, int):
        causes += [fe.invalid(f"{path}.targetPort", target, e) for e in port_number_errors(target)]
    return causes


def _externally_accessible(spec: Obj, kind: str) -> bool:
    """``service.ExternallyAccessible``: a NodePort or LoadBalancer, or a ClusterIP with
    external IPs."""
    return kind in ("NodePort", "LoadBalancer") or (kind == "ClusterIP" and bool(spec.get("externalIPs")))


@defaulter("Service")
def default_service(svc: Obj, ctx: Context) -> None:
    """``SetDefaults_Service``: session affinity, type, each port's protocol and target
    port (0 or "" means the port itself), and the traffic policies by type. The spec is a
    struct value: a missing one is defaulted too."""
    spec = svc.setdefault("spec", {})
    if not isinstance(spec, dict):
        return
    if not spec.get("sessionAffinity"):
        spec["sessionAffinity"] = "None"
    if spec["sessionAffinity"] == "None":
        spec.pop("sessionAffinityConfig", None)
    elif spec["sessionAffinity"] == "ClientIP":
        cfg = spec.get("sessionAffinityConfig") or {}
        client = cfg.get("clientIP") or {}
        client.setdefault("timeoutSeconds", 10800)
        spec["sessionAffinityConfig"] = {**cfg, "clientIP": client}
    if not spec.get("type"):
        spec["type"] = "ClusterIP"
    for sp in spec.get("ports") or []:
        if not isinstance(sp, dict):
            continue
        if not sp.get("protocol"):
            sp["protocol"] = "TCP"
        if sp.get("targetPort") in (None, 0, "") and sp.get("port") is not None:
            sp["targetPort"] = sp["port"]
    kind = spec["type"]
    if _externally_accessible(spec, kind) and not spec.get("externalTrafficPolicy"):
        spec["externalTrafficPolicy"] = "Cluster"
    if spec.get("internalTrafficPolicy") is None and kind in ("NodePort", "LoadBalancer", "ClusterIP"):
        spec["internalTrafficPolicy"] = "Cluster"
    if kind == "LoadBalancer" and spec.get("allocateLoadBalancerNodePorts") is None:
        spec["allocateLoadBalancerNodePorts"] = True


@validator("Service")
def validate_service(svc: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``ValidateService``'s type and ports."""
    spec = svc.get("spec") or {}
    kind = spec.get("type", "ClusterIP")
    causes: list[Cause] = []
    if kind not in _TYPES:
        causes.append(fe.not_supported("spec.type", kind, _TYPES))
    ports = [p for p in spec.get("ports") or [] if isinstance(p, dict)]
    headless = spec.get("clusterIP") == "None"
    if not ports and kind != "ExternalName" and not headless:
        causes.append(fe.required("spec.ports"))
    names: set[str] = set()
    seen: set[tuple[Any, Any]] = set()
    for i, sp in enumerate(ports):
        causes += _port_causes(sp, f"spec.ports[{i}]", len(ports) > 1, names)
        # ValidateService keys ServicePort{Protocol, Port}: an unset port is Go's 0.
        key = (sp.get("port") or 0, sp.get("protocol") or "TCP")
        if key in seen:
            causes.append(fe.duplicate(f"spec.ports[{i}]", {"port": key[0], "protocol": key[1]}))
        seen.add(key)
    selector = spec.get("selector")
    if isinstance(selector, dict):
        causes += labels_causes(selector, "spec.selector")
    if kind == "ExternalName":
        causes += _external_name_causes(spec)
    causes += _external_traffic_causes(spec, kind)
    if kind == "ClusterIP":
        causes += [
            fe.forbidden(f"spec.ports[{i}].nodePort", "may not be used when `type` is 'ClusterIP'")
            for i, sp in enumerate(ports) if sp.get("nodePort")
        ]
    if spec.get("allocateLoadBalancerNodePorts") is not None and kind != "LoadBalancer":
        causes.append(
            fe.forbidden(
                "spec.allocateLoadBalancerNodePorts", "may only be used when `type` is 'LoadBalancer'"
            )
        )
    if spec.get("loadBalancerSourceRanges") and kind != "LoadBalancer":
        causes.append(
            fe.forbidden("spec.LoadBalancerSourceRanges", "may only be used when `type` is 'LoadBalancer'")
        )
    return causes


def _external_traffic_causes(spec: Obj, kind: str) -> list[Cause]:
    """``validateServiceExternalTrafficPolicy``'s policy half (the health-check node port
    is the allocator's)."""
    etp = spec.get("externalTrafficPolicy") or ""
    if not _externally_accessible(spec, kind):
        if etp:
            return [fe.invalid("spec.externalTrafficPolicy", etp, "may only be set for externally-accessible services")]
        return []
    if not etp:
        return [fe.required("spec.externalTrafficPolicy")]
    if etp not in ("Cluster", "Local"):
        return [fe.not_supported("spec.externalTrafficPolicy", etp, ("Cluster", "Local"))]
    return []


def _external_name_causes(spec: Obj) -> list[Cause]:
    """The ExternalName case of ``validateService``: no cluster IPs or IP families, and a
    CNAME (one trailing dot allowed) that is a DNS subdomain."""
    causes: list[Cause] = []
    if spec.get("clusterIPs"):
        causes.append(fe.forbidden("spec.clusterIPs", "may not be set for ExternalName services"))
    if spec.get("ipFamilies"):
        causes.append(fe.forbidden("spec.ipFamilies", "may not be set for ExternalName services"))
    if spec.get("ipFamilyPolicy") is not None:
        causes.append(fe.forbidden("spec.ipFamilyPolicy", "may not be set for ExternalName services"))
    cname = str(spec.get("externalName") or "").removesuffix(".")
    if cname:
        causes += [fe.invalid("spec.externalName", cname, e) for e in dns1123_subdomain_errors(cname)]
    else:
        causes.append(fe.required("spec.externalName"))
    return causes


def _ref_causes(ref: Obj, path: str, allow_invalid_group: bool, namespaced: bool) -> list[Cause]:
    """``validateDataSource`` / ``validateDataSourceRef``."""
    causes: list[Cause] = []
    if not ref.get("name"):
        causes.append(fe.required(f"{path}.name"))
    if not ref.get("kind"):
        causes.append(fe.required(f"{path}.kind"))
    group = str(ref.get("apiGroup") or "")
    if not group and ref.get("kind") != "PersistentVolumeClaim":
        causes.append(fe.invalid(path, ref.get("kind") or "",
                                 "must be 'PersistentVolumeClaim' when referencing the default apiGroup"))  # fmt: skip
    if group and not allow_invalid_group:
        causes += [fe.invalid(f"{path}.apiGroup", group, e) for e in dns1123_subdomain_errors(group)]
    ns = ref.get("namespace")
    if namespaced and ns:
        causes += [fe.invalid(f"{path}.namespace", ns, e) for e in dns1123_label_errors(str(ns))]
    return causes


def _data_source_causes(spec: Obj, allow_invalid_group: bool) -> list[Cause]:
    """The data source rules of ``ValidatePersistentVolumeClaimSpec`` (after the strategy's
    ``NormalizeDataSources``): each reference, and the two agreeing."""
    src, ref = spec.get("dataSource"), spec.get("dataSourceRef")
    causes: list[Cause] = []
    if isinstance(src, dict):
        causes += _ref_causes(src, "spec.dataSource", allow_invalid_group, False)
    if isinstance(ref, dict):
        causes += _ref_causes(ref, "spec.dataSourceRef", allow_invalid_group, True)
    if isinstance(ref, dict) and ref.get("namespace"):
        if isinstance(src, dict):
            causes.append(fe.invalid("spec", "spec.dataSource",
                                     "may not be specified when dataSourceRef.namespace is specified"))  # fmt: skip
    elif isinstance(src, dict) and isinstance(ref, dict):
        if any(str(src.get(k) or "") != str(ref.get(k) or "") for k in ("apiGroup", "kind", "name")):
            causes.append(fe.invalid("spec", "spec.dataSource", "must match dataSourceRef"))
    return causes


@preparer("PersistentVolumeClaim")
def prepare_pvc(pvc: Obj, old: Obj | None, now: str, ctx: Context) -> None:
    """The PVC strategy's PrepareForCreate/Update data-source steps (KEP-1495)."""
    spec = pvc.get("spec")
    if not isinstance(spec, dict):
        return
    ospec = (old or {}).get("spec")
    ospec = ospec if isinstance(ospec, dict) else None
    pvc_util.drop_disabled_fields(spec, ospec, ctx.gates)
    pvc_util.enforce_data_source_backwards_compatibility(spec, ospec)
    # NormalizeDataSources runs on update too: old clients omit the dataSourceRef.
    pvc_util.normalize_data_sources(spec)
    if old is None:
        # PrepareForCreate empties the status; the object read back through the storage
        # codec is defaulted again: SetDefaults_PersistentVolumeClaim's Pending phase.
        pvc["status"] = {"phase": "Pending"}


def _claim_spec_causes(spec: Obj, allow_invalid_group: bool = False) -> list[Cause]:
    causes: list[Cause] = []
    modes = spec.get("accessModes") or []
    if not modes:
        causes.append(fe.required("spec.accessModes", "at least 1 access mode is required"))
    for m in modes:
        if m not in ACCESS_MODES:
            causes.append(fe.not_supported("spec.accessModes", m, ACCESS_MODES))
    if "ReadWriteOncePod" in modes and len(modes) > 1:
        causes.append(
            fe.forbidden("spec.accessModes", "may not use ReadWriteOncePod with other access modes")
        )
    storage = ((spec.get("resources") or {}).get("requests") or {}).get("storage")
    path = "spec.resources[storage]"
    if storage is None:
        causes.append(fe.required(path))
    else:
        try:
            if parse_quantity(storage) <= 0:
                causes.append(fe.invalid(path, storage, "must be greater than zero"))
        except ValueError as e:
            causes.append(fe.invalid(path, storage, str(e)))
    sc = spec.get("storageClassName")
    if sc:
        causes += [fe.invalid("spec.storageClassName", sc, e) for e in dns1123_subdomain_errors(sc)]
    vac = spec.get("volumeAttributesClassName")
    if vac:  # VolumeAttributesClass is GA (on)
        causes += [fe.invalid("spec.volumeAttributesClassName", vac, e) for e in dns1123_subdomain_errors(str(vac))]
    causes += _data_source_causes(spec, allow_invalid_group)
    causes += label_selector_causes(spec.get("selector"), "spec.selector")
    vm = spec.get("volumeMode")
    if vm is not None and vm not in _VOLUME_MODES:
        causes.append(fe.not_supported("spec.volumeMode", vm, _VOLUME_MODES))
    return causes


def _compared(new: Obj, old: Obj, bound: bool) -> tuple[Obj, Obj]:
    """The two specs as ValidatePersistentVolumeClaimUpdate compares them: volumeName
    may be set once; a bound claim may change its storage request and its class of
    volume attributes."""
    nspec, ospec = copy.deepcopy(new.get("spec") or {}), copy.deepcopy(old.get("spec") or {})
    if _class_upgrade(new, old):
        nspec.pop("storageClassName", None)
    if not ospec.get("volumeName"):
        if "volumeName" in nspec:
            ospec["volumeName"] = nspec["volumeName"]
        else:
            ospec.pop("volumeName", None)
    if bound:
        nreq = (nspec.get("resources") or {}).get("requests")
        if isinstance(nreq, dict):
            ostorage = ((ospec.get("resources") or {}).get("requests") or {}).get("storage")
            if ostorage is None:
                nreq.pop("storage", None)
            else:
                nreq["storage"] = ostorage
        for spec_ in (nspec, ospec):
            spec_.pop("volumeAttributesClassName", None)
    return nspec, ospec


def _beta_class(pvc: Obj) -> str | None:
    ann = (pvc.get("metadata") or {}).get("annotations") or {}
    return None if _BETA_CLASS not in ann else str(ann[_BETA_CLASS])


def _class_upgrade(new: Obj, old: Obj) -> bool:
    """``validateStorageClassUpgradeFromAnnotation`` or ``...FromNil``: a claim without
    spec.storageClassName may set it once (to its beta annotation's class, if it has one)."""
    nsc, osc = (new.get("spec") or {}).get("storageClassName"), (old.get("spec") or {}).get("storageClassName")
    oann, nann = _beta_class(old), _beta_class(new)
    if osc is not None or nsc is None:
        return False
    if oann is not None and nsc == oann and nann in (None, oann):
        return True
    return oann is None or nsc == oann


def _annotation_causes(new: Obj, old: Obj) -> list[Cause]:
    """``ValidateImmutableAnnotation`` of the beta storage class annotation, unless the
    update moves it into spec.storageClassName."""
    nsc, osc = (new.get("spec") or {}).get("storageClassName"), (old.get("spec") or {}).get("storageClassName")
    oann, nann = _beta_class(old), _beta_class(new)
    if oann is not None and osc is None and nsc == oann and nann in (None, oann):
        return []
    if (nann or "") != (oann or ""):
        return [fe.invalid(f"metadata.annotations.{_BETA_CLASS}", nann or "", "field is immutable")]
    return []


def _storage(pvc: Obj) -> Any:
    return (((pvc.get("spec") or {}).get("resources") or {}).get("requests") or {}).get("storage")


@validator("PersistentVolumeClaim")
def validate_pvc(pvc: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``ValidatePersistentVolumeClaimSpec``; on update the spec is immutable but the
    storage request and the volume attributes class (and binding its volumeName)."""
    spec = pvc.get("spec") or {}
    ospec = (old or {}).get("spec") or {}
    # ValidationOptionsForPersistentVolumeClaim: an old claim with an apiGroup set lets
    # an invalid one stay.
    allow = any(isinstance(ospec.get(f), dict) and ospec[f].get("apiGroup") is not None
                for f in ("dataSource", "dataSourceRef"))  # fmt: skip
    causes = _claim_spec_causes(spec, allow)
    if old is not None:
        bound = (pvc.get("status") or {}).get("phase") == "Bound"
        nspec, ospec = _compared(pvc, old, bound)
        if nspec != ospec:
            causes.append(
                fe.forbidden(
                    "spec",
                    "spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims",
                )
            )
        causes += _annotation_causes(pvc, old)
        # RecoverVolumeExpansionFailure (GA): a shrink must stay above status.capacity.
        capacity = ((old.get("status") or {}).get("capacity") or {}).get("storage") or 0
        try:
            size = parse_quantity(_storage(pvc) or 0)
            shrunk = size < parse_quantity(_storage(old) or 0) and size <= parse_quantity(capacity)
        except ValueError:
            shrunk = False
        if shrunk:
            causes.append(
                fe.forbidden("spec.resources.requests.storage", "field can not be less than status.capacity")
            )
        if (pvc.get("spec") or {}).get("volumeMode") != (old.get("spec") or {}).get("volumeMode"):
            causes.append(fe.invalid("volumeMode", (pvc.get("spec") or {}).get("volumeMode"), "field is immutable"))
    return causes
