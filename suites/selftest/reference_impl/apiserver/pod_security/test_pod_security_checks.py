"""The Pod Security Standards checks (``k8s.io/pod-security-admission/policy``), after
upstream's ``check_*_test.go`` tables: each check's reason and detail text."""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.apiserver.admission.pod_security import (
    check_allow_privilege_escalation as ape,
)
from reference_impl.apiserver.admission.pod_security import (
    check_apparmor,
    check_capabilities,
    check_host_namespaces,
    check_host_path_volumes,
    check_host_ports,
    check_host_probes,
    check_privileged,
    check_proc_mount,
    check_restricted_volumes,
    check_run_as_non_root,
    check_run_as_user,
    check_seccomp,
    check_selinux,
    check_sysctls,
    check_windows_host_process,
)
from reference_impl.apiserver.admission.pod_security.checks import CheckFn, CheckResult

Obj = dict[str, Any]


def _c(name: str, sc: Obj | None = None, **extra: Any) -> Obj:
    c: Obj = {"name": name, **extra}
    if sc is not None:
        c["securityContext"] = sc
    return c


def _spec(*containers: Obj, **spec: Any) -> Obj:
    return {"containers": list(containers), **spec}


def _refused(fn: CheckFn, spec: Obj, meta: Obj | None = None) -> tuple[str, str]:
    r = fn(meta or {}, spec)
    assert not r.allowed
    return r.reason, r.detail


def _allowed(fn: CheckFn, spec: Obj, meta: Obj | None = None) -> bool:
    return fn(meta or {}, spec) == CheckResult(True)


def test_privileged() -> None:
    spec = _spec(_c("a"), _c("b", {}), _c("c", {"privileged": False}),
                 _c("d", {"privileged": True}), _c("e", {"privileged": True}))  # fmt: skip
    assert _refused(check_privileged.privileged_1_0, spec) == (
        "privileged", 'containers "d", "e" must not set securityContext.privileged=true')  # fmt: skip
    one = _spec(_c("a", {"privileged": True}))
    assert _refused(check_privileged.privileged_1_0, one)[1] == (
        'container "a" must not set securityContext.privileged=true')  # fmt: skip


def test_capabilities_baseline() -> None:
    spec = _spec(_c("a", {"capabilities": {"add": ["FOO", "BAR"]}}),
                 _c("b", {"capabilities": {"add": ["BAR", "BAZ"]}}),
                 _c("c", {"capabilities": {"add": ["NET_BIND_SERVICE", "CHOWN"]}}))  # fmt: skip
    assert _refused(check_capabilities.capabilities_baseline_1_0, spec) == (
        "non-default capabilities",
        'containers "a", "b" must not include "BAR", "BAZ", "FOO" in securityContext.capabilities.add')  # fmt: skip


def test_capabilities_restricted() -> None:
    spec = _spec(_c("a", {"capabilities": {"add": ["FOO", "BAR"]}}),
                 _c("b", {"capabilities": {"add": ["BAR", "BAZ"]}}),
                 _c("c", {"capabilities": {"add": ["NET_BIND_SERVICE", "CHOWN"], "drop": ["ALL", "FOO"]}}))  # fmt: skip
    assert _refused(check_capabilities.capabilities_restricted_1_25, spec) == (
        "unrestricted capabilities",
        'containers "a", "b" must set securityContext.capabilities.drop=["ALL"]; containers "a", "b", "c" '
        'must not include "BAR", "BAZ", "CHOWN", "FOO" in securityContext.capabilities.add')  # fmt: skip
    assert _allowed(
        check_capabilities.capabilities_restricted_1_25, _spec(_c("a"), os={"name": "windows"})
    )
    assert _refused(
        check_capabilities.capabilities_restricted_1_22, _spec(_c("a"), os={"name": "windows"})
    )
    assert _refused(check_capabilities.capabilities_restricted_1_25, _spec(_c("a"), os={"name": "linux"}))[1] == (
        'container "a" must set securityContext.capabilities.drop=["ALL"]')  # fmt: skip


def test_host_namespaces() -> None:
    fn = check_host_namespaces.host_namespaces_1_0
    assert _refused(fn, _spec(hostNetwork=True)) == ("host namespaces", "hostNetwork=true")
    assert _refused(fn, _spec(hostIPC=True, hostPID=True, hostNetwork=True))[1] == (
        "hostNetwork=true, hostPID=true, hostIPC=true")  # fmt: skip
    assert _allowed(fn, _spec(hostNetwork=False))


