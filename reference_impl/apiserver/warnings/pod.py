"""``pkg/api/pod/warnings.go`` (``GetWarningsForPod``, ``GetWarningsForPodTemplate``) and
the pod strategies' warnings (``pkg/registry/core/pod/strategy.go``): WarningsOnCreate
adds the DNS-label name check, WarningsOnUpdate has none (a hot path upstream skips), the
status strategy checks pod and host IPs.

Objects are v1 dicts. Go map order is random, so upstream's tests compare sets; the
reference walks maps in their stored order."""

from __future__ import annotations

from typing import Any, Final

from reference_impl.api.formats import dns1123_label_errors
from reference_impl.apiserver.registry import Context, warner
from reference_impl.apiserver.warnings.node import (
    DEPRECATED_NODE_LABELS,
    node_selector_term_warnings,
)
from reference_impl.apiserver.warnings.persistentvolumeclaim import pvc_spec_warnings
from reference_impl.apiserver.warnings.util import fractional_bytes, go_list, ip_warnings, quote

__all__ = [
    "check_for_overlap", "git_repo_driver", "name_label_warnings", "pod_spec_warnings", "pod_status_warnings",
    "pod_template_warnings", "pod_warnings",
]

Obj = dict[str, Any]

_DEPRECATED_ANNOTATIONS: Final = (
    ("scheduler.alpha.kubernetes.io/critical-pod",
     'non-functional in v1.16+; use the "priorityClassName" field instead'),
    ("security.alpha.kubernetes.io/sysctls", 'non-functional in v1.11+; use the "sysctls" field instead'),
    ("security.alpha.kubernetes.io/unsafe-sysctls",
     'non-functional in v1.11+; use the "sysctls" field instead'),
)  # fmt: skip
# (v1 field, message name, message) of the deprecated and removed volume plugins.
_VOLUME_PLUGINS: Final = (
    ("photonPersistentDisk", "photonPersistentDisk", "deprecated in v1.11, non-functional in v1.16+"),
    ("scaleIO", "scaleIO", "deprecated in v1.16, non-functional in v1.22+"),
    ("flocker", "flocker", "deprecated in v1.22, non-functional in v1.25+"),
    ("storageos", "storageOS", "deprecated in v1.22, non-functional in v1.25+"),
    ("quobyte", "quobyte", "deprecated in v1.22, non-functional in v1.25+"),
    ("glusterfs", "glusterfs", "deprecated in v1.25, non-functional in v1.26+"),
)
_LATE_PLUGINS: Final = (
    ("cephfs", "cephfs", "deprecated in v1.28, non-functional in v1.31+"),
    ("rbd", "rbd", "deprecated in v1.28, non-functional in v1.31+"),
)
_SECCOMP_POD: Final = "seccomp.security.alpha.kubernetes.io/pod"
_SECCOMP_CONTAINER: Final = "container.seccomp.security.alpha.kubernetes.io/"
_APPARMOR_CONTAINER: Final = "container.apparmor.security.beta.kubernetes.io/"
_SECCOMP_MSG: Final = 'non-functional in v1.27+; use the "seccompProfile" field instead'
_NULL_SELECTOR: Final = "a null labelSelector results in matching no pod"
_BYTES: Final = ("memory", "ephemeral-storage")


def _containers(spec: Obj, base: str) -> list[tuple[Obj, str]]:
    """``pods.VisitContainersWithPath``: init, regular, then ephemeral containers."""
    out = []
    for field in ("initContainers", "containers", "ephemeralContainers"):
        for i, c in enumerate(spec.get(field) or ()):
            out.append((c, f"{base}{field}[{i}]"))
    return out


def _apparmor_for_annotation(value: str) -> Obj | None:
    """``ApparmorFieldForAnnotation``, as the v1 dict the field would hold."""
    if value == "unconfined":
        return {"type": "Unconfined"}
    if value == "runtime/default":
        return {"type": "RuntimeDefault"}
    if value.startswith("localhost/") and len(value) > len("localhost/"):
        return {"type": "Localhost", "localhostProfile": value[len("localhost/"):]}
    return None


