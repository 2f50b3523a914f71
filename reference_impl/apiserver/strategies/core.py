"""Defaulting and validation for core/v1 Pods (Node: ``node.py``; Namespace: ``namespace.py``).

Models ``pkg/apis/core/v1/defaults.go`` and ``pkg/apis/core/validation/validation.go`` for
the fields the reference acts on; enums and limits that the OpenAPI schema leaves to the
server (taint effects, toleration operators, restart policies) are enforced here.
"""

from __future__ import annotations

import copy
import re
from typing import Any, Final

from reference_impl.api.meta import (
    dns1123_label_errors,
    label_key_errors,
    label_value_errors,
    parse_quantity,
)
from reference_impl.apiserver.quota.pod_resources import compute_pod_qos
from reference_impl.apiserver.registry import Context, defaulter, preparer, validator
from reference_impl.apiserver.strategies.pod_level_defaults import default_pod_level_resources
from reference_impl.apiserver.strategies.pod_source_defaults import (
    default_container_sources,
    default_volume_source,
)
from reference_impl.apiserver.strategies.pod_spec import pod_spec_causes
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.apiserver.validation import pod_volumes
from reference_impl.apiserver.validation.pod_annotations import (
    apparmor_annotation_field_causes,
    apply_apparmor_version_skew,
    pod_annotation_causes,
    seccomp_annotation_field_causes,
)
from reference_impl.apiserver.validation.pod_status import pod_status_causes
from reference_impl.apiserver.validation.pod_update import pod_update_causes
from reference_impl.errors import Cause
from reference_impl.features import FeatureGates

__all__ = ["pod_qos_class", "toleration_causes"]

Obj = dict[str, Any]
TAINT_EFFECTS: Final = ("NoSchedule", "PreferNoSchedule", "NoExecute")
RESTART_POLICIES: Final = ("Always", "OnFailure", "Never")
POD_PHASES: Final = ("Pending", "Running", "Succeeded", "Failed", "Unknown")
_CONTAINER_LISTS: Final = ("initContainers", "containers")


def _containers(spec: Obj) -> list[tuple[str, int, Obj]]:
    return [(lst, i, c) for lst in _CONTAINER_LISTS for i, c in enumerate(spec.get(lst) or [])]


# SetDefaults_Probe: a zero (or absent) field takes these.
_PROBE_DEFAULTS: Final = (("timeoutSeconds", 1), ("periodSeconds", 10), ("successThreshold", 1), ("failureThreshold", 3))


def _default_handlers(c: Obj) -> None:
    """``SetDefaults_Probe`` and ``SetDefaults_HTTPGetAction`` of a container's probes and hooks."""
    lc = c.get("lifecycle")
    hooks = [lc.get(k) for k in ("postStart", "preStop")] if isinstance(lc, dict) else []
    for kind in ("livenessProbe", "readinessProbe", "startupProbe"):
        probe = c.get(kind)
        if isinstance(probe, dict):
            hooks.append(probe)
            for name, value in _PROBE_DEFAULTS:
                if not probe.get(name):
                    probe[name] = value
    for h in hooks:
        get = h.get("httpGet") if isinstance(h, dict) else None
        if isinstance(get, dict):
            get["path"] = get.get("path") or "/"
            get["scheme"] = get.get("scheme") or "HTTP"


# distribution/reference's grammar (a domain, lowercase path components, tag, digest).
_DOMAIN: Final = r"(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)*(?::[0-9]+)?"
_PATH_PART: Final = r"[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*"
_IMAGE_REF: Final = re.compile(
    rf"(?P<name>(?:{_DOMAIN}/)?{_PATH_PART}(?:/{_PATH_PART})*)(?::(?P<tag>[\w][\w.-]{{0,127}}))?"
    r"(?:@(?P<digest>[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}))?"
)


def _normalized(name: str) -> str:
    """``ParseNormalizedNamed``'s full name: docker.io (and library/) where no domain is."""
    first, _, rest = name.partition("/")
    if rest and (any(ch in first for ch in ".:") or first == "localhost" or first.lower() != first):
        return name
    return f"docker.io/{name}" if rest else f"docker.io/library/{name}"


