"""--runtime-config in the reference: parsing, upstream's defaults, merging and the client view."""

from __future__ import annotations

import pytest

from reference_impl.api import served_versions
from reference_impl.api.builders import make_namespace
from reference_impl.api.runtime_config import (
    DEFAULT_ENABLED,
    APIResourceConfig,
    RuntimeConfigError,
    format_runtime_config,
    parse_runtime_config,
)
from reference_impl.cluster import Cluster, ClusterConfig
from reference_impl.errors import NotFound

# Transcribed from k8s.io/kubernetes@v1.37.2 pkg/controlplane/instance.go
# (DefaultAPIResourceConfigSource) for the group/versions the 1.37 table serves, plus
# apiextensions and apiregistration, whose servers enable their v1 themselves.
UPSTREAM_DEFAULT = {
    "admissionregistration.k8s.io/v1": True,
    "admissionregistration.k8s.io/v1alpha1": False,
    "admissionregistration.k8s.io/v1beta1": False,
    "apiextensions.k8s.io/v1": True,
    "apiregistration.k8s.io/v1": True,
    "apps/v1": True,
    "authentication.k8s.io/v1": True,
    "authorization.k8s.io/v1": True,
    "autoscaling/v1": True,
    "autoscaling/v2": True,
    "batch/v1": True,
    "certificates.k8s.io/v1": True,
    "certificates.k8s.io/v1beta1": False,
    "coordination.k8s.io/v1": True,
    "coordination.k8s.io/v1alpha2": False,
    "coordination.k8s.io/v1beta1": False,
    "discovery.k8s.io/v1": True,
    "events.k8s.io/v1": True,
    "flowcontrol.apiserver.k8s.io/v1": True,
    "internal.apiserver.k8s.io/v1alpha1": False,
    "lifecycle.k8s.io/v1alpha1": False,
    "networking.k8s.io/v1": True,
    "node.k8s.io/v1": True,
    "policy/v1": True,
    "rbac.authorization.k8s.io/v1": True,
    "resource.k8s.io/v1": True,
    "resource.k8s.io/v1alpha3": False,
    "resource.k8s.io/v1beta1": False,
    "resource.k8s.io/v1beta2": False,
    "scheduling.k8s.io/v1": True,
    "scheduling.k8s.io/v1alpha3": False,
    "scheduling.k8s.io/v1beta1": False,
    "storage.k8s.io/v1": True,
    "storagemigration.k8s.io/v1": True,
    "storagemigration.k8s.io/v1beta1": False,
    "v1": True,
}


def test_every_served_version_has_an_upstream_default() -> None:
    assert set(served_versions()) == set(UPSTREAM_DEFAULT)


@pytest.mark.parametrize("version", sorted(UPSTREAM_DEFAULT))
def test_defaults_match_upstream(version: str) -> None:
    assert (version in DEFAULT_ENABLED) is UPSTREAM_DEFAULT[version]
    assert APIResourceConfig().version_enabled(version) is UPSTREAM_DEFAULT[version]


def _enabled(text: str) -> set[str]:
    return set(APIResourceConfig.from_overrides(parse_runtime_config(text)).versions)


def test_group_version_keys_switch_one_version() -> None:
    assert _enabled("resource.k8s.io/v1beta1=true") == DEFAULT_ENABLED | {"resource.k8s.io/v1beta1"}
    assert "batch/v1" not in _enabled("batch/v1=false")
    assert "v1" not in _enabled("api/v1=false")  # the core group's key
    assert "resource.k8s.io/v1beta2" in _enabled("resource.k8s.io/v1beta2")  # bare key = true
    assert "resource.k8s.io/v1beta2" in _enabled("resource.k8s.io/v1beta2=1")


def test_matchers_apply_first_and_group_versions_win() -> None:
    betas = {v for v in UPSTREAM_DEFAULT if "beta" in v.rpartition("/")[2]}
    alphas = {v for v in UPSTREAM_DEFAULT if "alpha" in v.rpartition("/")[2]}
    assert _enabled("api/beta=true") == DEFAULT_ENABLED | betas
    assert _enabled("api/alpha=true") == DEFAULT_ENABLED | alphas
    assert _enabled("api/all=true") == set(UPSTREAM_DEFAULT)
    assert _enabled("api/ga=false") == set()
    # api/all=false first, then the explicit keys, whatever their order on the flag.
    assert _enabled("scheduling.k8s.io/v1beta1=true,api/all=false") == {"scheduling.k8s.io/v1beta1"}
    assert "resource.k8s.io/v1beta1" not in _enabled("api/beta=true,resource.k8s.io/v1beta1=false")


def test_a_resource_key_wins_over_its_version() -> None:
    from reference_impl.api import lookup

    cfg = APIResourceConfig.from_overrides(
        parse_runtime_config("resource.k8s.io/v1beta2/deviceclasses=true,batch/v1/cronjobs=false")
    )
    dc, rc = (
        lookup("resource.k8s.io/v1beta2", "DeviceClass"),
        lookup("resource.k8s.io/v1beta2", "ResourceClaim"),
    )
    cron, job = lookup("batch/v1", "CronJob"), lookup("batch/v1", "Job")
    assert dc and rc and cron and job
    assert cfg.resource_enabled(dc) and not cfg.resource_enabled(rc)
    assert not cfg.resource_enabled(cron) and cfg.resource_enabled(job)
    assert "resource.k8s.io/v1beta2" in cfg.served_versions({})