def check_for_overlap(haystack: list[tuple[str, str]], needle: tuple[str, str]) -> list[tuple[str, str]]:
    """``checkForOverlap``: equal entries, or one path a directory prefix of the other."""
    path = needle[0]
    if not path:
        return []
    out = []
    for item in haystack:
        if not item[0]:
            continue
        if item == needle or (item[0] + "/").startswith(path + "/") or (
            (path + "/").startswith(item[0] + "/")
        ):
            out.append(item)
    return out


def _ps(p: tuple[str, str]) -> str:
    """``pathAndSource.String``."""
    return f"{quote(p[0])} ({p[1]})" if p[1] else quote(p[0])


def _mapping_overlaps(paths: list[tuple[str, str]]) -> list[str]:
    """``checkVolumeMappingForOverlap``."""
    out: list[str] = []
    seen: list[tuple[str, str]] = []
    for raw, source in paths:
        ps = (raw.rstrip("/"), source)
        out += [f"{_ps(ps)} with {_ps(c)}" for c in check_for_overlap(seen, ps)]
        seen.append(ps)
    return out


def _items(src: Obj, source: str) -> list[tuple[str, str]]:
    return [(it.get("path", ""), source) for it in src.get("items") or ()]


def _projected_paths(source: Obj) -> list[tuple[str, str]] | None:
    """One projected source's paths; None for a source with nothing set."""
    cm, secret, dapi = source.get("configMap"), source.get("secret"), source.get("downwardAPI")
    sat, ctb, pc = (source.get("serviceAccountToken"), source.get("clusterTrustBundle"),
                    source.get("podCertificate"))  # fmt: skip
    if cm is None and secret is None and dapi is None and sat is None and ctb is None and pc is None:
        return None
    if cm is not None and cm.get("items") is not None:
        return _items(cm, f"ConfigMap {quote(cm.get('name', ''))}")
    if secret is not None and secret.get("items") is not None:
        return _items(secret, f"Secret {quote(secret.get('name', ''))}")
    if dapi is not None and dapi.get("items") is not None:
        return _items(dapi, "DownwardAPI")
    if sat is not None:
        return [(sat.get("path", ""), "ServiceAccountToken")]
    if ctb is not None:
        name = ctb["name"] if ctb.get("name") is not None else ctb.get("signerName", "")
        return [(ctb.get("path", ""), f"ClusterTrustBundle {quote(name)}")]
    if pc is not None:
        return [(pc[k], what) for k, what in (
            ("certificateChainPath", "PodCertificate chain"), ("keyPath", "PodCertificate key"),
            ("credentialBundlePath", "PodCertificate credential bundle")) if pc.get(k)]  # fmt: skip
    return []


def _overlapping_virtual_paths(volumes: list[Obj]) -> list[str]:
    """``warningsForOverlappingVirtualPaths``."""
    out: list[str] = []
    for v in volumes:
        name = quote(v.get("name", ""))
        cm, secret, dapi, proj = (v.get("configMap"), v.get("secret"), v.get("downwardAPI"),
                                  v.get("projected"))  # fmt: skip
        if cm is not None and cm.get("items") is not None:
            desc = f"ConfigMap {quote(cm.get('name', ''))}"
            out += [f"volume {name} ({desc}): overlapping paths: {o}"
                    for o in _mapping_overlaps(_items(cm, ""))]  # fmt: skip
        if secret is not None and secret.get("items") is not None:
            desc = f"Secret {quote(secret.get('secretName', ''))}"
            out += [f"volume {name} ({desc}): overlapping paths: {o}"
                    for o in _mapping_overlaps(_items(secret, ""))]  # fmt: skip
        if dapi is not None and dapi.get("items") is not None:
            out += [f"volume {name} (DownwardAPI): overlapping paths: {o}"
                    for o in _mapping_overlaps(_items(dapi, ""))]  # fmt: skip
        if proj is not None:
            seen: list[tuple[str, str]] = []
            for source in proj.get("sources") or ():
                paths = _projected_paths(source or {})
                if paths is None:
                    out.append(f"volume {name} (Projected) has no sources provided")
                    continue
                for raw, src in paths:
                    ps = (raw.rstrip("/"), src)
                    out += [f"volume {name} (Projected): overlapping paths: {_ps(ps)} with {_ps(c)}"
                            for c in check_for_overlap(seen, ps)]  # fmt: skip
                    seen.append(ps)
    return out