def _image_pull_policy(image: str) -> str:
    """``SetDefaults_Container``: Always for the tag "latest" (``ParseImageName`` gives it
    to a reference with neither tag nor digest), else IfNotPresent (an unparsable image too)."""
    m = _IMAGE_REF.fullmatch(image)
    if m is None or len(_normalized(m["name"])) > 255 or re.fullmatch(r"[a-f0-9]{64}", image):
        return "IfNotPresent"
    tag = m["tag"] or ("" if m["digest"] else "latest")
    return "Always" if tag == "latest" else "IfNotPresent"


def pod_qos_class(spec: Obj, gates: FeatureGates) -> str:
    """The QoS class of a pod spec: ``qos.ComputePodQOS`` (pod-level resources decide
    when set; else the containers' classes, init containers first, must agree)."""
    return compute_pod_qos(
        {"spec": spec},
        pod_level=gates.enabled("PodLevelResources"),
        fix_kubelet_qos=gates.enabled("PodLevelResourcesFixKubeletQOSClass"),
    )


@defaulter("Pod")
def default_pod(pod: Obj, ctx: Context) -> None:
    """Fill the fields the apiserver defaults, so the reference stores what upstream stores."""
    spec = pod.setdefault("spec", {})
    if not spec.get("restartPolicy"):  # SetDefaults_PodSpec: "" too
        spec["restartPolicy"] = "Always"
    if not spec.get("dnsPolicy"):  # SetDefaults_PodSpec: "" too
        spec["dnsPolicy"] = "ClusterFirst"
    spec.setdefault("schedulerName", "default-scheduler")
    spec.setdefault("terminationGracePeriodSeconds", 30)
    spec.setdefault("securityContext", {})
    if pod.get("apiVersion"):  # SetDefaults_Pod only: templates keep it unset
        spec.setdefault("enableServiceLinks", True)
        grace = spec.get("terminationGracePeriodSeconds")
        if isinstance(grace, int) and not isinstance(grace, bool) and grace < 0:
            spec["terminationGracePeriodSeconds"] = 1  # SetDefaults_Pod: negative is 1
    for v in spec.get("volumes") or []:
        if isinstance(v, dict) and set(v) <= {"name"}:  # SetDefaults_Volume
            v["emptyDir"] = {}
        if isinstance(v, dict):
            pod_volumes.default_azure_disk(v.get("azureDisk"))
            pod_volumes.default_claim_template(v.get("ephemeral"))
            default_volume_source(v)
            image = v.get("image")
            if isinstance(image, dict) and not image.get("pullPolicy"):  # SetDefaults_Volume (ImageVolume, GA)
                image["pullPolicy"] = _image_pull_policy(str(image.get("reference") or ""))
    for _, _, c in _containers(spec):
        default_container_sources(c)
        c.setdefault("terminationMessagePath", "/dev/termination-log")
        if not c.get("terminationMessagePolicy"):  # SetDefaults_Container: "" too
            c["terminationMessagePolicy"] = "File"
        for port in c.get("ports") or []:  # the generated ContainerPort default: "" too
            if isinstance(port, dict) and not port.get("protocol"):
                port["protocol"] = "TCP"
        if spec.get("hostNetwork") and pod.get("apiVersion"):  # SetDefaults_Pod only
            for port in c.get("ports") or []:
                if isinstance(port, dict) and not port.get("hostPort"):
                    port["hostPort"] = port.get("containerPort")
        life = c.get("lifecycle")
        if isinstance(life, dict) and "stopSignal" in life:  # ContainerStopSignals is off: dropped
            life.pop("stopSignal")
            if not any(v is not None for v in life.values()):  # dropContainerStopSignals: nil
                c.pop("lifecycle")
        _default_handlers(c)
        if not c.get("imagePullPolicy"):  # "" too
            c["imagePullPolicy"] = _image_pull_policy(str(c.get("image") or ""))
        res = c.setdefault("resources", {})
        for name, value in (res.get("limits") or {}).items():
            res.setdefault("requests", {}).setdefault(name, value)


# ``applySchedulingGatedCondition``: a gated pod says why it waits.
_GATED: Final = {
    "type": "PodScheduled",
    "status": "False",
    "reason": "SchedulingGated",
    "message": "Scheduling is blocked due to non-empty scheduling gates",
}


