"""Upstream v1.37.2 pkg/kubelet/sysctl tests (allowlist_test.go, safe_sysctls_test.go,
util_test.go) and k8s.io/component-helpers/node/util/sysctl (namespace_test.go,
sysctl_test.go) against ``reference_impl.kubelet.sysctl``, plus the fake kubelet
rejecting a pod ``SysctlForbidden``."""

from __future__ import annotations

from typing import Any

import pytest
from kubelet_harness import KubeletHarness, make_harness

from reference_impl.api import make_node, make_pod
from reference_impl.kubelet import KubeletConfig
from reference_impl.kubelet.sysctl import (
    Allowlist,
    AllowlistError,
    namespace_of,
    normalize_name,
    safe_sysctl_allowlist,
)

Obj = dict[str, Any]
KERNEL = "6.8.0-45-generic"  # the node's kernel: every safe sysctl is namespaced
BASE_SAFE = [
    "kernel.shm_rmid_forced",
    "net.ipv4.ip_local_port_range",
    "net.ipv4.tcp_syncookies",
    "net.ipv4.ping_group_range",
    "net.ipv4.ip_unprivileged_port_start",
]


# -- TestNewAllowlist ----------------------------------------------------------------------

@pytest.mark.parametrize(
    ("extra", "err"),
    [
        pytest.param(["kernel.msg*", "kernel.sem"], False, id="kernel.msg* kernel.sem"),
        pytest.param(["kernel/msg*", "kernel/sem"], False, id="kernel/msg* kernel/sem"),
        pytest.param([" kernel.msg*"], True, id="leading space"),
        pytest.param(["kernel.msg* "], True, id="trailing space"),
        pytest.param(["net.-"], True, id="net.-"),
        pytest.param(["net.*.foo"], True, id="net.*.foo"),
        pytest.param(["net.*/foo"], True, id="net.*/foo"),
        pytest.param(["foo"], True, id="foo"),
        pytest.param(["foo*"], True, id="foo*"),
    ],
)
def test_new_allowlist(extra: list[str], err: bool) -> None:
    patterns = safe_sysctl_allowlist(KERNEL) + extra
    if err:
        with pytest.raises(AllowlistError):
            Allowlist.of(patterns)
    else:
        Allowlist.of(patterns)


def test_new_allowlist_error_messages() -> None:
    """NewAllowlist's two messages (the pattern regex, the unknown namespace)."""
    with pytest.raises(AllowlistError) as bad:
        Allowlist.of(["net.-"])
    assert str(bad.value) == (
        'sysctl "net.-" must have at most 253 characters and match regex '
        r"([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\./])*([a-z0-9][-_a-z0-9]*)?[a-z0-9*]"
    )
    with pytest.raises(AllowlistError) as unknown:
        Allowlist.of(["foo*"])
    assert str(unknown.value) == 'the sysctls "foo" are not known to be namespaced'


# -- TestAllowlist -------------------------------------------------------------------------

def _allowlist() -> Allowlist:
    return Allowlist.of(safe_sysctl_allowlist(KERNEL) + ["kernel.msg*", "kernel.sem", "net.b.*", "user.*"])


def _pod(name: str, host_net: bool, host_ipc: bool, host_users: bool) -> Obj:
    return {
        "spec": {
            "hostNetwork": host_net,
            "hostIPC": host_ipc,
            "hostUsers": host_users,
            "securityContext": {"sysctls": [{"name": name, "value": name}]},
        }
    }


@pytest.mark.parametrize(
    ("sysctl", "host_users"),
    [
        pytest.param("kernel.shm_rmid_forced", False, id="kernel.shm_rmid_forced"),
        pytest.param("kernel/shm_rmid_forced", False, id="kernel/shm_rmid_forced"),
        pytest.param("net.ipv4.ip_local_port_range", False, id="net.ipv4.ip_local_port_range"),
        pytest.param("kernel.msgmax", False, id="kernel.msgmax"),
        pytest.param("kernel.sem", False, id="kernel.sem"),
        pytest.param("kernel/sem", False, id="kernel/sem"),
        pytest.param("user.max_user_namespaces", False, id="user.max_user_namespaces"),
    ],
)
def test_allowlist_valid(sysctl: str, host_users: bool) -> None:
    w = _allowlist()
    assert w.validate(sysctl, False, False, host_users) is None
    assert w.admit(_pod(sysctl, False, False, host_users)).admit


