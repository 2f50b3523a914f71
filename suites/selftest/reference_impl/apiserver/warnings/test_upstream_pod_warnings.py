"""``pkg/api/pod/warnings_test.go`` ``TestWarnings``: each row runs as upstream's
``podspec_`` (GetWarningsForPodTemplate, nil path) and ``pod_`` (GetWarningsForPod)
subtests, which both reach ``warningsForPodSpecAndMeta`` with a nil path; compared as
sorted lists (upstream's ``cmpopts.SortSlices``). Rows are v1 dicts of upstream's structs."""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.apiserver.warnings.pod import pod_spec_warnings, pod_template_warnings

Obj = dict[str, Any]
RES = {"cpu": "100m", "memory": "4m", "ephemeral-storage": "4m"}
DEPR_ARCH = 'deprecated since v1.14; use "kubernetes.io/arch" instead'
DEPR_OS = 'deprecated since v1.14; use "kubernetes.io/os" instead'
DEPR_REGION = 'deprecated since v1.17; use "topology.kubernetes.io/region" instead'
DEPR_ZONE = 'deprecated since v1.17; use "topology.kubernetes.io/zone" instead'
DEPR_TYPE = 'deprecated since v1.17; use "node.kubernetes.io/instance-type" instead'
OLD_KEYS = ["beta.kubernetes.io/arch", "beta.kubernetes.io/os", "failure-domain.beta.kubernetes.io/region",
            "failure-domain.beta.kubernetes.io/zone", "beta.kubernetes.io/instance-type"]  # fmt: skip
OLD_MSGS = [DEPR_ARCH, DEPR_OS, DEPR_REGION, DEPR_ZONE, DEPR_TYPE]
NULL_SEL = "a null labelSelector results in matching no pod"
HIDES = 'hides previous definition of "{}", which may be dropped when using apply'
LABEL_MSG = ("-1 is invalid, a valid label must be an empty string or consist of alphanumeric "
             "characters, '-', '_' or '.', and must start and end with an alphanumeric character "
             "(e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is "
             "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')")  # fmt: skip


def T(meta: Obj | None = None, **spec: Any) -> Obj:
    return {"metadata": meta or {}, "spec": spec}


def vol(name: str, **source: Any) -> Obj:
    return {"name": name, **source}


def items(*paths: str) -> list[Obj]:
    return [{"key": f"k{i}", "path": p} for i, p in enumerate(paths)]


def dapi(*paths: str) -> Obj:
    return {"items": [{"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.name"}, "path": p}
                      for p in paths]}  # fmt: skip


def proj(*sources: Obj) -> Obj:
    return {"projected": {"sources": list(sources)}}


def P(cp: int, proto: str = "", hp: int = 0, hip: str = "", name: str = "") -> Obj:
    port: Obj = {"containerPort": cp}
    for k, v in (("protocol", proto), ("hostPort", hp), ("hostIP", hip), ("name", name)):
        if v:
            port[k] = v
    return port


def C(name: str = "", *ports: Obj, **rest: Any) -> Obj:
    return {"name": name, "ports": list(ports), **rest}


def ol(vol_name: str, desc: str, body: str) -> str:
    return f'volume "{vol_name}" ({desc}): overlapping paths: {body}'


def pr(body: str) -> str:
    return ol("foo", "Projected", body)


def _node_terms(key: str) -> list[str]:
    return [f"{key}.matchExpressions[{i + 1}].key: {k} is {m}"
            for i, (k, m) in enumerate(zip(OLD_KEYS, OLD_MSGS, strict=True))]  # fmt: skip


def _dup_ports(proto: str) -> Obj:
    return T(containers=[C("foo1", P(80, proto, 80), P(180, proto, 80), P(80, proto, 80)),
                         C("foo", P(80, proto, 80), P(80, proto, 80))])  # fmt: skip


