"""The pods/resize and pods/binding subresources (``pkg/registry/core/pod/storage``)."""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any, Final

from reference_impl.apiserver import keys
from reference_impl.apiserver.admission.pod_resize import validate_pod_resize
from reference_impl.apiserver.admission.pod_topology_labels import topology_labels
from reference_impl.apiserver.admission.resource_quota import ResourceQuotaAdmission
from reference_impl.apiserver.decode import schema_causes
from reference_impl.apiserver.registry import Operation
from reference_impl.apiserver.strategies.core import pod_qos_class, resize_policy_causes
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.clock import rfc3339
from reference_impl.errors import Cause, Conflict, Invalid, MethodNotAllowed, NotFound
from reference_impl.features import FeatureGates

if TYPE_CHECKING:
    from reference_impl.apiserver.server import APIServer

__all__ = ["MIRROR_ANNOTATION", "bind", "resize"]

Obj = dict[str, Any]
MIRROR_ANNOTATION: Final = "kubernetes.io/config.mirror"


def _qos(spec: Obj, containers: dict[str, Obj], gates: FeatureGates) -> str:
    return pod_qos_class({**spec, "containers": list(containers.values())}, gates)


def _non_resizable(old: Obj | None, new: Obj | None) -> bool:
    """Whether a resize changes a resource other than cpu and memory."""
    if new is None:
        return False
    for part in ("requests", "limits"):
        a, b = (old or {}).get(part) or {}, new.get(part) or {}
        if any(a.get(k) != b.get(k) for k in set(a) | set(b) if k not in ("cpu", "memory")):
            return True
    return False


def _unresizable(pod: Obj) -> Cause | None:
    """``ValidatePodResize``'s early refusals: static (mirror) and Windows pods."""
    if MIRROR_ANNOTATION in (pod["metadata"].get("annotations") or {}):
        return fe.forbidden("", "static pods cannot be resized")
    if ((pod["spec"].get("os") or {}).get("name")) == "windows":
        return fe.forbidden("", "windows pods cannot be resized")
    return None


def _node_supports_resize(pod: Obj) -> bool:
    """``isPodResizeRequestSupported``: the first running container reports resources (a
    kubelet without in-place resize does not); with none running, assume it does."""
    for c in (pod.get("status") or {}).get("containerStatuses") or ():
        if (c.get("state") or {}).get("running") is not None:
            return c.get("resources") is not None
    return True


def _default_requests(c: Obj) -> None:
    """The body's decoding defaults (SetDefaults_Pod): a limit without a request is both."""
    res = c.get("resources")
    if isinstance(res, dict) and isinstance(res.get("limits"), dict) and res["limits"]:
        res["requests"] = {**res["limits"], **(res.get("requests") or {})}


def resize(srv: APIServer, manifest: Obj) -> Obj:
    """``APIServer.resize``: only container resources and resizePolicy may change."""
    d = srv._decode(manifest)
    if d.info.kind != "Pod":
        raise MethodNotAllowed(f"{d.info.group_resource} has no resize subresource")
    obj = d.obj
    meta = obj["metadata"]
    key, old = srv._current(d.info, meta)
    refused = _unresizable(old)
    if refused is not None:
        raise Invalid("Pod", meta.get("name", ""), [refused])
    new = copy.deepcopy(old)
    causes: list[Cause] = []
    new_cs = {c["name"]: c for c in new["spec"].get("containers") or []}
    for i, c in enumerate((obj.get("spec") or {}).get("containers") or []):
        target = new_cs.get(c.get("name", ""))
        if target is None:
            causes.append(
                Cause(f"spec.containers[{i}].name", "FieldValueNotFound", "container not found")
            )
            continue
        if _non_resizable(target.get("resources"), c.get("resources")):
            causes.append(
                Cause("spec", "FieldValueForbidden", "only cpu and memory resources are mutable")
            )
        for f in ("resources", "resizePolicy"):
            if f in c:
                target[f] = copy.deepcopy(c[f])
        _default_requests(target)
    ctx = srv._context("resize")
    # Mutating admission (LimitRanger's defaults) sees the resized spec; only container
    # resources survive the resize strategy, so the throwaway metadata drops its annotation.
    view = {"metadata": {"name": old["metadata"]["name"], "namespace": old["metadata"].get("namespace")},
            "spec": new["spec"]}  # fmt: skip
    for plugin in srv.admission:
        plugin.admit(Operation.UPDATE, d.info, view, old, ctx)
    qos = (old.get("status") or {}).get("qosClass")
    if qos not in (None, _qos(old["spec"], new_cs, srv.gates)):
        msg = f'Invalid value: "{qos}": Pod QOS Class may not change as a result of resizing'
        causes.append(Cause("spec", "FieldValueInvalid", msg))
    if not _node_supports_resize(old):
        causes.append(fe.forbidden("spec", "Pod running on node without support for resize"))
    new["spec"]["containers"] = [new_cs[c["name"]] for c in old["spec"]["containers"]]
    for i, c in enumerate(new["spec"]["containers"]):
        causes += resize_policy_causes(c, f"spec.containers[{i}]")
    causes += schema_causes(new)
    if causes:
        raise Invalid("Pod", meta.get("name", ""), causes)
    # Validating admission in upstream's order: LimitRanger, PodResizeValidator, then
    # ResourceQuota last (it charges the resize, so only once the others have passed).
    quota = [p for p in srv.admission if isinstance(p, ResourceQuotaAdmission)]
    for plugin in srv.admission:
        if plugin not in quota:
            plugin.validate(Operation.UPDATE, d.info, new, old, ctx)
    if new["spec"] == old["spec"]:
        return old  # nothing resizable changed: upstream writes nothing
    new["metadata"]["generation"] = int(old["metadata"].get("generation", 1)) + 1
    validate_pod_resize(srv, new)
    for plugin in quota:
        plugin.validate(Operation.UPDATE, d.info, new, old, ctx)
    return srv._commit(key, new, d.api_version)


def bind(srv: APIServer, namespace: str, name: str, node_name: str) -> Obj:
    """``APIServer.bind``: set spec.nodeName once, as the scheduler does; the reply is
    ``metav1.Status{Status: Success}`` (BindingREST.Create), not the pod."""
    info = srv.resource("v1", "Pod")
    kv = srv.store.get(keys.key(info, name, namespace))
    if kv is None:
        raise NotFound(f'pods "{name}" not found')
    pod = kv.decode()
    if pod["spec"].get("nodeName"):
        raise Conflict(f'pod {name} is already assigned to node "{pod["spec"]["nodeName"]}"')
    if pod["metadata"].get("deletionTimestamp"):
        raise Conflict(f"pod {name} is being deleted, cannot be assigned to a host")
    pod["spec"]["nodeName"] = node_name
    # PodTopologyLabels admits the Binding with the node's labels; the binding copies them.
    labels = topology_labels(srv._context("binding"), node_name)
    if labels:
        pod["metadata"].setdefault("labels", {}).update(labels)
    status = pod.setdefault("status", {})
    # ClearingNominatedNodeNameAfterBinding (beta, on in 1.37): the hint is spent.
    status.pop("nominatedNodeName", None)
    conds = [c for c in status.get("conditions") or [] if c.get("type") != "PodScheduled"]
    conds.append(
        {"type": "PodScheduled", "status": "True", "lastTransitionTime": rfc3339(srv.clock.now())}
    )
    status["conditions"] = conds
    srv._put(kv.key, pod)
    return {"apiVersion": "v1", "kind": "Status", "metadata": {}, "status": "Success"}
