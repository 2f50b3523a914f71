"""Versioned defaults of core/v1 statuses (``pkg/apis/core/v1/defaults.go``).

Upstream defaults every decoded body, status included, so these reach /status writes (a
create resets a pod's status, and a namespace's is set anyway):

* ``SetDefaults_PodStatus``: podIP and podIPs kept in step, podIP winning a mismatch (for
  older kubelets);
* ``SetDefaults_NamespaceStatus``: an empty phase is Active.
"""

from __future__ import annotations

from typing import Any

from reference_impl.apiserver.conversion.scheme import register_defaulter

__all__: list[str] = []

Obj = dict[str, Any]


def _pod_status(pod: Obj) -> None:
    status = pod.get("status")
    if not isinstance(status, dict):
        return
    ip, ips = status.get("podIP") or "", status.get("podIPs") or []
    first = ips[0].get("ip") if isinstance(ips, list) and ips and isinstance(ips[0], dict) else None
    if ip and (not ips or first != ip):
        status["podIPs"] = [{"ip": ip}]
    elif not ip and isinstance(first, str):
        status["podIP"] = first


def _namespace_status(ns: Obj) -> None:
    status = ns.setdefault("status", {})
    if isinstance(status, dict) and not status.get("phase"):
        status["phase"] = "Active"


register_defaulter("", "v1", "Pod", _pod_status)
register_defaulter("", "v1", "Namespace", _namespace_status)