_DUP_PORTS = [
    "spec.containers[0].ports[2]: duplicate port definition with spec.containers[0].ports[0]",
    "spec.containers[1].ports[0]: duplicate port definition with spec.containers[0].ports[0]",
    "spec.containers[1].ports[0]: duplicate port definition with spec.containers[0].ports[2]",
    "spec.containers[1].ports[1]: duplicate port definition with spec.containers[0].ports[0]",
    "spec.containers[1].ports[1]: duplicate port definition with spec.containers[0].ports[2]",
    "spec.containers[1].ports[1]: duplicate port definition with spec.containers[1].ports[0]",
]


def _dup_name(where: str, other: str) -> str:
    return (f'{where}: duplicate port name "test" with {other}, services and probes that select '
            f"ports by name will use {other}")  # fmt: skip


def _pref(values: list[str]) -> Obj:
    return {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{
        "weight": 10, "preference": {"matchExpressions": [
            {"key": "foo", "operator": "In", "values": values}]}}]}}  # fmt: skip


def _aff_terms() -> Obj:
    req = [{"labelSelector": {}}, {"labelSelector": None}]
    pref = [{"podAffinityTerm": {"labelSelector": {}}}, {"podAffinityTerm": {"labelSelector": None}}]
    both = {"requiredDuringSchedulingIgnoredDuringExecution": req,
            "preferredDuringSchedulingIgnoredDuringExecution": pref}  # fmt: skip
    return {"podAffinity": both, "podAntiAffinity": both}


ALWAYS = {"restartPolicy": "Always"}
PCERT = ["PodCertificate credential bundle", "PodCertificate key", "PodCertificate chain",
         'Secret "TestSecret"']  # fmt: skip

