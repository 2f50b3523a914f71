"""The kube-proxy mode probe (KEP-5343: warn when no mode is set; KEP-5495: IPVS deprecated).

Proxy mode is kube-proxy configuration, not API (no field exists). The probe reads the
reference cluster's KubeProxyConfiguration, or a live cluster's ConfigMap
``kube-system/kube-proxy``; a cluster without kube-proxy (KWOK) is reported, not failed.
"""

from __future__ import annotations

import pytest

from fixtures import Target, assess_kube_proxy_config, parse_kube_proxy_conf, probe_kube_proxy
from reference_impl.errors import NotFound

pytestmark = [pytest.mark.conformance]

API = "kubeproxy.config.k8s.io/v1alpha1"


def _config(mode: str) -> dict[str, str]:
    return {"apiVersion": API, "kind": "KubeProxyConfiguration", "mode": mode}


def _has_kube_proxy_configmap(target: Target) -> bool:
    try:
        target.get("v1", "ConfigMap", "kube-proxy", "kube-system")
    except NotFound:
        return False
    return True


@pytest.mark.feature("KEP-5343")
def test_the_probe_reports_the_targets_kube_proxy_configuration_or_its_absence(
    target: Target,
) -> None:
    """kube-proxy probe on the target.

    The probe MUST either assess a KubeProxyConfiguration (status ``present``, its mode
    recorded, a warning if the mode is unset or ipvs) or, where the cluster runs no
    kube-proxy, report ``absent`` saying so, without a mode and without failing.
    """
    result = probe_kube_proxy(target)
    assert result.name == "KPROXY"
    if result.status == "absent":
        assert "no kube-proxy configuration found" in result.message
        assert result.mode is None and result.nftables_ready is None
        assert not _has_kube_proxy_configmap(target) or "config.conf" in result.evidence[0]
        return
    assert result.status == "present"
    assert result.mode is not None
    assert (not result.mode or result.mode == "ipvs") == bool(result.warnings)


@pytest.mark.feature("KEP-5343")
def test_an_unset_mode_gets_the_kep_5343_warning(target: Target) -> None:
    """kube-proxy unset mode warns.

    A KubeProxyConfiguration without ``mode`` (or with ``mode: ""``) MUST produce a
    warning naming KEP-5343, and MUST NOT be reported as nftables-ready.
    """
    for config in (_config(""), {"apiVersion": API, "kind": "KubeProxyConfiguration"}):
        result = assess_kube_proxy_config(config, "test")
        assert any("KEP-5343" in w for w in result.warnings)
        assert result.nftables_ready is False
    # A default kube-proxy leaves the mode unset: where the target exposes one, it warns.
    on_target = probe_kube_proxy(target)
    if on_target.status == "present" and not on_target.mode:
        assert any("KEP-5343" in w for w in on_target.warnings)


@pytest.mark.feature("KEP-5495")
def test_ipvs_mode_gets_the_deprecation_warning() -> None:
    """kube-proxy IPVS deprecated.

    Mode ``ipvs`` MUST produce a warning naming KEP-5495 (deprecated), and only that
    warning; it is not nftables-ready.
    """
    result = assess_kube_proxy_config(_config("ipvs"), "test")
    assert len(result.warnings) == 1 and "KEP-5495" in result.warnings[0]
    assert "deprecated" in result.warnings[0]
    assert result.mode == "ipvs" and result.nftables_ready is False


@pytest.mark.feature("KEP-5495")
def test_nftables_mode_is_ready_and_warns_about_nothing() -> None:
    """kube-proxy nftables ready.

    Mode ``nftables`` MUST be reported nftables-ready with no warnings; ``iptables`` MUST
    be neither ready nor warned about.
    """
    nft = assess_kube_proxy_config(_config("nftables"), "test")
    assert nft.nftables_ready is True and nft.warnings == ()
    ipt = assess_kube_proxy_config(_config("iptables"), "test")
    assert ipt.nftables_ready is False and ipt.warnings == ()


@pytest.mark.feature("KEP-5343")
def test_a_kubeadm_config_conf_is_parsed_and_anything_else_is_refused() -> None:
    """kube-proxy config.conf parsing.

    The YAML ``config.conf`` of a kubeadm kube-proxy ConfigMap MUST parse into its
    KubeProxyConfiguration (mode kept); a document of another kind MUST be refused with
    ValueError rather than assessed.
    """
    text = (
        f"apiVersion: {API}\nkind: KubeProxyConfiguration\nmode: ipvs\nclusterCIDR: 10.244.0.0/16\n"
    )
    parsed = parse_kube_proxy_conf(text)
    assert parsed["mode"] == "ipvs"
    assert assess_kube_proxy_config(parsed, "config.conf").warnings
    with pytest.raises(ValueError):
        parse_kube_proxy_conf("apiVersion: v1\nkind: ConfigMap\n")
