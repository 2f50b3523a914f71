"""The pods/ephemeralcontainers subresource (``EphemeralContainersREST``,
``podEphemeralContainersStrategy``): only spec.ephemeralContainers comes from the body,
judged by ``ValidatePodEphemeralContainersUpdate``."""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

from reference_impl.api.well_known_annotations import MIRROR_POD
from reference_impl.apiserver import conversion
from reference_impl.apiserver.admission.chain import Request
from reference_impl.apiserver.decode import Decoded, schema_causes
from reference_impl.apiserver.registry import Operation, strategy_for
from reference_impl.apiserver.strategies.meta import meta_causes
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.apiserver.warnings.recorder import header_texts
from reference_impl.errors import Cause, Invalid, MethodNotAllowed

if TYPE_CHECKING:
    from reference_impl.apiserver.registry import Context
    from reference_impl.apiserver.server import APIServer

__all__ = ["SUBRESOURCE", "update_ephemeral_containers"]

Obj = dict[str, Any]
SUBRESOURCE = "ephemeralcontainers"
_PATH = "spec.ephemeralContainers"


def _drop_non_ephemeral_updates(body: Obj, old: Obj) -> Obj:
    """``dropNonEphemeralContainerUpdates``: the stored pod with the body's ephemeral
    containers. ``ResetObjectMetaForStatus`` takes back every metadata field a client may
    set (labels, annotations, finalizers, owners), so the metadata is the stored one."""
    new = copy.deepcopy(old)
    containers = (body.get("spec") or {}).get("ephemeralContainers")
    if containers:
        new["spec"]["ephemeralContainers"] = containers
    else:
        new["spec"].pop("ephemeralContainers", None)
    return new


def _metadata_and_spec_causes(new: Obj, ctx: Context) -> list[Cause]:
    """``validatePodMetadataAndSpec``: the Pod validators without ValidatePodCreate's own
    checks (they ask ``ctx.subresource``)."""
    causes = schema_causes(new)
    for v in strategy_for("Pod").validators:
        causes += v(new, None, ctx)
    return causes


def _existing_causes(new: Obj, old: Obj) -> list[Cause]:
    """Existing ephemeral containers may be neither removed nor changed."""
    by_name = {str(c.get("name", "")): c for c in new["spec"].get("ephemeralContainers") or []}
    causes: list[Cause] = []
    for c in old["spec"].get("ephemeralContainers") or []:
        name = str(c.get("name", ""))
        if name not in by_name:
            causes.append(fe.forbidden(_PATH, f'existing ephemeral containers "{name}" may not be removed\n'))
        elif by_name[name] != c:
            causes.append(fe.forbidden(_PATH, f'existing ephemeral containers "{name}" may not be changed'))
    return causes


def update_ephemeral_containers(srv: APIServer, manifest: Obj) -> Obj:
    """``APIServer.update_ephemeralcontainers``."""
    d = srv._decode(manifest)
    if d.info.kind != "Pod":
        raise MethodNotAllowed(f"{d.info.group_resource} has no {SUBRESOURCE} subresource")
    key, old = srv._current(d.info, d.obj["metadata"])
    ctx = srv._context(SUBRESOURCE)
    for default in strategy_for("Pod").defaulters:  # the body's decoding defaults
        default(d.obj, ctx)
    req = Request(srv, SUBRESOURCE)  # PodSecurity and ServiceAccount look at this one
    req.admit(Operation.UPDATE, d.info, d.obj, old)
    new = _drop_non_ephemeral_updates(d.obj, old)
    causes = meta_causes(d.info, new, old) + _metadata_and_spec_causes(new, ctx)
    if MIRROR_POD in (old["metadata"].get("annotations") or {}):
        causes = [fe.forbidden("[]", "static pods do not support ephemeral containers")]
    else:
        causes += _existing_causes(new, old)
    causes = causes or req.validate(Operation.UPDATE, d.info, new, old)
    if causes:
        name = str(old["metadata"].get("name", ""))
        raise Invalid("Pod", name, conversion.wire_causes(causes, d.info, d.api_version))
    if new["spec"] != old["spec"]:  # updatePodGeneration
        new["metadata"]["generation"] = int(old["metadata"].get("generation", 1)) + 1
    out = srv._finish_update(key, Decoded(d.info, new, d.api_version), old)
    srv.warnings = header_texts(req.done())
    return out