def test_host_path_volumes() -> None:
    spec = _spec(volumes=[{"name": "a", "emptyDir": {}}, {"name": "b", "hostPath": {"path": "/"}},
                          {"name": "c", "hostPath": {"path": "/"}}])  # fmt: skip
    assert _refused(check_host_path_volumes.host_path_volumes_1_0, spec) == (
        "hostPath volumes",
        'volumes "b", "c"',
    )
    one = _spec(volumes=[{"name": "b", "hostPath": {"path": "/"}}])
    assert _refused(check_host_path_volumes.host_path_volumes_1_0, one)[1] == 'volume "b"'


def test_host_ports() -> None:
    fn = check_host_ports.host_ports_1_0
    one = _spec(
        _c("a", ports=[{"hostPort": 0}]), _c("b", ports=[{"hostPort": 0}, {"hostPort": 20}])
    )
    assert _refused(fn, one) == ("hostPort", 'container "b" uses hostPort 20')
    many = _spec(_c("a", ports=[{"hostPort": 0}]),
                 _c("b", ports=[{"hostPort": 0}, {"hostPort": 10}, {"hostPort": 20}]),
                 _c("c", ports=[{"hostPort": 0}, {"hostPort": 10}, {"hostPort": 30}]))  # fmt: skip
    assert _refused(fn, many)[1] == 'containers "b", "c" use hostPorts 10, 20, 30'
    # Sorted as strings, as upstream's string set lists them.
    assert _refused(fn, _spec(_c("a", ports=[{"hostPort": 9}, {"hostPort": 10}])))[1] == (
        'container "a" uses hostPorts 10, 9')  # fmt: skip


def test_host_probes_and_lifecycle() -> None:
    fn = check_host_probes.host_probes_and_host_lifecycle_1_34
    probe = lambda kind, host: {kind: {"port": 80, "host": host}}  # noqa: E731
    local = _spec(_c("a", livenessProbe=probe("httpGet", "localhost"), readinessProbe=probe("tcpSocket", "127.0.0.1"),
                     startupProbe=probe("httpGet", "::1")))  # fmt: skip
    assert _refused(fn, local) == (
        "probe or lifecycle host", 'container "a" uses probe or lifecycle hosts "127.0.0.1", "::1", "localhost"')  # fmt: skip
    life = _spec(_c("d", lifecycle={"postStart": probe("tcpSocket", "invalid.host")}))
    assert _refused(fn, life)[1] == 'container "d" uses probe or lifecycle host "invalid.host"'
    multi = _spec(_c("invalid2", livenessProbe=probe("httpGet", "b.com")),
                  _c("invalid1", lifecycle={"preStop": probe("httpGet", "a.com")}), _c("ok"))  # fmt: skip
    assert (
        _refused(fn, multi)[1]
        == 'containers "invalid1", "invalid2" use probe or lifecycle hosts "a.com", "b.com"'
    )
    init = {
        "containers": [],
        "initContainers": [_c("init", livenessProbe=probe("httpGet", "invalid.init.host"))],
    }
    assert (
        _refused(fn, init)[1] == 'container "init" uses probe or lifecycle host "invalid.init.host"'
    )
    assert _allowed(fn, _spec(_c("a", livenessProbe=probe("httpGet", ""))))


def test_proc_mount() -> None:
    spec = _spec(_c("a"), _c("b", {}), _c("c", {"procMount": "Default"}),
                 _c("d", {"procMount": "Unmasked"}), _c("e", {"procMount": "other"}))  # fmt: skip
    detail = 'containers "d", "e" must not set securityContext.procMount to "Unmasked", "other"'
    assert _refused(check_proc_mount.proc_mount_1_0, spec) == ("procMount", detail)
    userns = {**spec, "hostUsers": False}
    assert _allowed(check_proc_mount.proc_mount_1_35_baseline, userns)
    # The restricted check (procMount_1_0 from v1.35) ignores hostUsers.
    assert _refused(check_proc_mount.proc_mount_1_0, userns)[1] == detail