@preparer("Pod")
def prepare_pod_qos(pod: Obj, old: Obj | None, now: str, ctx: Context) -> None:
    """PrepareForCreate: a fresh Pending status (with the scheduling-gated condition), the
    pod-level resources defaulted, then the QoS class of the spec as admission
    (LimitRanger) and that defaulting left it."""
    if old is not None:
        return
    spec = pod.get("spec")
    pod["status"] = {"phase": "Pending"}  # a client's status is dropped
    if isinstance(spec, dict) and spec.get("schedulingGates"):
        # lastProbeTime: a zero metav1.Time, which upstream writes as null.
        pod["status"]["conditions"] = [{**_GATED, "lastProbeTime": None, "lastTransitionTime": now}]
    if isinstance(spec, dict):
        default_pod_level_resources(spec, ctx.gates)
    try:
        pod["status"]["qosClass"] = pod_qos_class(pod.get("spec") or {}, ctx.gates)
    except ValueError:
        pass  # validation reports the bad quantity


@preparer("Pod")
def keep_pod_level_resources(pod: Obj, old: Obj | None, now: str, ctx: Context) -> None:
    """``podStrategy.PrepareForUpdate`` (PodLevelResourcesFixDefaulting): a write that drops
    ``spec.resources`` entirely keeps the stored pod-level resources (a client unaware of
    them is not changing them)."""
    if old is None or not ctx.gates.enabled("PodLevelResourcesFixDefaulting"):
        return
    spec, old_spec = pod.get("spec"), old.get("spec")
    if isinstance(spec, dict) and isinstance(old_spec, dict):
        if spec.get("resources") is None and old_spec.get("resources") is not None:
            spec["resources"] = copy.deepcopy(old_spec["resources"])


@preparer("Pod")
def drop_disabled_eviction_responders(pod: Obj, old: Obj | None, now: str, ctx: Context) -> None:
    """``dropDisabledEvictionResponders``: without EvictionRequestAPI the field goes,
    unless the stored pod already uses it."""
    if ctx.gates.enabled("EvictionRequestAPI"):
        return
    if old is not None and (old.get("spec") or {}).get("evictionResponders"):
        return
    spec = pod.get("spec")
    if isinstance(spec, dict):
        spec.pop("evictionResponders", None)


@preparer("Pod")
def apparmor_version_skew(pod: Obj, old: Obj | None, now: str, ctx: Context) -> None:
    """PrepareForCreate's ``applyAppArmorVersionSkew``."""
    if old is None:
        apply_apparmor_version_skew(pod)


def toleration_causes(tolerations: list[Obj], path: str) -> list[Cause]:
    """Server-side rules of ``[]Toleration`` (operator, effect, value, tolerationSeconds)."""
    causes: list[Cause] = []
    for i, t in enumerate(tolerations):
        p = f"{path}[{i}]"
        op = t.get("operator") or "Equal"  # "" means Equal
        if op not in ("Equal", "Exists"):
            causes.append(
                Cause(
                    f"{p}.operator",
                    "FieldValueNotSupported",
                    f'Unsupported value: "{op}": supported values: "Equal", "Exists"',
                )
            )
        if op == "Equal" and t.get("value"):
            causes += [fe.invalid(f"{p}.operator", t["value"], e) for e in label_value_errors(str(t["value"]))]
        if op == "Exists" and t.get("value"):
            causes.append(
                Cause(
                    f"{p}.operator",
                    "FieldValueInvalid",
                    "value must be empty when `operator` is 'Exists'",
                )
            )
        if not t.get("key") and op != "Exists":
            causes.append(
                Cause(
                    f"{p}.operator",
                    "FieldValueInvalid",
                    'operator must be Exists when `key` is empty, which means "match all values and all keys"',
                )
            )
        if t.get("key"):
            causes += [
                Cause(f"{p}.key", "FieldValueInvalid", e) for e in label_key_errors(t["key"])
            ]
        effect = t.get("effect")
        if effect and effect not in TAINT_EFFECTS:
            causes.append(
                Cause(
                    f"{p}.effect",
                    "FieldValueNotSupported",
                    f'Unsupported value: "{effect}": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
                )
            )
        if t.get("tolerationSeconds") is not None and effect != "NoExecute":
            causes.append(
                Cause(
                    f"{p}.effect",
                    "FieldValueInvalid",
                    "effect must be 'NoExecute' when `tolerationSeconds` is set",
                )
            )
    return causes


