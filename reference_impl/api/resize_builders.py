"""Builders for in-place pod resize (``pods/<name>/resize``) manifests used by the suites."""

from __future__ import annotations

import copy
from typing import Any

__all__ = ["resized", "with_resize_policy"]

Obj = dict[str, Any]


def with_resize_policy(pod: Obj, **policies: str) -> Obj:
    """``pod`` with ``resizePolicy`` on its first container, e.g. ``cpu="NotRequired"``."""
    out = copy.deepcopy(pod)
    out["spec"]["containers"][0]["resizePolicy"] = [
        {"resourceName": name, "restartPolicy": policy} for name, policy in sorted(policies.items())
    ]
    return out


def resized(pod: Obj, container: str | None = None, **requests: str) -> Obj:
    """A copy of ``pod`` (as read) whose container (default: the first) requests ``requests``,
    with limits, if it had any, raised to match; the body for ``Target.resize``."""
    out = copy.deepcopy(pod)
    cs = out["spec"]["containers"]
    c = next(c for c in cs if c["name"] == container) if container else cs[0]
    res = c.setdefault("resources", {})
    res.setdefault("requests", {}).update({k.replace("_", "-"): v for k, v in requests.items()})
    if res.get("limits"):
        res["limits"].update({k: v for k, v in res["requests"].items() if k in res["limits"]})
    return out