def test_seccomp_baseline_annotations() -> None:
    fn = check_seccomp.seccomp_baseline_1_0
    pod = {"annotations": {"seccomp.security.alpha.kubernetes.io/pod": "unconfined"}}
    assert _refused(fn, _spec(), pod) == (
        "seccompProfile", 'forbidden annotation seccomp.security.alpha.kubernetes.io/pod="unconfined"')  # fmt: skip
    both = {"annotations": {
        "seccomp.security.alpha.kubernetes.io/pod": "unconfined",
        "container.seccomp.security.alpha.kubernetes.io/a": "unconfined",
        "container.seccomp.security.alpha.kubernetes.io/b": "unknown",
        "container.seccomp.security.alpha.kubernetes.io/c": "localhost/x",
        "container.seccomp.security.alpha.kubernetes.io/d": "docker/default",
        "container.seccomp.security.alpha.kubernetes.io/e": "runtime/default",
    }}  # fmt: skip
    spec = _spec(*(_c(n) for n in "abcde"))
    assert _refused(fn, spec, both)[1] == (
        'forbidden annotations container.seccomp.security.alpha.kubernetes.io/a="unconfined", '
        'container.seccomp.security.alpha.kubernetes.io/b="unknown", '
        'seccomp.security.alpha.kubernetes.io/pod="unconfined"')  # fmt: skip


def test_seccomp_baseline_fields() -> None:
    fn = check_seccomp.seccomp_baseline_1_19
    unconfined = {"seccompProfile": {"type": "Unconfined"}}
    spec = _spec(_c("a"), _c("b", {"seccompProfile": {"type": "RuntimeDefault"}}),
                 _c("c", unconfined), _c("d", unconfined), securityContext=unconfined)  # fmt: skip
    assert _refused(fn, spec) == (
        "seccompProfile", 'pod and containers "c", "d" must not set securityContext.seccompProfile.type to "Unconfined"')  # fmt: skip
    assert _allowed(fn, _spec(_c("a")))


def test_seccomp_restricted() -> None:
    fn = check_seccomp.seccomp_restricted_1_25
    assert _refused(fn, _spec(_c("a"))) == (
        "seccompProfile", 'pod or container "a" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"')  # fmt: skip
    assert _allowed(fn, _spec(_c("a"), os={"name": "windows"}))
    assert not check_seccomp.seccomp_restricted_1_19(
        {}, _spec(_c("a"), os={"name": "windows"})
    ).allowed
    pod_bad = _spec(_c("a"), securityContext={"seccompProfile": {"type": "Unconfined"}})
    assert (
        _refused(fn, pod_bad)[1]
        == 'pod must not set securityContext.seccompProfile.type to "Unconfined"'
    )
    unconfined = {"seccompProfile": {"type": "Unconfined"}}
    containers = _spec(_c("a"), _c("b"), _c("c", unconfined), _c("d", unconfined),
                       securityContext={"seccompProfile": {"type": "RuntimeDefault"}})  # fmt: skip
    assert _refused(fn, containers)[1] == (
        'containers "c", "d" must not set securityContext.seccompProfile.type to "Unconfined"')  # fmt: skip
    fallthrough = _spec(_c("a"), _c("b"), _c("c", {"seccompProfile": {"type": "Localhost"}}))
    assert _refused(fn, fallthrough)[1] == (
        'pod or containers "a", "b" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"')  # fmt: skip


def _sel(**opts: str) -> Obj:
    return {"seLinuxOptions": opts}


def test_selinux_options() -> None:
    fn = check_selinux.selinux_options_1_31
    containers = [_c("a", _sel(type="container_t")), _c("b", _sel(type="container_init_t")),
                  _c("c", _sel(type="container_kvm_t")), _c("d", _sel(type="container_engine_t")),
                  _c("e", _sel(type="bar")), _c("f", _sel(user="bar")), _c("g", _sel(role="baz"))]  # fmt: skip
    bad_pod = _sel(type="foo", user="bar", role="baz")
    assert _refused(fn, _spec(*containers, securityContext=bad_pod)) == (
        "seLinuxOptions",
        'pod and containers "e", "f", "g" set forbidden securityContext.seLinuxOptions: '
        'types "bar", "foo"; user may not be set; role may not be set')  # fmt: skip
    assert _refused(fn, _spec(*containers[:4], securityContext=bad_pod))[1] == (
        'pod set forbidden securityContext.seLinuxOptions: type "foo"; user may not be set; role may not be set')  # fmt: skip
    assert _refused(fn, _spec(*containers, securityContext=_sel()))[1] == (
        'containers "e", "f", "g" set forbidden securityContext.seLinuxOptions: '
        'type "bar"; user may not be set; role may not be set')  # fmt: skip
    assert _refused(fn, _spec(securityContext=_sel(role="bad")))[1] == (
        "pod set forbidden securityContext.seLinuxOptions: role may not be set")  # fmt: skip
    # container_engine_t is allowed only from v1.31.
    assert _refused(check_selinux.selinux_options_1_0, _spec(containers[3]))[1] == (
        'container "d" set forbidden securityContext.seLinuxOptions: type "container_engine_t"')  # fmt: skip


