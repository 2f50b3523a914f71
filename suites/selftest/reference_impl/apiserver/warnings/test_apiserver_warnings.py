"""Warnings through the reference apiserver: each write leaves its strategy's
WarningsOnCreate/Update in ``APIServer.warnings`` (deduplicated as upstream's recorder
does), an update of a template kind warns only when the generation moved, a pod update
warns of nothing, and a status write runs the status strategy's warnings."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from reference_impl.api import make_namespace
from reference_impl.apiserver.server import APIServer
from reference_impl.apiserver.warnings.deprecation import deprecation_warnings
from reference_impl.apiserver.warnings.job import cronjob_warnings
from reference_impl.apiserver.warnings.networking import network_policy_warnings
from reference_impl.apiserver.warnings.recorder import header_texts
from reference_impl.clock import SimClock
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

Obj = dict[str, Any]
NAME_MSG = ("metadata.name: this is used in {}, which can result in surprising behavior; a DNS "
            "label is recommended: [must not contain dots]")  # fmt: skip
GRACE = "must be >= 0; negative values are invalid and will be treated as 1"
ARCH = 'deprecated since v1.14; use "kubernetes.io/arch" instead'


@pytest.fixture
def server() -> APIServer:
    s = APIServer(MVCCStore(), SimClock(), Rng(7), FeatureGates())
    s.create(make_namespace("default").build())
    return s


def _pod_spec(**extra: Any) -> Obj:
    return {"containers": [{"name": "c", "image": "i"}], **extra}


def _pod(name: str, **extra: Any) -> Obj:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
            "spec": _pod_spec(**extra)}  # fmt: skip


def _template(**extra: Any) -> Obj:
    return {"metadata": {"labels": {"a": "b"}}, "spec": _pod_spec(**extra)}


def test_plain_pod_has_none(server: APIServer) -> None:
    server.create(_pod("p"))
    assert server.warnings == []


def test_pod_create(server: APIServer) -> None:
    server.create(_pod("p.q", nodeSelector={"beta.kubernetes.io/arch": "amd64"},
                       hostAliases=[{"ip": "1.1.1.1", "hostnames": ["a"]},
                                    {"ip": "1.1.1.1", "hostnames": ["b"]}]))  # fmt: skip
    assert server.warnings == [
        NAME_MSG.format("the Pod's hostname"),
        f"spec.nodeSelector[beta.kubernetes.io/arch]: {ARCH}",
        'spec.hostAliases[1].ip: duplicate ip "1.1.1.1"',
    ]


def test_pod_update_has_none_and_a_later_write_resets(server: APIServer) -> None:
    # A pod's negative grace period is defaulted to 1 (SetDefaults_Pod) before warnings run.
    server.create(_pod("p", terminationGracePeriodSeconds=-1, imagePullSecrets=[{"name": "s"}] * 2))
    assert server.warnings == ['spec.imagePullSecrets[1].name: duplicate name "s"']
    pod = server.get("v1", "Pod", "p", "default")
    pod["metadata"]["labels"] = {"x": "y"}
    server.update(pod)
    assert server.warnings == []  # podStrategy.WarningsOnUpdate returns nil


def test_pod_status_ips(server: APIServer) -> None:
    server.create(_pod("p"))
    pod = server.get("v1", "Pod", "p", "default")
    pod["status"] = {"podIP": "2001:db8:0:0::2", "podIPs": [{"ip": "2001:db8:0:0::2"}]}
    server.update_status(pod)
    assert server.warnings == [
        'status.podIPs[0].ip: IPv6 address "2001:db8:0:0::2" should be in RFC 5952 canonical '
        'format ("2001:db8::2")'
    ]


def test_service(server: APIServer) -> None:
    server.create({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s", "namespace": "default"},
                   "spec": {"ports": [{"port": 80}], "externalIPs": ["1.2.3.4"],
                            "trafficDistribution": "PreferClose"}})  # fmt: skip
    assert server.warnings == [
        "spec.externalIPs is deprecated and may no longer be implemented in some clusters",
        'spec.trafficDistribution: "PreferClose" is deprecated; use "PreferSameZone"',
    ]


def test_deployment_update_warns_only_when_generation_moves(server: APIServer) -> None:
    dep = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d.x", "namespace": "default"},
           "spec": {"selector": {"matchLabels": {"a": "b"}},
                    "template": _template(terminationGracePeriodSeconds=-1)}}  # fmt: skip
    server.create(dep)
    grace = f"spec.template.spec.terminationGracePeriodSeconds: {GRACE}"
    assert server.warnings == [NAME_MSG.format("Pod names and hostnames"), grace]
    stored = server.get("apps/v1", "Deployment", "d.x", "default")
    stored["metadata"]["labels"] = {"x": "y"}  # metadata only: the generation stays
    server.update(copy.deepcopy(stored))
    assert server.warnings == []
    stored = server.get("apps/v1", "Deployment", "d.x", "default")
    stored["spec"]["template"]["spec"]["containers"][0]["image"] = "j"
    server.update(stored)
    assert server.warnings == [grace]


def test_daemonset_template(server: APIServer) -> None:
    server.create({"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "d.x", "namespace": "default"},
                   "spec": {"selector": {"matchLabels": {"a": "b"}},
                            "template": _template(nodeSelector={"beta.kubernetes.io/arch": "x"})}})  # fmt: skip
    # No name check for DaemonSets.
    assert server.warnings == [f"spec.template.spec.nodeSelector[beta.kubernetes.io/arch]: {ARCH}"]


def test_statefulset_volume_claim_templates(server: APIServer) -> None:
    server.create({"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "s", "namespace": "default"},
                   "spec": {"selector": {"matchLabels": {"a": "b"}}, "template": _template(),
                            "volumeClaimTemplates": [{"metadata": {"name": "v"}, "spec": {
                                "accessModes": ["ReadWriteOnce"],
                                "resources": {"requests": {"storage": "200m"}}}}]}})  # fmt: skip
    assert server.warnings == [
        'spec.volumeClaimTemplates[0].resources.requests[storage]: fractional byte value "200m" is '
        "invalid, must be an integer"
    ]


def test_cronjob_update_schedule_tz() -> None:
    # Validation refuses a new TZ schedule, so only an object stored with one reaches this.
    cj = {"metadata": {"name": "c", "generation": 1}, "spec": {"schedule": "TZ=UTC * * * * *",
          "jobTemplate": {"spec": {"template": {"spec": _pod_spec()}}}}}  # fmt: skip
    assert cronjob_warnings(cj, copy.deepcopy(cj), None) == [  # type: ignore[arg-type]
        "cannot use TZ or CRON_TZ in spec.spec.schedule, use timeZone instead, see "
        "https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more details"
    ]


def test_storage_class_and_pv(server: APIServer) -> None:
    server.create({"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "sc"},
                   "provisioner": "x", "allowedTopologies": [{"matchLabelExpressions": [
                       {"key": "beta.kubernetes.io/arch", "values": ["amd64"]}]}]})  # fmt: skip
    assert server.warnings == [f"allowedTopologies[0].matchLabelExpressions[0].key: {ARCH}"]
    server.create({"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "pv"},
                   "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"],
                            "hostPath": {"path": "/tmp"}, "persistentVolumeReclaimPolicy": "Recycle"}})  # fmt: skip
    assert server.warnings == [
        "spec.persistentVolumeReclaimPolicy: The Recycle reclaim policy is deprecated. Instead, "
        "the recommended approach is to use dynamic provisioning."
    ]


def test_recorder_dedupes_and_truncates() -> None:
    assert header_texts(["a", "", "b", "a"]) == ["a", "b"]
    long = [f"{i}" + "x" * 999 for i in range(5)]  # 5000 runes: past the 4096 limit
    out = header_texts(long)
    assert out == [t[:256] for t in long]


def test_network_policy_and_endpoint_slice(server: APIServer) -> None:
    # Strict CIDR validation refuses this on a write; only a stored legacy object has it.
    np = {"metadata": {"name": "np"},
          "spec": {"ingress": [{"from": [{"ipBlock": {"cidr": "10.0.0.1/8", "except": ["010.1.0.0/16"]}}]}]}}  # fmt: skip
    assert network_policy_warnings(np, None, None) == [  # type: ignore[arg-type]
        'spec.ingress[0].from[0].ipBlock.cidr: CIDR value "10.0.0.1/8" is ambiguous in this '
        'context (should be "10.0.0.0/8" or "10.0.0.1/32"?)',
        'spec.ingress[0].from[0].ipBlock.except[0]: non-standard CIDR value "010.1.0.0/16" is '
        'invalid: use "10.1.0.0/16"',
    ]
    server.create({"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
                   "metadata": {"name": "s", "namespace": "default"}, "addressType": "FQDN",
                   "endpoints": [{"addresses": ["example.com"]}]})  # fmt: skip
    assert server.warnings == ["spec.addressType: FQDN endpoints are deprecated"]


def test_webhook_rules(server: APIServer) -> None:
    server.create({"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingWebhookConfiguration",
                   "metadata": {"name": "w"}, "webhooks": [{
                       "name": "w.example.com", "sideEffects": "None", "admissionReviewVersions": ["v1"],
                       "clientConfig": {"url": "https://example.com"},
                       "rules": [{"operations": ["CREATE"], "apiGroups": ["authentication.k8s.io"],
                                  "apiVersions": ["v1"], "resources": ["tokenreviews"]}]}]})  # fmt: skip
    assert server.warnings == [
        "webhooks[0].rules[0]: tokenreviews.authentication.k8s.io is excluded from admission "
        "webhooks; this rule will have no effect"
    ]


def test_deprecated_version_warns_first(server: APIServer) -> None:
    server.create({"apiVersion": "resource.k8s.io/v1beta2", "kind": "ResourceSlice", "metadata": {"name": "s"},
                   "spec": {"driver": "Gpu.example.com", "pool": {"name": "p", "generation": 1,
                                                                 "resourceSliceCount": 1},
                            "nodeName": "n", "devices": []}})  # fmt: skip
    assert server.warnings == [
        "resource.k8s.io/v1beta2 ResourceSlice is deprecated in v1.36+, unavailable in v1.39+",
        'spec.driver: driver names should be lowercase; "Gpu.example.com" contains uppercase characters',
    ]
    server.create({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "c"},
                   "spec": {}})  # fmt: skip
    assert server.warnings == []


@pytest.mark.parametrize(
    ("api_version", "want"),
    [
        ("storagemigration.k8s.io/v1beta1",
         "storagemigration.k8s.io/v1beta1 StorageVersionMigration is deprecated in v1.37+, "
         "unavailable in v1.40+; use storagemigration.k8s.io/v1 StorageVersionMigration"),
        ("storagemigration.k8s.io/v1", None),
    ],
)  # fmt: skip
def test_deprecation_message(api_version: str, want: str | None) -> None:
    got = deprecation_warnings(api_version, "StorageVersionMigration")
    assert got == ([want] if want else [])


def test_a_handlers_nested_write_keeps_the_outer_warnings(server: APIServer) -> None:
    def on_event(ev: Any) -> None:
        if ev.obj["kind"] == "Pod" and ev.type == "ADDED":
            server.create({"apiVersion": "v1", "kind": "ConfigMap",
                           "metadata": {"name": "cm", "namespace": "default"}})  # fmt: skip

    server.add_event_handler(on_event)
    server.create(_pod("p.q"))
    assert server.try_get("v1", "ConfigMap", "cm", "default") is not None  # the nested write ran
    assert server.warnings == [NAME_MSG.format("the Pod's hostname")]


def test_tls_secret_and_resource_quota(server: APIServer) -> None:
    server.create({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "t", "namespace": "default"},
                   "type": "kubernetes.io/tls", "stringData": {"tls.crt": "x", "tls.key": "y"}})  # fmt: skip
    assert server.warnings == ["tls: failed to find any PEM data in certificate input"]
    server.create({"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "q", "namespace": "default"},
                   "spec": {"hard": {"requests.cpu": "2", "limits.cpu": "1"}}})  # fmt: skip
    assert server.warnings == ["ResourceQuota requests.cpu (2) should be less than limits.cpu (1)"]