@pytest.mark.parametrize(
    ("sysctl", "host_net", "host_ipc", "host_users", "error"),
    [
        pytest.param("kernel.shm_rmid_forced", False, True, False,
                     '"kernel.shm_rmid_forced" not allowed with host IPC enabled',
                     id="kernel.shm_rmid_forced hostIPC"),
        pytest.param("net.ipv4.ip_local_port_range", True, False, False,
                     '"net.ipv4.ip_local_port_range" not allowed with host Net enabled',
                     id="net.ipv4.ip_local_port_range hostNet"),
        pytest.param("user.max_user_namespaces", False, False, True,
                     '"user.max_user_namespaces" not allowed with host User enabled',
                     id="user.max_user_namespaces hostUsers"),
        pytest.param("foo", False, False, False, '"foo" not allowlisted', id="foo"),
        pytest.param("net.a.b.c", False, False, False, '"net.a.b.c" not allowlisted', id="net.a.b.c"),
        pytest.param("net.ipv4.ip_local_port_range.a.b.c", False, False, False,
                     '"net.ipv4.ip_local_port_range.a.b.c" not allowlisted',
                     id="net.ipv4.ip_local_port_range.a.b.c"),
        pytest.param("kernel.msgmax", False, True, False,
                     '"kernel.msgmax" not allowed with host IPC enabled', id="kernel.msgmax hostIPC"),
        pytest.param("kernel.sem", False, True, False,
                     '"kernel.sem" not allowed with host IPC enabled', id="kernel.sem hostIPC"),
        pytest.param("net.b.c", True, False, False,
                     '"net.b.c" not allowed with host Net enabled', id="net.b.c hostNet"),
    ],
)  # fmt: skip
def test_allowlist_invalid(sysctl: str, host_net: bool, host_ipc: bool, host_users: bool, error: str) -> None:
    w = _allowlist()
    assert w.validate(sysctl, host_net, host_ipc, host_users) == error
    result = w.admit(_pod(sysctl, host_net, host_ipc, host_users))
    assert (result.admit, result.reason, result.message) == (
        False, "SysctlForbidden", f"forbidden sysctl: {error}",
    )  # fmt: skip


def test_allowlist_no_sysctls_is_admitted() -> None:
    pod = _pod("x", False, False, False)
    pod["spec"]["securityContext"]["sysctls"] = []
    assert _allowlist().admit(pod).admit


def test_allowlist_host_users_unset_means_host_users() -> None:
    """hostUsers nil counts as true: a user.* sysctl is then refused."""
    pod = _pod("user.max_user_namespaces", False, False, False)
    del pod["spec"]["hostUsers"]
    assert _allowlist().admit(pod).reason == "SysctlForbidden"


# -- Test_getSafeSysctlAllowlist ------------------------------------------------------------

@pytest.mark.parametrize(
    ("kernel", "want"),
    [
        pytest.param(None, BASE_SAFE,
                     id="failed to get kernelVersion, only return safeSysctls with no kernelVersion limit"),
        pytest.param("3.18.0-957.27.2.el7.x86_64", [*BASE_SAFE, "net.ipv4.ip_local_reserved_ports"],
                     id="kernelVersion is 3.18.0, return safeSysctls with no kernelVersion limit and "
                        "net.ipv4.ip_local_reserved_ports"),
        pytest.param("5.15.0-75-generic", [
            *BASE_SAFE,
            "net.ipv4.ip_local_reserved_ports",
            "net.ipv4.tcp_keepalive_time",
            "net.ipv4.tcp_fin_timeout",
            "net.ipv4.tcp_keepalive_intvl",
            "net.ipv4.tcp_keepalive_probes",
            "net.ipv4.tcp_rmem",
            "net.ipv4.tcp_wmem",
            "net.ipv4.tcp_slow_start_after_idle",
            "net.ipv4.tcp_notsent_lowat",
        ], id="kernelVersion is 5.15.0, return safeSysctls with no kernelVersion limit and kernelVersion "
              "below 5.15.0"),
    ],
)  # fmt: skip
def test_get_safe_sysctl_allowlist(kernel: str | None, want: list[str]) -> None:
    assert safe_sysctl_allowlist(kernel) == want


