"""resource.k8s.io/v1beta1 <-> v1 (the storage version), after ``pkg/apis/resource/v1beta1``.

v1beta1 keeps two older shapes (api-1.37.md §1.6):

* ``Device`` is ``{name, basic: BasicDevice}``; v1 lifts BasicDevice's fields onto the device.
* ``DeviceRequest`` is flat; v1 moves the single-request fields under ``exactly``. As
  upstream, ``exactly`` is created only when one of those fields is set, so a request with
  only ``firstAvailable`` stays without it, and one with both fails v1 validation.

``ResourceSliceSpec.nodeName`` and ``allNodes`` are plain string/bool in v1beta1 but
optional in v1: an empty name or a false flag means unset, in both directions.
DeviceClass and ResourceClaim status have the same shapes in both versions.

Error paths: upstream's handwritten validation runs on the internal (v1) shape, so most
errors of a v1beta1 write name v1 paths (``requests[0].exactly.count``). The enum checks
are declarative (``+k8s:beta`` in 1.37) and run on the versioned object, so an
unsupported value names the v1beta1 path (``requests[0].allocationMode``,
``devices[0].basic.taints[0].effect``), as a live 1.37.2 apiserver answers.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from typing import Any, Final

from reference_impl.apiserver.conversion.scheme import register
from reference_impl.errors import Cause

__all__ = [
    "EXACT_FIELDS",
    "declarative_paths",
    "device_from_v1",
    "device_to_v1",
    "request_from_v1",
    "request_to_v1",
]

Obj = dict[str, Any]
_Fn = Callable[[object], object]
_Conv = Callable[[Obj], Obj]
GROUP: Final = "resource.k8s.io"
VERSION: Final = "v1beta1"

# The ExactDeviceRequest fields, which sit directly on a v1beta1 DeviceRequest.
EXACT_FIELDS: Final = (
    "deviceClassName",
    "selectors",
    "allocationMode",
    "count",
    "adminAccess",
    "tolerations",
    "capacity",
    "derivedAttributes",
)
# Go zero values that mean "unset" for the v1beta1 non-pointer fields.
_ZERO: Final[dict[str, object]] = {"deviceClassName": "", "allocationMode": "", "count": 0}


def _is_set(field: str, value: object) -> bool:
    if value is None:
        return False
    return field not in _ZERO or value != _ZERO[field]


def request_to_v1(req: object) -> object:
    """A v1beta1 DeviceRequest in v1 shape (in place)."""
    if not isinstance(req, dict):
        return req
    exactly = {f: req.pop(f) for f in EXACT_FIELDS if f in req}
    exactly = {f: v for f, v in exactly.items() if _is_set(f, v)}
    if exactly:
        req["exactly"] = exactly
    return req


def request_from_v1(req: object) -> object:
    """A v1 DeviceRequest in v1beta1 shape (in place); ``deviceClassName`` is always
    present, as Go serializes the non-omitempty string."""
    if not isinstance(req, dict):
        return req
    exactly = req.pop("exactly", None)
    flat: Obj = {"deviceClassName": ""}
    if isinstance(exactly, dict):
        flat.update((f, exactly[f]) for f in EXACT_FIELDS if f in exactly)
    rest = {k: req.pop(k) for k in list(req) if k != "name"}
    req.update(flat)
    req.update(rest)
    return req


def device_to_v1(device: object) -> object:
    """A v1beta1 Device (``basic``) in v1 shape (in place)."""
    if not isinstance(device, dict):
        return device
    basic = device.pop("basic", None)
    if isinstance(basic, dict):
        device.update(basic)
    return device


def device_from_v1(device: object) -> object:
    """A v1 Device in v1beta1 shape (in place): every field but ``name`` under ``basic``."""
    if not isinstance(device, dict):
        return device
    basic = {k: device.pop(k) for k in list(device) if k != "name"}
    device["basic"] = basic
    return device


def _each(parent: object, key: str, fn: _Fn) -> None:
    if isinstance(parent, dict) and isinstance(parent.get(key), list):
        parent[key] = [fn(x) for x in parent[key]]


def _claim_spec(spec: object, fn: _Fn) -> None:
    if isinstance(spec, dict):
        _each(spec.get("devices"), "requests", fn)


def _claim(fn: _Fn) -> _Conv:
    def conv(obj: Obj) -> Obj:
        _claim_spec(obj.get("spec"), fn)
        return obj

    return conv


def _template(fn: _Fn) -> _Conv:
    def conv(obj: Obj) -> Obj:
        spec = obj.get("spec")
        if isinstance(spec, dict):
            _claim_spec(spec.get("spec"), fn)
        return obj

    return conv


def _drop_unset_node_access(spec: Obj) -> None:
    if spec.get("nodeName") in ("", None) and "nodeName" in spec:
        del spec["nodeName"]
    if spec.get("allNodes") in (False, None) and "allNodes" in spec:
        del spec["allNodes"]


def _slice(fn: _Fn) -> _Conv:
    def conv(obj: Obj) -> Obj:
        spec = obj.get("spec")
        if isinstance(spec, dict):
            _drop_unset_node_access(spec)
            _each(spec, "devices", fn)
        return obj

    return conv


# The inverse of upstream's ResourceNormalizationRules (pkg/apis/resource/validation).
_TO_V1BETA1: Final = (
    (re.compile(r"^((?:spec\.)?spec\.devices\.requests\[\d+\])\.exactly\."), r"\1."),
    (re.compile(r"^(spec\.devices\[\d+\])\.(?!name$)"), r"\1.basic."),
)
_DECLARATIVE: Final = frozenset({"FieldValueNotSupported"})
# Other errors inside a request that v1beta1's +k8s tags check (DeviceRequest selectors and
# derivedAttributes maxItems, DeviceToleration key format, DeviceDerivedAttribute name and
# expression); the handwritten rules beside them (the derived name's "must be referenced")
# keep the internal path.
_REQUEST_DECLARATIVE: Final = (
    ("FieldValueTooMany", re.compile(r"\.exactly\.(selectors|derivedAttributes)$")),
    ("FieldValueInvalid", re.compile(r"\.exactly\.tolerations\[\d+\]\.key$")),
    ("FieldValueInvalid", re.compile(r"\.exactly\.derivedAttributes\[\d+\]\.name$")),
    ("FieldValueRequired", re.compile(r"\.exactly\.derivedAttributes\[\d+\]\.(name|expression)$")),
)
_HANDWRITTEN_MSG: Final = "must be referenced by"


def _declarative(c: Cause) -> bool:
    """Whether upstream reports ``c`` from declarative validation (on the v1beta1 object)."""
    if c.reason in _DECLARATIVE:
        return True
    if _HANDWRITTEN_MSG in c.message:
        return False
    return any(c.reason == r and p.search(c.field) for r, p in _REQUEST_DECLARATIVE)


def declarative_paths(causes: list[Cause]) -> list[Cause]:
    """The causes of a v1beta1 write, the declaratively checked ones at v1beta1 paths."""
    out: list[Cause] = []
    for c in causes:
        field = c.field
        if _declarative(c):
            for pattern, repl in _TO_V1BETA1:
                field = pattern.sub(repl, field)
        out.append(c if field == c.field else dataclasses.replace(c, field=field))
    return out


def _identity(obj: Obj) -> Obj:
    return obj


register(GROUP, VERSION, "DeviceClass", to_storage=_identity, from_storage=_identity)
register(
    GROUP,
    VERSION,
    "ResourceClaim",
    to_storage=_claim(request_to_v1),
    from_storage=_claim(request_from_v1),
    causes=declarative_paths,
)
register(
    GROUP,
    VERSION,
    "ResourceClaimTemplate",
    to_storage=_template(request_to_v1),
    from_storage=_template(request_from_v1),
    causes=declarative_paths,
)
register(
    GROUP,
    VERSION,
    "ResourceSlice",
    to_storage=_slice(device_to_v1),
    from_storage=_slice(device_from_v1),
    causes=declarative_paths,
)