def _resource_causes(c: Obj, path: str) -> list[Cause]:
    causes: list[Cause] = []
    res = c.get("resources") or {}
    parsed: dict[str, dict[str, Any]] = {}
    for kind in ("requests", "limits"):
        for name, value in sorted((res.get(kind) or {}).items()):
            try:
                q = parse_quantity(value)
            except ValueError as e:
                causes.append(
                    Cause(f"{path}.resources.{kind}[{name}]", "FieldValueInvalid", str(e))
                )
                continue
            if q < 0:
                causes.append(
                    Cause(
                        f"{path}.resources.{kind}[{name}]",
                        "FieldValueInvalid",
                        "must be greater than or equal to 0",
                    )
                )
            parsed.setdefault(kind, {})[name] = q
    for name, req in sorted(parsed.get("requests", {}).items()):
        lim = parsed.get("limits", {}).get(name)
        if lim is not None and req > lim:
            causes.append(
                Cause(
                    f"{path}.resources.requests",
                    "FieldValueInvalid",
                    f'Invalid value: "{res["requests"][name]}": must be less than or equal to '
                    f"{name} limit of {res['limits'][name]}",
                )
            )
    return causes


def resize_policy_causes(c: Obj, path: str, pod_restart: str | None = None) -> list[Cause]:
    """``validateResizePolicy``: unique, cpu/memory only, NotRequired or RestartContainer
    (its errors sit on the list's path), NotRequired only when the pod never restarts."""
    causes: list[Cause] = []
    p = f"{path}.resizePolicy"
    seen: set[str] = set()
    for j, rp in enumerate(c.get("resizePolicy") or ()):
        name, policy = rp.get("resourceName") or "", rp.get("restartPolicy") or ""
        if name in seen:
            causes.append(fe.duplicate(f"{p}[{j}]", name))
        seen.add(name)
        if not name:
            causes.append(fe.required(p))
        elif name not in ("cpu", "memory"):
            causes.append(fe.not_supported(p, name, ("cpu", "memory")))
        if not policy:
            causes.append(fe.required(p))
        elif policy not in ("NotRequired", "RestartContainer"):
            causes.append(fe.not_supported(p, policy, ("NotRequired", "RestartContainer")))
        if pod_restart == "Never" and policy != "NotRequired":
            causes.append(fe.invalid(p, policy, "must be 'NotRequired' when pod `restartPolicy` is 'Never'"))
    return causes


def _restart_container_on(c: Any) -> list[int]:
    """The resizePolicy indexes of a non-sidecar init container that say RestartContainer."""
    if not isinstance(c, dict) or c.get("restartPolicy") == "Always":
        return []
    rps = c.get("resizePolicy") or ()
    return [j for j, rp in enumerate(rps) if isinstance(rp, dict) and rp.get("restartPolicy") == "RestartContainer"]


def _init_restart_container_causes(spec: Obj, old_spec: Obj | None) -> list[Cause]:
    """``validateInitContainers``: a non-sidecar init container may not restart on resize,
    unless the old spec had one that did (AllowExistingRestartContainerForNonSidecarInitContainer)."""
    if old_spec is not None and any(_restart_container_on(c) for c in old_spec.get("initContainers") or ()):
        return []
    msg = "must not be set to 'RestartContainer' for non-sidecar initContainers"
    return [
        fe.invalid(f"spec.initContainers[{i}].resizePolicy[{j}].restartPolicy", "RestartContainer", msg)
        for i, c in enumerate(spec.get("initContainers") or ())
        for j in _restart_container_on(c)
    ]


_SPEC_ONLY_SUBRESOURCES: Final = ("resize", "ephemeralcontainers")