@pytest.mark.parametrize(
    ("name", "first"),
    [("net.ipv4.ip_local_reserved_ports", 27), ("net.ipv4.tcp_keepalive_time", 29),
     ("net.ipv4.tcp_fin_timeout", 29), ("net.ipv4.tcp_keepalive_intvl", 29),
     ("net.ipv4.tcp_keepalive_probes", 29), ("net.ipv4.tcp_rmem", 32), ("net.ipv4.tcp_wmem", 32),
     ("net.ipv4.tcp_slow_start_after_idle", 37), ("net.ipv4.tcp_notsent_lowat", 37)],
)  # fmt: skip
def test_sysctls_by_version(name: str, first: int) -> None:
    spec = _spec(securityContext={"sysctls": [{"name": name, "value": "1"}]})
    for vc in check_sysctls.CHECK.versions:
        result = vc.check({}, spec)
        assert result.allowed is (vc.minimum.minor >= first), vc.minimum
        if not result.allowed:
            assert (result.reason, result.detail) == ("forbidden sysctls", name)


def test_sysctls_forbidden() -> None:
    spec = _spec(
        securityContext={
            "sysctls": [{"name": "a"}, {"name": "kernel.shm_rmid_forced"}, {"name": "b"}]
        }
    )
    assert _refused(check_sysctls.CHECK.versions[-1].check, spec) == ("forbidden sysctls", "a, b")


def test_apparmor() -> None:
    fn = check_apparmor.apparmor_profile_1_0
    unconfined = {"appArmorProfile": {"type": "Unconfined"}}
    assert _refused(fn, _spec(securityContext=unconfined)) == (
        "forbidden AppArmor profile", 'pod must not set AppArmor profile type to "Unconfined"')  # fmt: skip
    spec = {"containers": [_c("foo", unconfined)], "initContainers": [_c("bar", {"appArmorProfile": {"type": "Localhost"}})],
            "securityContext": {"appArmorProfile": {"type": "RuntimeDefault"}}}  # fmt: skip
    assert (
        _refused(fn, spec)[1]
        == 'container "foo" must not set AppArmor profile type to "Unconfined"'
    )
    prefix = "container.apparmor.security.beta.kubernetes.io/"
    meta = {"annotations": {prefix: "bogus", prefix + "a": "", prefix + "b": "runtime/default",
                            prefix + "c": "localhost/", prefix + "d": "localhost/foo",
                            prefix + "e": "unconfined", prefix + "f": "unknown", "other": "x"}}  # fmt: skip
    assert _refused(fn, _spec(), meta) == (
        "forbidden AppArmor profiles",
        f'annotations must not set AppArmor profile type to "{prefix}="bogus"", '
        f'"{prefix}e="unconfined"", "{prefix}f="unknown""')  # fmt: skip


def test_windows_host_process() -> None:
    fn = check_windows_host_process.windows_host_process_1_0
    hp = {"windowsOptions": {"hostProcess": True}}
    spec = _spec(_c("a"), _c("b", {"windowsOptions": {}}), _c("c", {"windowsOptions": {"hostProcess": False}}),
                 _c("d", hp), _c("e", hp), securityContext=hp)  # fmt: skip
    assert _refused(fn, spec) == (
        "hostProcess", 'pod and containers "d", "e" must not set securityContext.windowsOptions.hostProcess=true')  # fmt: skip