def _port_text(port: Obj) -> str:
    """Go's ``%+v`` of the internal ContainerPort."""
    return (f"{{Name:{port.get('name', '')} HostPort:{port.get('hostPort', 0)} "
            f"ContainerPort:{port.get('containerPort', 0)} Protocol:{port.get('protocol', '')} "
            f"HostIP:{port.get('hostIP', '')}}}")  # fmt: skip


def _env_warnings(env: list[Obj], base: str) -> list[str]:
    """Duplicate env names that hide an earlier definition from apply."""
    out: list[str] = []
    seen: set[str] = set()
    for i, item in enumerate(env):
        name = item.get("name", "")
        if name not in seen:
            seen.add(name)
            continue
        ref = f"$({name})"
        value = item.get("value", "")
        if item.get("valueFrom") is not None or value == ref or ref not in value:
            out.append(f"{base}.env[{i}]: hides previous definition of {quote(name)}, which may be "
                       "dropped when using apply")  # fmt: skip
    return out


def _port_warnings(containers: list[tuple[Obj, str]]) -> list[str]:
    """The hostIP-without-hostPort, duplicate and overlapping port checks, then duplicate
    port names, across all containers."""
    out: list[str] = []
    by_key: dict[str, list[tuple[str, Obj]]] = {}
    for c, base in containers:
        for i, port in enumerate(c.get("ports") or ()):
            here = f"{base}.ports[{i}]"
            host_ip, host_port = port.get("hostIP", ""), port.get("hostPort", 0)
            if host_ip and not host_port:
                out.append(f"{here}: hostIP set without hostPort: {_port_text(port)}")
            key = f"{port.get('containerPort', 0)}/{port.get('protocol', '')}"
            others = by_key.setdefault(key, [])
            for where, other in others:
                o_ip, o_port = other.get("hostIP", ""), other.get("hostPort", 0)
                if host_ip == o_ip and host_port == o_port:
                    out.append(f"{here}: duplicate port definition with {where}")
                elif not host_port or not o_port:
                    out.append(f"{here}: overlapping port definition with {where}")
                elif host_port == o_port and (not host_ip) != (not o_ip):
                    out.append(f"{here}: dangerously ambiguous port definition with {where}")
            others.append((here, port))
    names: dict[str, str] = {}
    for c, base in containers:
        for i, port in enumerate(c.get("ports") or ()):
            name = port.get("name", "")
            if not name:
                continue
            first = names.get(name)
            if first is not None:
                out.append(f"{base}.ports[{i}]: duplicate port name {quote(name)} with {first}, "
                           f"services and probes that select ports by name will use {first}")
            else:
                names[name] = f"{base}.ports[{i}]"
    return out


def _affinity_term_warnings(terms: list[Obj], base: str, weighted: bool) -> list[str]:
    out = []
    for i, t in enumerate(terms or ()):
        term = (t.get("podAffinityTerm") or {}) if weighted else t
        if term.get("labelSelector") is None:
            where = f"{base}[{i}].podAffinityTerm.labelSelector" if weighted else f"{base}[{i}].labelSelector"
            out.append(f"{where}: {_NULL_SELECTOR}")
    return out


def _dup_warnings(items: list[Obj], key: str, base: str, what: str) -> list[str]:
    out: list[str] = []
    seen: set[str] = set()
    for i, item in enumerate(items):
        v = item.get(key, "")
        if v in seen:
            out.append(f"{base}[{i}].{key}: duplicate {what} {quote(v)}")
        else:
            seen.add(v)
    return out