# -- NormalizeName, namespaceOf -------------------------------------------------------------

@pytest.mark.parametrize(
    ("name", "want"),
    [
        pytest.param("kernel.shm_rmid_forced", "kernel.shm_rmid_forced", id="kernel.shm_rmid_forced"),
        pytest.param("kernel/shm_rmid_forced", "kernel.shm_rmid_forced", id="kernel/shm_rmid_forced"),
        pytest.param("net.ipv4.conf.eno2/100.rp_filter", "net.ipv4.conf.eno2/100.rp_filter",
                     id="net.ipv4.conf.eno2/100.rp_filter"),
        pytest.param("net/ipv4/conf/eno2.100/rp_filter", "net.ipv4.conf.eno2/100.rp_filter",
                     id="net/ipv4/conf/eno2.100/rp_filter"),
        pytest.param("net/ipv4/ip_local_port_range", "net.ipv4.ip_local_port_range",
                     id="net/ipv4/ip_local_port_range"),
        pytest.param("kernel/msgmax", "kernel.msgmax", id="kernel/msgmax"),
        pytest.param("kernel/sem", "kernel.sem", id="kernel/sem"),
    ],
)  # fmt: skip
def test_convert_sysctl_variable_to_dots_separator(name: str, want: str) -> None:
    """TestConvertSysctlVariableToDotsSeparator."""
    assert normalize_name(name) == want


def test_convert_pod_sysctls_variable_to_dots_separator() -> None:
    """TestConvertPodSysctlsVariableToDotsSeparator: each name normalized."""
    names = ["kernel.msgmax", "kernel.shm_rmid_forced", "net.ipv4.conf.eno2/100.rp_filter",
             "net/ipv4/ip_local_port_range"]  # fmt: skip
    assert [normalize_name(n) for n in names] == [
        "kernel.msgmax", "kernel.shm_rmid_forced", "net.ipv4.conf.eno2/100.rp_filter",
        "net.ipv4.ip_local_port_range",
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("name", "want"),
    [
        pytest.param("kernel.shm_rmid_forced", "IPC", id="kernel.shm_rmid_forced"),
        pytest.param("net.a.b.c", "Net", id="net.a.b.c"),
        pytest.param("fs.mqueue.a.b.c", "IPC", id="fs.mqueue.a.b.c"),
        pytest.param("kernel.domainname", "UTS", id="kernel.domainname"),
        pytest.param("user.max_user_namespaces", "User", id="user.max_user_namespaces"),
        pytest.param("foo", "", id="foo"),
    ],
)
def test_namespaced_of(name: str, want: str) -> None:
    """TestNamespacedOf."""
    assert namespace_of(name) == want


# -- the fake kubelet ----------------------------------------------------------------------

def _sysctl_pod(name: str, sysctl: str) -> Obj:
    pod = make_pod(name, "default").node("n1").build()
    pod["spec"]["securityContext"] = {"sysctls": [{"name": sysctl, "value": "1"}]}
    return pod


def _status(k: KubeletHarness, name: str) -> Obj:
    p = k.pod(name)
    assert p is not None
    return dict(p.get("status") or {})


def test_kubelet_rejects_an_unsafe_sysctl_and_admits_a_safe_one(k: KubeletHarness) -> None:
    k.create(make_node("n1").build())
    k.create(_sysctl_pod("unsafe", "kernel.msgmax"), _sysctl_pod("safe", "net.ipv4.tcp_syncookies"))
    st = _status(k, "unsafe")
    assert (st["phase"], st["reason"], st["message"]) == (
        "Failed", "SysctlForbidden", 'Pod was rejected: forbidden sysctl: "kernel.msgmax" not allowlisted',
    )  # fmt: skip
    k.wait(lambda: _status(k, "safe").get("phase") == "Running")


def test_kubelet_allowed_unsafe_sysctls() -> None:
    """--allowed-unsafe-sysctls extends the allowlist (a kernel.msg* prefix)."""
    k = make_harness(KubeletConfig(allowed_unsafe_sysctls=("kernel.msg*",)))
    k.create(make_node("n1").build())
    k.create(_sysctl_pod("msg", "kernel.msgmax"))
    k.wait(lambda: _status(k, "msg").get("phase") == "Running")