@validator("Pod")
def validate_pod(pod: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """PodSpec rules on create, and the update restrictions on update."""
    spec = pod.get("spec") or {}
    causes: list[Cause] = []
    if not spec.get("containers"):
        causes.append(Cause("spec.containers", "FieldValueRequired", "Required value"))
    seen: set[str] = set()
    # validateContainers runs before validateInitContainers: a clash is the init one's.
    for lst, i, c in sorted(_containers(spec), key=lambda t: t[0] != "containers"):
        p = f"spec.{lst}[{i}]"
        name = c.get("name", "")
        if not name:
            causes.append(Cause(f"{p}.name", "FieldValueRequired", "Required value"))
        causes += [
            Cause(f"{p}.name", "FieldValueInvalid", f"Invalid value: {name!r}: {e}")
            for e in (dns1123_label_errors(name) if name else [])
        ]
        if name in seen:
            causes.append(Cause(f"{p}.name", "FieldValueDuplicate", f'Duplicate value: "{name}"'))
        seen.add(name)
        if not c.get("image"):
            causes.append(Cause(f"{p}.image", "FieldValueRequired", "Required value"))
        causes += _resource_causes(c, p)
        causes += resize_policy_causes(c, p, spec.get("restartPolicy"))
    for i, c in enumerate(spec.get("ephemeralContainers") or []):  # validateContainerCommon's
        if isinstance(c, dict):
            causes += resize_policy_causes(c, f"spec.ephemeralContainers[{i}]", spec.get("restartPolicy"))
    causes += _init_restart_container_causes(spec, None if old is None else old.get("spec") or {})
    rp = spec.get("restartPolicy")
    if not rp:  # validateRestartPolicy: "" is Required, anything else unknown NotSupported
        causes.append(fe.required("spec.restartPolicy"))
    elif rp not in RESTART_POLICIES:
        causes.append(
            Cause(
                "spec.restartPolicy",
                "FieldValueNotSupported",
                f'Unsupported value: "{rp}": supported values: "Always", "OnFailure", "Never"',
            )
        )
    ads = spec.get("activeDeadlineSeconds")
    if isinstance(ads, int) and not 1 <= ads <= 2**31 - 1:
        causes.append(
            fe.invalid("spec.activeDeadlineSeconds", ads, "must be between 1 and 2147483647, inclusive")
        )
    causes += toleration_causes(spec.get("tolerations") or [], "spec.tolerations")
    for k, v in sorted((spec.get("nodeSelector") or {}).items()):
        causes += [
            Cause("spec.nodeSelector", "FieldValueInvalid", e)
            for e in label_key_errors(k) + label_value_errors(str(v))
        ]
    for i, g in enumerate(spec.get("schedulingGates") or []):
        causes += [
            Cause(f"spec.schedulingGates[{i}]", "FieldValueInvalid", e)
            for e in label_key_errors(g.get("name", ""))
        ]
    # ValidatePodCreate's own checks; the resize and ephemeralcontainers subresources
    # run only validatePodMetadataAndSpec (through these validators, with no old pod).
    creating = old is None and ctx.subresource not in _SPEC_ONLY_SUBRESOURCES
    if spec.get("nodeName") and spec.get("schedulingGates") and creating:
        causes.append(
            Cause(
                "spec.nodeName",
                "FieldValueForbidden",
                "cannot be set until all schedulingGates have been cleared",
            )
        )
    # A pod template (apps, batch) comes without apiVersion; its ephemeral containers are
    # ValidatePodTemplateSpec's to refuse.
    is_template = pod.get("apiVersion") is None
    meta = None if is_template else (pod.get("metadata") or {})
    causes += pod_spec_causes(spec, "spec", template=is_template or not creating, meta=meta)
    if not is_template:  # a template's annotations are apps' to check, at its own path
        causes += pod_annotation_causes(pod, old, toleration_causes)
        if creating:
            causes += seccomp_annotation_field_causes(pod.get("metadata") or {}, spec, "spec")
            causes += apparmor_annotation_field_causes(pod.get("metadata") or {}, spec, "spec")
    if old is not None:
        causes += pod_update_causes(pod, old)
    return causes


@validator("Pod", status=True)
def validate_pod_status(pod: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``ValidatePodStatusUpdate`` (``pod_status.py``); the phase is not checked."""
    return pod_status_causes(pod, old or {})
