"""The kubelet's sysctl admit handler (pkg/kubelet/sysctl, upstream e2e "Sysctls should
not launch unsafe, but not explicitly enabled sysctls on the node").

A pod is admitted by the kubelet of the node it is bound to: this needs KUBELET (KWOK
admits everything). The clusters' kubelets run with no ``--allowed-unsafe-sysctls``. A
safe sysctl is not tested here: garhwal's real nodes run unprivileged, where the runtime
cannot set one, so such a pod would not start for reasons beside the admission.
"""

from __future__ import annotations

from typing import Any

import pytest

from fixtures import Capability, Target
from reference_impl.api import make_pod

pytestmark = [pytest.mark.conformance, pytest.mark.requires(Capability.KUBELET)]

Obj = dict[str, Any]


def _sysctl_pod(name: str, namespace: str, sysctl: str, value: str) -> Obj:
    pod = make_pod(name, namespace).restart_policy("Never").build()
    pod["spec"]["securityContext"] = {"sysctls": [{"name": sysctl, "value": value}]}
    return pod


def _status(target: Target, namespace: str, name: str) -> Obj:
    return dict(target.get("v1", "Pod", name, namespace).get("status") or {})


def test_an_unsafe_sysctl_not_allowlisted_is_rejected_by_the_kubelet(
    target: Target, namespace: str
) -> None:
    """Unsafe sysctl rejected at admission.

    A pod setting ``kernel.msgmax`` (namespaced, not safe, not allowed by the kubelet)
    MUST be accepted by the API server, then rejected by the kubelet: phase ``Failed``,
    reason ``SysctlForbidden`` and message
    ``Pod was rejected: forbidden sysctl: "kernel.msgmax" not allowlisted``.
    """
    target.apply(_sysctl_pod("sysctl-unsafe", namespace, "kernel.msgmax", "10000000"))
    target.wait_until(
        lambda: _status(target, namespace, "sysctl-unsafe").get("phase") == "Failed",
        timeout=60,
        what="sysctl-unsafe rejected",
    )
    st = _status(target, namespace, "sysctl-unsafe")
    assert st.get("reason") == "SysctlForbidden"
    assert st.get("message") == 'Pod was rejected: forbidden sysctl: "kernel.msgmax" not allowlisted'