def test_restricted_volumes() -> None:
    allowed = [
        {"name": f"a{i}", s: {}} for i, s in enumerate(check_restricted_volumes.ALLOWED_SOURCES, 1)
    ]
    bad = [
        {"name": f"b{i}", s: {}}
        for i, s in enumerate(check_restricted_volumes.RESTRICTED_SOURCES, 1)
    ]
    spec = _spec(volumes=[*allowed, *bad, {"name": "c1"}])
    names = ", ".join(f'"b{i}"' for i in range(1, 22))
    types = ('"awsElasticBlockStore", "azureDisk", "azureFile", "cephfs", "cinder", "fc", "flexVolume", "flocker", '
             '"gcePersistentDisk", "gitRepo", "glusterfs", "hostPath", "iscsi", "nfs", "photonPersistentDisk", '
             '"portworxVolume", "quobyte", "rbd", "scaleIO", "storageos", "unknown", "vsphereVolume"')  # fmt: skip
    assert _refused(check_restricted_volumes.restricted_volumes_1_0, spec) == (
        "restricted volume types", f'volumes {names}, "c1" use restricted volume types {types}')  # fmt: skip
    one = _spec(volumes=[{"name": "h", "hostPath": {"path": "/"}}])
    assert _refused(check_restricted_volumes.restricted_volumes_1_0, one)[1] == (
        'volume "h" uses restricted volume type "hostPath"')  # fmt: skip


def test_allow_privilege_escalation() -> None:
    spec = _spec(_c("a"), _c("b", {}), _c("c", {"allowPrivilegeEscalation": False}),
                 _c("d", {"allowPrivilegeEscalation": True}))  # fmt: skip
    assert _refused(ape.allow_privilege_escalation_1_25, spec) == (
        "allowPrivilegeEscalation != false", 'containers "a", "b", "d" must set securityContext.allowPrivilegeEscalation=false')  # fmt: skip
    assert _allowed(ape.allow_privilege_escalation_1_25, {**spec, "os": {"name": "windows"}})
    assert not ape.allow_privilege_escalation_1_8({}, {**spec, "os": {"name": "windows"}}).allowed


def test_run_as_non_root() -> None:
    fn = check_run_as_non_root.run_as_non_root_1_35
    assert _refused(fn, _spec(_c("a"))) == (
        "runAsNonRoot != true",
        'pod or container "a" must set securityContext.runAsNonRoot=true',
    )
    assert _refused(fn, _spec(_c("a"), securityContext={"runAsNonRoot": False}))[1] == (
        "pod must not set securityContext.runAsNonRoot=false")  # fmt: skip
    no = {"runAsNonRoot": False}
    containers = _spec(
        _c("a"), _c("b", {}), _c("c", no), _c("d", no), securityContext={"runAsNonRoot": True}
    )
    assert (
        _refused(fn, containers)[1]
        == 'containers "c", "d" must not set securityContext.runAsNonRoot=false'
    )
    fallthrough = _spec(_c("a"), _c("b", {}), _c("c", {"runAsNonRoot": True}))
    assert (
        _refused(fn, fallthrough)[1]
        == 'pod or containers "a", "b" must set securityContext.runAsNonRoot=true'
    )
    assert _allowed(fn, {**fallthrough, "hostUsers": False})
    assert not check_run_as_non_root.run_as_non_root_1_0(
        {}, {**fallthrough, "hostUsers": False}
    ).allowed


def test_run_as_user() -> None:
    fn = check_run_as_user.run_as_user_1_35
    spec = _spec(_c("a"), _c("b", {"runAsUser": 1}), _c("c", {"runAsUser": 0}), _c("d", {"runAsUser": 0}),
                 securityContext={"runAsUser": 0})  # fmt: skip
    assert _refused(fn, spec) == (
        "runAsUser=0",
        'pod and containers "c", "d" must not set runAsUser=0',
    )
    assert _allowed(fn, {**spec, "hostUsers": False})
    assert _allowed(fn, _spec(_c("a", {"runAsUser": 1000}), securityContext={"runAsUser": 1}))


def test_ephemeral_and_init_containers_are_visited_in_order() -> None:
    spec = {"initContainers": [_c("i", {"privileged": True})], "containers": [_c("c", {"privileged": True})],
            "ephemeralContainers": [_c("e", {"privileged": True})]}  # fmt: skip
    assert _refused(check_privileged.privileged_1_0, spec)[1] == (
        'containers "i", "c", "e" must not set securityContext.privileged=true')  # fmt: skip