def pod_spec_warnings(prefix: str, spec: Obj, meta: Obj, git_repo_driver: bool = False) -> list[str]:
    """``warningsForPodSpecAndMeta``: ``prefix`` is the field path of the template ("" for
    a pod, else e.g. "spec.template."); ``git_repo_driver`` the GitRepoVolumeDriver gate
    (off and locked since 1.36)."""
    out: list[str] = []
    s = f"{prefix}spec."
    ann = meta.get("annotations") or {}
    for k in spec.get("nodeSelector") or ():
        if k in DEPRECATED_NODE_LABELS:
            out.append(f"{s}nodeSelector[{k}]: {DEPRECATED_NODE_LABELS[k]}")
    affinity = spec.get("affinity") or {}
    node_aff = affinity.get("nodeAffinity")
    if node_aff:
        required = node_aff.get("requiredDuringSchedulingIgnoredDuringExecution")
        if required is not None:
            base = f"{s}affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms"
            for i, term in enumerate(required.get("nodeSelectorTerms") or ()):
                out += node_selector_term_warnings(term, False, f"{base}[{i}]")
        base = f"{s}affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution"
        for i, pref in enumerate(node_aff.get("preferredDuringSchedulingIgnoredDuringExecution") or ()):
            out += node_selector_term_warnings(pref.get("preference") or {}, True, f"{base}[{i}].preference")
    for i, t in enumerate(spec.get("topologySpreadConstraints") or ()):
        key = t.get("topologyKey", "")
        where = f"{s}topologySpreadConstraints[{i}]"
        if key in DEPRECATED_NODE_LABELS:
            out.append(f"{where}.topologyKey: {key} is {DEPRECATED_NODE_LABELS[key]}")
        if t.get("labelSelector") is None:
            out.append(f"{where}.labelSelector: {_NULL_SELECTOR}")
    if ann:
        for key, msg in _DEPRECATED_ANNOTATIONS:
            if key in ann:
                out.append(f"{prefix}metadata.annotations[{key}]: {msg}")
    volumes = spec.get("volumes") or []
    if volumes:
        out += _volume_warnings(s, volumes, git_repo_driver)
    aliases = spec.get("hostAliases") or []
    if len(aliases) > 1:
        out += _dup_warnings(aliases, "ip", f"{s}hostAliases", "ip")
    pull = spec.get("imagePullSecrets") or []
    if len(pull) > 1:
        out += _dup_warnings(pull, "name", f"{s}imagePullSecrets", "name")
    for i, item in enumerate(pull):
        if not item.get("name"):
            out.append(f'{s}imagePullSecrets[{i}].name: invalid empty name ""')
    overhead = spec.get("overhead") or {}
    for r in _BYTES:
        if r in overhead:
            out += fractional_bytes(f"{s}overhead[{r}]", overhead[r])
    pod_sc = spec.get("securityContext") or {}
    if pod_sc.get("seccompProfile") is None and _SECCOMP_POD in ann:
        out.append(f"{prefix}metadata.annotations[{_SECCOMP_POD}]: {_SECCOMP_MSG}")
    containers = _containers(spec, s)
    for c, base in containers:
        out += _container_warnings(c, base, prefix, ann, pod_sc)
    out += _port_warnings(containers)
    grace = spec.get("terminationGracePeriodSeconds")
    if grace is not None and grace < 0:
        out.append(f"{s}terminationGracePeriodSeconds: must be >= 0; negative values are invalid "
                   "and will be treated as 1")  # fmt: skip
    for kind in ("podAffinity", "podAntiAffinity"):
        pa = affinity.get(kind)
        if pa:
            base = f"{s}affinity.{kind}."
            out += _affinity_term_warnings(
                pa.get("requiredDuringSchedulingIgnoredDuringExecution"),
                base + "requiredDuringSchedulingIgnoredDuringExecution", False)
            out += _affinity_term_warnings(
                pa.get("preferredDuringSchedulingIgnoredDuringExecution"),
                base + "preferredDuringSchedulingIgnoredDuringExecution", True)
    for i, ns in enumerate((spec.get("dnsConfig") or {}).get("nameservers") or ()):
        out += ip_warnings(f"{s}dnsConfig.nameservers[{i}]", ns)
    for i, alias in enumerate(aliases):
        out += ip_warnings(f"{s}hostAliases[{i}].ip", alias.get("ip", ""))
    return out


def git_repo_driver(ctx: Context) -> bool:
    """The GitRepoVolumeDriver gate; the reference lists no gate once it is locked off."""
    return "GitRepoVolumeDriver" in ctx.gates and ctx.gates.enabled("GitRepoVolumeDriver")