def test_discovery_lists_stable_versions_and_no_version_whose_kinds_are_all_gated_off() -> None:
    from reference_impl.features import FeatureGates

    everything = APIResourceConfig.from_overrides({"api/all": "true"})
    listed = set(everything.served_versions(FeatureGates()))
    # What a stock v1.37.2 kube-apiserver with --runtime-config=api/all=true lists.
    gated = {"lifecycle.k8s.io/v1alpha1", "scheduling.k8s.io/v1alpha3", "scheduling.k8s.io/v1beta1"}
    assert listed == set(UPSTREAM_DEFAULT) - gated
    assert set(APIResourceConfig().served_versions(FeatureGates())) == set(DEFAULT_ENABLED)


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("resource.k8s.io/v1beta9=true", "group version resource.k8s.io/v1beta9 has not been"),
        ("nosuch.k8s.io/v1=true", "1.37 has no API group 'nosuch.k8s.io'"),
        ("resource.k8s.io/v1beta1=maybe", "invalid value 'maybe'"),
        ("api/beta=1", "invalid value '1'; use true or false"),
        ("resource.k8s.io=true", "the key must be group/version"),
        ("a/b/c/d=true", "the key must be group/version"),
        ("batch/v1/CronJobs=false", "resource is always lowercase plural"),
        ("batch/v1/widgets=false", "batch/v1 has no resource 'widgets'"),
    ],
)
def test_bad_entries_name_the_flag_and_the_fix(text: str, why: str) -> None:
    with pytest.raises(RuntimeConfigError) as info:
        parse_runtime_config(text)
    assert str(info.value).startswith(f"--runtime-config: {text}")
    assert why in str(info.value)


def test_format_round_trips_in_name_order() -> None:
    parsed = parse_runtime_config("scheduling.k8s.io/v1beta1=true, api/alpha=false")
    assert format_runtime_config(parsed) == "api/alpha=false,scheduling.k8s.io/v1beta1=true"
    assert parse_runtime_config(format_runtime_config(parsed)) == parsed


def _class(api_version: str) -> dict[str, object]:
    return {"apiVersion": api_version, "kind": "DeviceClass", "metadata": {"name": "gpu"}}


def test_a_client_meets_not_found_naming_the_flag_for_a_version_that_is_off() -> None:
    c = Cluster(config=ClusterConfig(nodes=0))
    with pytest.raises(NotFound) as info:
        c.apply(_class("resource.k8s.io/v1beta1"))
    assert str(info.value) == (
        'no matches for kind "DeviceClass" in version "resource.k8s.io/v1beta1": '
        "resource.k8s.io/v1beta1 is not served unless the apiserver runs with "
        "--runtime-config=resource.k8s.io/v1beta1=true"
    )
    c.apply(_class("resource.k8s.io/v1"))
    for call in (
        lambda: c.get("resource.k8s.io/v1beta1", "DeviceClass", "gpu"),
        lambda: c.list("resource.k8s.io/v1beta2", "DeviceClass"),
        lambda: c.delete("resource.k8s.io/v1beta1", "DeviceClass", "gpu"),
        lambda: list(c.watch("resource.k8s.io/v1beta2", "DeviceClass")),
    ):
        with pytest.raises(NotFound):
            call()
    assert c.get("resource.k8s.io/v1", "DeviceClass", "gpu")["metadata"]["name"] == "gpu"


def test_an_enabled_version_serves_the_same_stored_object() -> None:
    runtime = {"resource.k8s.io/v1beta1": "true"}
    c = Cluster(config=ClusterConfig(nodes=0, runtime_config=runtime))
    c.apply(_class("resource.k8s.io/v1beta1"))
    assert c.get("resource.k8s.io/v1", "DeviceClass", "gpu")["apiVersion"] == "resource.k8s.io/v1"
    with pytest.raises(NotFound):
        c.list("resource.k8s.io/v1beta2", "DeviceClass")


def test_a_gated_kind_needs_both_its_version_and_its_gate() -> None:
    group = {
        "apiVersion": "scheduling.k8s.io/v1beta1",
        "kind": "PodGroup",
        "metadata": {"name": "g", "namespace": "default"},
        "spec": {"schedulingPolicy": {"gang": {"minCount": 1}}},
    }
    on = {"scheduling.k8s.io/v1beta1": "true"}
    only_version = Cluster(config=ClusterConfig(nodes=0, runtime_config=on))
    with pytest.raises(NotFound, match="feature gate GenericWorkload is disabled"):
        only_version.apply(group)
    only_gate = Cluster({"GenericWorkload": True}, config=ClusterConfig(nodes=0))
    with pytest.raises(NotFound, match="--runtime-config=scheduling.k8s.io/v1beta1=true"):
        only_gate.apply(group)
    both = Cluster({"GenericWorkload": True}, config=ClusterConfig(nodes=0, runtime_config=on))
    assert both.apply(group)["metadata"]["name"] == "g"


def test_the_core_group_can_be_switched_off_by_its_api_v1_key() -> None:
    c = Cluster(config=ClusterConfig(nodes=0, runtime_config={"api/v1": "false"}))
    with pytest.raises(NotFound, match="--runtime-config=api/v1=true"):
        c.apply(make_namespace("x").build())


def test_a_bad_cluster_config_is_refused() -> None:
    with pytest.raises(RuntimeConfigError, match="has not been registered"):
        Cluster(config=ClusterConfig(nodes=0, runtime_config={"batch/v2": "true"}))
