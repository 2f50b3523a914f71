"""Versioned defaults of resource.k8s.io requests (``pkg/apis/resource/<version>/defaults.go``).

Upstream defaults while decoding, in the version the client sent:

* v1 and v1beta2: each ``ExactDeviceRequest`` and ``DeviceSubRequest`` gets allocationMode
  ``ExactCount`` when unset, then count 1 for ExactCount.
* v1beta1: the same on a flat ``DeviceRequest``, but only when it names a deviceClassName
  (a request with ``firstAvailable`` must keep both unset), and on its subrequests.
* every version: a DeviceToleration's operator is ``Equal`` (a declarative ``+default``),
  in requests and in a claim's allocation results.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from reference_impl.apiserver.conversion.scheme import register_defaulter

__all__: list[str] = []

Obj = dict[str, Any]
GROUP: Final = "resource.k8s.io"


def _mode_and_count(req: Obj) -> None:
    if req.get("allocationMode") in (None, ""):
        req["allocationMode"] = "ExactCount"
    if req["allocationMode"] == "ExactCount" and req.get("count") in (None, 0):
        req["count"] = 1


def _tolerations(req: Obj) -> None:
    tols = req.get("tolerations")
    for t in tols if isinstance(tols, list) else ():
        if isinstance(t, dict) and t.get("operator") in (None, ""):
            t["operator"] = "Equal"


def _exact(req: object) -> None:
    if isinstance(req, dict):
        _mode_and_count(req)
        _tolerations(req)


def _subrequests(req: Obj) -> None:
    subs = req.get("firstAvailable")
    for sub in subs if isinstance(subs, list) else ():
        _exact(sub)


def _v1_request(req: object) -> None:
    if isinstance(req, dict):
        _exact(req.get("exactly"))
        _subrequests(req)


def _v1beta1_request(req: object) -> None:
    if not isinstance(req, dict):
        return
    if req.get("deviceClassName"):
        _mode_and_count(req)
    _tolerations(req)
    _subrequests(req)


def _requests(spec: object, fn: Callable[[object], None]) -> None:
    devices = spec.get("devices") if isinstance(spec, dict) else None
    requests = devices.get("requests") if isinstance(devices, dict) else None
    for r in requests if isinstance(requests, list) else ():
        fn(r)


def _results(status: object) -> None:
    """The tolerations of ``status.allocation.devices.results`` (the same +default)."""
    alloc = status.get("allocation") if isinstance(status, dict) else None
    devices = alloc.get("devices") if isinstance(alloc, dict) else None
    results = devices.get("results") if isinstance(devices, dict) else None
    for r in results if isinstance(results, list) else ():
        if isinstance(r, dict):
            _tolerations(r)


def _claim(fn: Callable[[object], None]) -> Callable[[Obj], None]:
    def default(obj: Obj) -> None:
        _requests(obj.get("spec"), fn)
        _results(obj.get("status"))

    return default


def _template(fn: Callable[[object], None]) -> Callable[[Obj], None]:
    def default(obj: Obj) -> None:
        spec = obj.get("spec")
        _requests(spec.get("spec") if isinstance(spec, dict) else None, fn)

    return default


for _version, _fn in (("v1", _v1_request), ("v1beta2", _v1_request), ("v1beta1", _v1beta1_request)):
    register_defaulter(GROUP, _version, "ResourceClaim", _claim(_fn))
    register_defaulter(GROUP, _version, "ResourceClaimTemplate", _template(_fn))