def _volume_warnings(s: str, volumes: list[Obj], git_repo_on: bool) -> list[str]:
    out: list[str] = []
    for i, v in enumerate(volumes):
        at = f"{s}volumes[{i}]"
        for field, name, msg in _VOLUME_PLUGINS[:1]:
            if v.get(field) is not None:
                out.append(f"{at}.{name}: {msg}")
        if v.get("gitRepo") is not None:
            tail = "" if git_repo_on else ", and disabled by default in v1.33+"
            out.append(f"{at}.gitRepo: deprecated in v1.11{tail}")
        for field, name, msg in _VOLUME_PLUGINS[1:]:
            if v.get(field) is not None:
                out.append(f"{at}.{name}: {msg}")
        eph = v.get("ephemeral")
        if eph is not None and eph.get("volumeClaimTemplate") is not None:
            template = eph["volumeClaimTemplate"]
            out += pvc_spec_warnings(f"{at}.ephemeral.volumeClaimTemplate.spec", template.get("spec") or {})
        for field, name, msg in _LATE_PLUGINS:
            if v.get(field) is not None:
                out.append(f"{at}.{name}: {msg}")
    return out + _overlapping_virtual_paths(volumes)


def _container_warnings(c: Obj, base: str, prefix: str, ann: Obj, pod_sc: Obj) -> list[str]:
    out: list[str] = []
    sc = c.get("securityContext") or {}
    name = c.get("name", "")
    if ann:
        if sc.get("seccompProfile") is None and _SECCOMP_CONTAINER + name in ann:
            out.append(f"{prefix}metadata.annotations[{_SECCOMP_CONTAINER}{name}]: {_SECCOMP_MSG}")
        # A pod's AppArmor warnings come from applyAppArmorVersionSkew; only templates warn.
        if prefix and sc.get("appArmorProfile") is None:
            key = _APPARMOR_CONTAINER + name
            if key in ann:
                pod_profile = pod_sc.get("appArmorProfile")
                if pod_profile is None or pod_profile != _apparmor_for_annotation(ann[key]):
                    out.append(f"{prefix}metadata.annotations[{key}]: deprecated since v1.30; "
                               'use the "appArmorProfile" field instead')  # fmt: skip
    resources = c.get("resources")
    if resources:
        limits, requests = resources.get("limits") or {}, resources.get("requests") or {}
        for r in _BYTES:
            if r in limits:
                out += fractional_bytes(f"{base}.resources.limits[{r}]", limits[r])
            if r in requests:
                out += fractional_bytes(f"{base}.resources.requests[{r}]", requests[r])
    env = c.get("env")
    if env and len(env) > 1:
        out += _env_warnings(env, base)
    return out


def pod_template_warnings(path: str, template: Obj | None, ctx: Context | None) -> list[str]:
    """``GetWarningsForPodTemplate`` at ``path`` (e.g. "spec.template"); "" is a nil path."""
    if template is None:
        return []
    prefix = f"{path}." if path else ""
    gate = ctx is not None and git_repo_driver(ctx)
    return pod_spec_warnings(prefix, template.get("spec") or {}, template.get("metadata") or {}, gate)


def name_label_warnings(obj: Obj, used_in: str) -> list[str]:
    """The WarningsOnCreate check that the name is a DNS label (``IsDNS1123Label``)."""
    msgs = dns1123_label_errors(obj["metadata"].get("name", ""))
    if not msgs:
        return []
    return [f"metadata.name: this is used in {used_in}, which can result in surprising behavior; "
            f"a DNS label is recommended: {go_list(msgs)}"]  # fmt: skip


@warner("Pod")
def pod_warnings(pod: Obj, old: Obj | None, ctx: Context) -> list[str]:
    """podStrategy.WarningsOnCreate; WarningsOnUpdate returns nil."""
    if old is not None:
        return []
    out = name_label_warnings(pod, "the Pod's hostname")
    return out + pod_spec_warnings("", pod.get("spec") or {}, pod["metadata"], git_repo_driver(ctx))


@warner("Pod", status=True)
def pod_status_warnings(pod: Obj, old: Obj | None, ctx: Context) -> list[str]:
    """podStatusStrategy.WarningsOnUpdate: non-standard pod and host IPs."""
    status = pod.get("status") or {}
    out: list[str] = []
    for field in ("podIPs", "hostIPs"):
        for i, item in enumerate(status.get(field) or ()):
            out += ip_warnings(f"status.{field}[{i}].ip", item.get("ip", ""))
    return out