# (name, template or None, gitRepoPluginDisabled, expected)
ROWS: list[tuple[str, Obj | None, bool, list[str]]] = [
    ("null", None, False, []),
    ("photon", T(volumes=[vol("p", photonPersistentDisk={})]), False,
     ["spec.volumes[0].photonPersistentDisk: deprecated in v1.11, non-functional in v1.16+"]),
    ("gitRepo", T(volumes=[vol("s", gitRepo={})]), False, ["spec.volumes[0].gitRepo: deprecated in v1.11"]),
    ("gitRepo plugin disabled", T(volumes=[vol("s", gitRepo={})]), True,
     ["spec.volumes[0].gitRepo: deprecated in v1.11, and disabled by default in v1.33+"]),
    ("scaleIO", T(volumes=[vol("s", scaleIO={})]), False,
     ["spec.volumes[0].scaleIO: deprecated in v1.16, non-functional in v1.22+"]),
    ("flocker", T(volumes=[vol("s", flocker={})]), False,
     ["spec.volumes[0].flocker: deprecated in v1.22, non-functional in v1.25+"]),
    ("storageOS", T(volumes=[vol("s", storageos={})]), False,
     ["spec.volumes[0].storageOS: deprecated in v1.22, non-functional in v1.25+"]),
    ("quobyte", T(volumes=[vol("s", quobyte={})]), False,
     ["spec.volumes[0].quobyte: deprecated in v1.22, non-functional in v1.25+"]),
    ("glusterfs", T(volumes=[vol("s", glusterfs={})]), False,
     ["spec.volumes[0].glusterfs: deprecated in v1.25, non-functional in v1.26+"]),
    ("CephFS", T(volumes=[vol("s", cephfs={})]), False,
     ["spec.volumes[0].cephfs: deprecated in v1.28, non-functional in v1.31+"]),
    ("rbd", T(volumes=[vol("s", rbd={})]), False,
     ["spec.volumes[0].rbd: deprecated in v1.28, non-functional in v1.31+"]),
    ("overlapping paths in a configmap volume",
     T(volumes=[vol("Test", configMap={"name": "foo", "items": items("test", "test")})]), False,
     [ol("Test", 'ConfigMap "foo"', '"test" with "test"')]),
    ("overlapping paths in a configmap volume - try to mount dir path into a file",
     T(volumes=[vol("Test", configMap={"name": "foo", "items": items("test", "test/app")})]), False,
     [ol("Test", 'ConfigMap "foo"', '"test/app" with "test"')]),
    ("overlapping paths in a configmap volume - try to mount file into a dir path",
     T(volumes=[vol("Test", configMap={"name": "foo", "items": items("test/app", "test")})]), False,
     [ol("Test", 'ConfigMap "foo"', '"test" with "test/app"')]),
    ("overlapping paths in a secret volume",
     T(volumes=[vol("Test", secret={"secretName": "foo", "items": items("test", "test")})]), False,
     [ol("Test", 'Secret "foo"', '"test" with "test"')]),
    ("overlapping paths in a downward api volume",
     T(volumes=[vol("Test", downwardAPI=dapi("test", "test"))]), False,
     [ol("Test", "DownwardAPI", '"test" with "test"')]),
    ("overlapping paths in projected volume - service account and config",
     T(volumes=[vol("foo", **proj({"configMap": {"name": "Test", "items": items("test")}},
                                  {"serviceAccountToken": {"path": "test"}}))]), False,
     [pr('"test" (ServiceAccountToken) with "test" (ConfigMap "Test")')]),
    ("overlapping paths in projected volume volume: service account dir and config file",
     T(volumes=[vol("foo", **proj({"configMap": {"name": "Test", "items": items("test")}},
                                  {"serviceAccountToken": {"path": "test/file"}}))]), False,
     [pr('"test/file" (ServiceAccountToken) with "test" (ConfigMap "Test")')]),
    ("overlapping paths in projected volume - service account file and config dir",
     T(volumes=[vol("foo", **proj({"configMap": {"name": "Test", "items": items("test/file")}},
                                  {"serviceAccountToken": {"path": "test"}}))]), False,
     [pr('"test" (ServiceAccountToken) with "test/file" (ConfigMap "Test")')]),
    ("overlapping paths in projected volume - service account and secret",
     T(volumes=[vol("foo", **proj({"secret": {"name": "Test", "items": items("test")}},
                                  {"serviceAccountToken": {"path": "test"}}))]), False,
     [pr('"test" (ServiceAccountToken) with "test" (Secret "Test")')]),
    ("overlapping paths in projected volume - service account and downward api",
     T(volumes=[vol("foo", **proj({"downwardAPI": dapi("test")},
                                  {"serviceAccountToken": {"path": "test"}}))]), False,
     [pr('"test" (ServiceAccountToken) with "test" (DownwardAPI)')]),
    ("overlapping paths in projected volume - service account and cluster trust bundle",
     T(volumes=[vol("foo", **proj({"clusterTrustBundle": {"name": "Test", "path": "test"}},
                                  {"serviceAccountToken": {"path": "test"}}))]), False,
     [pr('"test" (ServiceAccountToken) with "test" (ClusterTrustBundle "Test")')]),
    ("overlapping paths in projected volume - service account and cluster trust bundle with signer name",
     T(volumes=[vol("foo", **proj({"clusterTrustBundle": {"signerName": "Test", "path": "test"}},
                                  {"serviceAccountToken": {"path": "test"}}))]), False,
     [pr('"test" (ServiceAccountToken) with "test" (ClusterTrustBundle "Test")')]),
    ("overlapping paths in projected volume - secret and config map",
     T(volumes=[vol("foo", **proj({"secret": {"name": "TestSecret", "items": items("test")}},
                                  {"configMap": {"name": "TestConfigMap", "items": items("test/test1")}}))]),
     False, [pr('"test/test1" (ConfigMap "TestConfigMap") with "test" (Secret "TestSecret")')]),
    ("overlapping paths in projected volume - config map and downward api",
     T(volumes=[vol("foo", **proj({"secret": {"name": "TestSecret", "items": items("test")}},
                                  {"downwardAPI": dapi("test/test2")}))]), False,
     [pr('"test/test2" (DownwardAPI) with "test" (Secret "TestSecret")')]),
    ("overlapping paths in projected volume - secret and pod certificate",
     T(volumes=[vol("foo", **proj({"secret": {"name": "TestSecret", "items": items("test")}},
                                  {"podCertificate": {"credentialBundlePath": "test", "keyPath": "test",
                                                      "certificateChainPath": "test"}}))]), False,
     [pr(f'"test" ({a}) with "test" ({b})') for i, a in enumerate(PCERT) for b in PCERT[i + 1:]]),
    ("overlapping paths in projected volume - downward api and cluster thrust bundle api",
     T(volumes=[vol("foo", **proj({"downwardAPI": dapi("test/test2")},
                                  {"clusterTrustBundle": {"name": "Test", "path": "test"}}))]), False,
     [pr('"test" (ClusterTrustBundle "Test") with "test/test2" (DownwardAPI)')]),
    ("overlapping paths in projected volume - multiple sources",
     T(volumes=[vol("foo", **proj({"clusterTrustBundle": {"signerName": "Test", "path": "test/test"}},
                                  {"downwardAPI": dapi("test")},
                                  {"secret": {"name": "Test", "items": items("test")}},
                                  {"serviceAccountToken": {"path": "test"}}))]), False,
     [pr('"test" (DownwardAPI) with "test/test" (ClusterTrustBundle "Test")'),
      pr('"test" (Secret "Test") with "test/test" (ClusterTrustBundle "Test")'),
      pr('"test" (Secret "Test") with "test" (DownwardAPI)'),
      pr('"test" (ServiceAccountToken) with "test/test" (ClusterTrustBundle "Test")'),
      pr('"test" (ServiceAccountToken) with "test" (DownwardAPI)'),
      pr('"test" (ServiceAccountToken) with "test" (Secret "Test")')]),
    ("overlapping paths in projected volume - ServiceAccount vs. DownwardAPI",
     T(volumes=[vol("foo", **proj({"serviceAccountToken": {"path": "test/test2"}},
                                  {"downwardAPI": dapi("test", "test")}))]), False,
     [pr('"test" (DownwardAPI) with "test/test2" (ServiceAccountToken)'),
      pr('"test" (DownwardAPI) with "test/test2" (ServiceAccountToken)'),
      pr('"test" (DownwardAPI) with "test" (DownwardAPI)')]),
    ("empty sources in projected volume", T(volumes=[vol("foo", **proj({}))]), False,
     ['volume "foo" (Projected) has no sources provided']),
    ("duplicate hostAlias", T(hostAliases=[{"ip": "1.1.1.1"}] * 3), False,
     ['spec.hostAliases[1].ip: duplicate ip "1.1.1.1"', 'spec.hostAliases[2].ip: duplicate ip "1.1.1.1"']),
    ("duplicate imagePullSecret", T(imagePullSecrets=[{"name": "a"}] * 3), False,
     ['spec.imagePullSecrets[1].name: duplicate name "a"', 'spec.imagePullSecrets[2].name: duplicate name "a"']),
    ("empty imagePullSecret", T(imagePullSecrets=[{"name": ""}]), False,
     ['spec.imagePullSecrets[0].name: invalid empty name ""']),
    ("duplicate env",
     T(initContainers=[{"env": [{"name": "a", "value": v} for v in ("a", "a", "other", "", "$(a)")]
                       + [{"name": "a", "valueFrom": {}}, {"name": "a", "value": "$(a) $(a)"}]}],
       containers=[{"env": [{"name": "b", "value": v} for v in ("b", "b", "other", "", "$(b)")]
                   + [{"name": "b", "valueFrom": {}}, {"name": "b", "value": "$(b) $(b)"}]}]), False,
     [f"spec.initContainers[0].env[{i}]: " + HIDES.format("a") for i in range(1, 6)]
     + [f"spec.containers[0].env[{i}]: " + HIDES.format("b") for i in range(1, 6)]),
    ("fractional resources",
     T(initContainers=[{"resources": {"requests": RES, "limits": RES}}],
       containers=[{"resources": {"requests": RES, "limits": RES}}], overhead=RES), False,
     [f'{w}[{r}]: fractional byte value "4m" is invalid, must be an integer'
      for w in ("spec.initContainers[0].resources.requests", "spec.initContainers[0].resources.limits",
                "spec.containers[0].resources.requests", "spec.containers[0].resources.limits",
                "spec.overhead") for r in ("ephemeral-storage", "memory")]),
    ("node labels in nodeSelector", T(nodeSelector=dict.fromkeys(OLD_KEYS, "true")), False,
     [f"spec.nodeSelector[{k}]: {m}" for k, m in zip(OLD_KEYS, OLD_MSGS, strict=True)]),
    ("node labels in affinity requiredDuringSchedulingIgnoredDuringExecution",
     T(affinity={"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
         {"matchExpressions": [{"key": k} for k in ["foo", *OLD_KEYS]]}]}}}), False,
     _node_terms("spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]")),
    ("node labels in affinity preferredDuringSchedulingIgnoredDuringExecution",
     T(affinity={"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
         {"preference": {"matchExpressions": [{"key": k} for k in ["foo", *OLD_KEYS]]}}]}}), False,
     _node_terms("spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].preference")),
    ("node labels in topologySpreadConstraints",
     T(topologySpreadConstraints=[{"topologyKey": k, "labelSelector": {}} for k in ["foo", *OLD_KEYS]]),
     False, [f"spec.topologySpreadConstraints[{i + 1}].topologyKey: {k} is {m}"
             for i, (k, m) in enumerate(zip(OLD_KEYS, OLD_MSGS, strict=True))]),
    ("annotations",
     T({"annotations": {"foo": "bar", "scheduler.alpha.kubernetes.io/critical-pod": "true",
                        "seccomp.security.alpha.kubernetes.io/pod": "default",
                        "container.seccomp.security.alpha.kubernetes.io/foo": "default",
                        "security.alpha.kubernetes.io/sysctls": "a,b,c",
                        "security.alpha.kubernetes.io/unsafe-sysctls": "d,e,f"}},
       containers=[{"name": "foo"}]), False,
     ['metadata.annotations[scheduler.alpha.kubernetes.io/critical-pod]: non-functional in v1.16+; use the "priorityClassName" field instead',
      'metadata.annotations[seccomp.security.alpha.kubernetes.io/pod]: non-functional in v1.27+; use the "seccompProfile" field instead',
      'metadata.annotations[container.seccomp.security.alpha.kubernetes.io/foo]: non-functional in v1.27+; use the "seccompProfile" field instead',
      'metadata.annotations[security.alpha.kubernetes.io/sysctls]: non-functional in v1.11+; use the "sysctls" field instead',
      'metadata.annotations[security.alpha.kubernetes.io/unsafe-sysctls]: non-functional in v1.11+; use the "sysctls" field instead']),
    ("seccomp fields",
     T({"annotations": {"seccomp.security.alpha.kubernetes.io/pod": "default",
                        "container.seccomp.security.alpha.kubernetes.io/foo": "default"}},
       securityContext={"seccompProfile": {"type": "RuntimeDefault"}},
       containers=[{"name": "foo", "securityContext": {"seccompProfile": {"type": "RuntimeDefault"}}}]),
     False, []),
    ("pod with ephemeral volume source 200Mi",
     T(volumes=[vol("ephemeral-volume", ephemeral={"volumeClaimTemplate": {
         "spec": {"resources": {"requests": {"storage": "200Mi"}}}}})]), False, []),
    ("pod with ephemeral volume source 200m",
     T(volumes=[vol("ephemeral-volume", ephemeral={"volumeClaimTemplate": {
         "spec": {"resources": {"requests": {"storage": "200m"}}}}})]), False,
     ['spec.volumes[0].ephemeral.volumeClaimTemplate.spec.resources.requests[storage]: fractional byte value "200m" is invalid, must be an integer']),
    ("terminationGracePeriodSeconds is negative", T(terminationGracePeriodSeconds=-1), False,
     ["spec.terminationGracePeriodSeconds: must be >= 0; negative values are invalid and will be treated as 1"]),
    ("null LabelSelector in topologySpreadConstraints",
     T(topologySpreadConstraints=[{"labelSelector": {}}, {"labelSelector": None}]), False,
     [f"spec.topologySpreadConstraints[1].labelSelector: {NULL_SEL}"]),
    ("null LabelSelector in PodAffinity", T(affinity=_aff_terms()), False,
     [f"spec.affinity.{k}.requiredDuringSchedulingIgnoredDuringExecution[1].labelSelector: {NULL_SEL}"
      for k in ("podAffinity", "podAntiAffinity")]
     + [f"spec.affinity.{k}.preferredDuringSchedulingIgnoredDuringExecution[1].podAffinityTerm.labelSelector: {NULL_SEL}"
        for k in ("podAffinity", "podAntiAffinity")]),
    ("container no ports", T(containers=[C("foo")]), False, []),
    ("one container, one port", T(containers=[C("foo", P(80, hp=80))]), False, []),
    ("one container, two ports, same protocol, different ports",
     T(containers=[C("foo", P(80, "UDP"), P(81, "UDP"))]), False, []),
    ("one container, two ports, different protocols, same port",
     T(containers=[C("foo", P(80, "UDP"), P(80, "TCP"))]), False, []),
    ("one container, two ports, same protocol, same port, different hostport",
     T(containers=[C("foo", P(80, "TCP", 80), P(80, "TCP", 81))]), False, []),
    ("one container, two ports, same protocol, port and hostPort, different hostIP",
     T(containers=[C("foo", P(80, "TCP", 80, "10.0.0.1"), P(80, "TCP", 80, "10.0.0.2"))]), False, []),
    ("two containers, one port each, same protocol, different ports",
     T(containers=[C("foo", P(80, "UDP")), C("bar", P(81, "UDP"))]), False, []),
    ("two containers, one port each, different protocols, same port",
     T(containers=[C("foo", P(80, "UDP")), C("bar", P(80, "TCP"))]), False, []),
    ("two containers, one port each, same protocol, same port, different hostport",
     T(containers=[C("foo", P(80, "TCP", 80)), C("bar", P(80, "TCP", 81))]), False, []),
    ("two containers, one port each, same protocol, port and hostPort, different hostIP",
     T(containers=[C("foo", P(80, "TCP", 80, "10.0.0.1")), C("bar", P(80, "TCP", 80, "10.0.0.2"))]), False, []),
    ("duplicate container ports with same port and protocol",
     T(containers=[C("foo", P(80, "UDP"), P(80, "UDP"))]), False,
     ["spec.containers[0].ports[1]: duplicate port definition with spec.containers[0].ports[0]"]),
    ("duplicate container ports with same port, hostPort and protocol",
     T(containers=[C("foo", P(80, "UDP", 80), P(80, "UDP", 80))]), False,
     ["spec.containers[0].ports[1]: duplicate port definition with spec.containers[0].ports[0]"]),
    ("duplicate container ports with same port, host port, host IP and protocol",
     T(containers=[C("foo", P(80, "UDP", 80, "10.0.0.1"), P(80, "UDP", 80, "10.0.0.1"))]), False,
     ["spec.containers[0].ports[1]: duplicate port definition with spec.containers[0].ports[0]"]),
    ("one container port hostIP set without host port set",
     T(containers=[C("foo", P(80, "UDP", hip="10.0.0.1"))]), False,
     ["spec.containers[0].ports[0]: hostIP set without hostPort: {Name: HostPort:0 ContainerPort:80 Protocol:UDP HostIP:10.0.0.1}"]),
    ("duplicate container ports with one host port set and one without",
     T(containers=[C("foo", P(80, "UDP", 80, "10.0.0.1"), P(80, "UDP", hip="10.0.0.1"))]), False,
     ["spec.containers[0].ports[1]: overlapping port definition with spec.containers[0].ports[0]",
      "spec.containers[0].ports[1]: hostIP set without hostPort: {Name: HostPort:0 ContainerPort:80 Protocol:UDP HostIP:10.0.0.1}"]),
    ("duplicate container ports without one host IP set and two with",
     T(containers=[C("foo", P(80, "UDP", 80, "10.0.0.1"), P(80, "UDP", 80), P(80, "UDP", 80, "10.0.0.2"))]),
     False,
     ["spec.containers[0].ports[1]: dangerously ambiguous port definition with spec.containers[0].ports[0]",
      "spec.containers[0].ports[2]: dangerously ambiguous port definition with spec.containers[0].ports[1]"]),
    ("duplicate container ports with one host IP set and one without",
     T(containers=[C("foo", P(80, "UDP", 80, "10.0.0.1"), P(80, "UDP", 80))]), False,
     ["spec.containers[0].ports[1]: dangerously ambiguous port definition with spec.containers[0].ports[0]"]),
    ("duplicate containers with same port and protocol",
     T(containers=[C("foo", P(80, "UDP")), C("bar", P(80, "UDP"))]), False,
     ["spec.containers[1].ports[0]: duplicate port definition with spec.containers[0].ports[0]"]),
    ("duplicate containers with same port, hostPort and protocol",
     T(containers=[C("foo", P(80, "UDP", 80)), C("bar", P(80, "UDP", 80))]), False,
     ["spec.containers[1].ports[0]: duplicate port definition with spec.containers[0].ports[0]"]),
    ("duplicate containers with same port, host port, host IP and protocol",
     T(containers=[C("foo", P(80, "UDP", 80, "10.0.0.1")), C("bar", P(80, "UDP", 80, "10.0.0.1"))]), False,
     ["spec.containers[1].ports[0]: duplicate port definition with spec.containers[0].ports[0]"]),
    ("duplicate containers with one host port set and one without",
     T(containers=[C("foo", P(80, "UDP", 80, "10.0.0.1")), C("bar", P(80, "UDP", hip="10.0.0.1"))]), False,
     ["spec.containers[1].ports[0]: overlapping port definition with spec.containers[0].ports[0]",
      "spec.containers[1].ports[0]: hostIP set without hostPort: {Name: HostPort:0 ContainerPort:80 Protocol:UDP HostIP:10.0.0.1}"]),
    ("duplicate container ports without one host IP set and one with",
     T(containers=[C("foo", P(80, "UDP", 80)), C("bar", P(80, "UDP", 80, "10.0.0.1"))]), False,
     ["spec.containers[1].ports[0]: dangerously ambiguous port definition with spec.containers[0].ports[0]"]),
    ("duplicate container ports with one host IP set and one without",
     T(containers=[C("foo", P(80, "UDP", 80, "10.0.0.1")), C("bar", P(80, "UDP", 80))]), False,
     ["spec.containers[1].ports[0]: dangerously ambiguous port definition with spec.containers[0].ports[0]"]),
    ("create duplicate container ports in two containers", _dup_ports("UDP"), False, _DUP_PORTS),
    ("update duplicate container ports in two containers", _dup_ports("TCP"), False, _DUP_PORTS),
    ("create duplicate container ports name in two containers",
     T(containers=[C("foo1", P(80, "UDP", name="test")), C("foo", P(8090, "TCP", name="test"))]), False,
     [_dup_name("spec.containers[1].ports[0]", "spec.containers[0].ports[0]")]),
    ("update duplicate container ports name in two containers",
     T(containers=[C("foo1", P(80, "UDP", name="test")),
                   C("foo", P(8090, "UDP", name="test1"), P(8092, "UDP", name="test"))]), False,
     [_dup_name("spec.containers[1].ports[1]", "spec.containers[0].ports[0]")]),
    ("create duplicate container ports name in two sidecar containers",
     T(initContainers=[C("foo1", P(80, "UDP", name="test"), **ALWAYS),
                       C("foo", P(8090, "TCP", name="test"), **ALWAYS)]), False,
     [_dup_name("spec.initContainers[1].ports[0]", "spec.initContainers[0].ports[0]")]),
    ("update duplicate container ports name in two sidecar containers",
     T(initContainers=[C("foo1", P(80, "UDP", name="test"), **ALWAYS),
                       C("foo", P(8090, "UDP", name="test1"), P(8091, "UDP", name="test"), **ALWAYS)]),
     False, [_dup_name("spec.initContainers[1].ports[1]", "spec.initContainers[0].ports[0]")]),
    ("create duplicate container ports name in containers and sidecar containers",
     T(initContainers=[C("foo1", P(80, "UDP", name="test"), **ALWAYS)],
       containers=[C("foo", P(8090, "TCP", name="test"))]), False,
     [_dup_name("spec.containers[0].ports[0]", "spec.initContainers[0].ports[0]")]),
    ("update duplicate container ports name in containers and sidecar containers",
     T(initContainers=[C("foo1", P(80, "UDP", name="test"), **ALWAYS)],
       containers=[C("foo", P(8090, "UDP", name="test1"), P(8092, "UDP", name="test"))]), False,
     [_dup_name("spec.containers[0].ports[1]", "spec.initContainers[0].ports[0]")]),
    ("creating pod with invalid value in nodeaffinity", T(affinity=_pref(["-1"])), False,
     ["spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].preference."
      f"matchExpressions[0].values[0]: {LABEL_MSG}"]),
    ("updating pod with invalid value in nodeaffinity",
     T(affinity=_pref(["-1"]), schedulingGates=[{"name": "foo"}]), False,
     ["spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].preference."
      f"matchExpressions[0].values[0]: {LABEL_MSG}"]),
    ("dubious IP address formats",
     T(dnsConfig={"nameservers": ["1.2.3.4", "05.06.07.08"]}, hostAliases=[{"ip": "::ffff:1.2.3.4"}]),
     False,
     ['spec.dnsConfig.nameservers[1]: non-standard IP address "05.06.07.08" is invalid: use "5.6.7.8"',
      'spec.hostAliases[0].ip: non-standard IP address "::ffff:1.2.3.4" is invalid: use "1.2.3.4"']),
]  # fmt: skip


@pytest.mark.parametrize(("template", "git_repo_disabled", "expected"),
                         [pytest.param(t, d, e, id=f"podspec_{n}") for n, t, d, e in ROWS])  # fmt: skip
def test_podspec(template: Obj | None, git_repo_disabled: bool, expected: list[str]) -> None:
    if template is None:
        got = pod_template_warnings("", None, None)
    else:
        got = pod_spec_warnings("", template["spec"], template["metadata"], not git_repo_disabled)
    assert sorted(got) == sorted(expected)


@pytest.mark.parametrize(("template", "git_repo_disabled", "expected"),
                         [pytest.param(t, d, e, id=f"pod_{n}") for n, t, d, e in ROWS])  # fmt: skip
def test_pod(template: Obj | None, git_repo_disabled: bool, expected: list[str]) -> None:
    pod = {"metadata": {}, "spec": {}} if template is None else template
    got = pod_spec_warnings("", pod["spec"], pod["metadata"], not git_repo_disabled)
    assert sorted(got) == sorted(expected)
