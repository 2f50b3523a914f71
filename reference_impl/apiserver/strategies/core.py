"""Defaulting and validation for core/v1 Pods (Node: ``node.py``; Namespace: ``namespace.py``).

Models ``pkg/apis/core/v1/defaults.go`` and ``pkg/apis/core/validation/validation.go`` for
the fields the reference acts on; enums and limits that the OpenAPI schema leaves to the
server (taint effects, toleration operators, restart policies) are enforced here.
"""

from __future__ import annotations

import copy
import functools
import json
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
from reference_impl.apiserver.validation.pod_validation_options import (
    PodValidationOptions,
    options_from_pod_spec_and_meta,
)
from reference_impl.errors import Cause
from reference_impl.features import FeatureGates

__all__ = ["pod_causes", "pod_qos_class", "toleration_causes"]

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


_DECIMAL_MSG: Final = "must be a valid decimal integer in canonical form"


def _decimal_integer_errors(value: str) -> list[str]:
    """``content.IsDecimalInteger``: an optional "-", then no leading zero."""
    digits = value[1:] if value.startswith("-") else value
    if not value:
        return ["must be non-empty"]
    if not digits or not digits.isascii() or not digits.isdigit() or (digits[0] == "0" and value != "0"):
        return [_DECIMAL_MSG]
    return []


def _parse_int64_errors(value: str) -> list[str]:
    """``strconv.ParseInt(value, 10, 64)``'s error, if any."""
    digits = value[1:] if value[:1] in ("+", "-") else value
    quoted = json.dumps(value)
    if not digits or not digits.isascii() or not digits.isdigit():
        return [f"strconv.ParseInt: parsing {quoted}: invalid syntax"]
    if not -(2**63) <= int(value) < 2**63:
        return [f"strconv.ParseInt: parsing {quoted}: value out of range"]
    return []


def toleration_causes(tolerations: list[Obj], path: str, allow_comparison: bool = False) -> list[Cause]:
    """``ValidateTolerations``: key, empty key, tolerationSeconds, operator and value, effect.
    ``allow_comparison``: AllowTaintTolerationComparisonOperators (Lt and Gt take a decimal
    int64 value); without it they are NotSupported (RuntimeClass passes the zero options)."""
    causes: list[Cause] = []
    for i, t in enumerate(tolerations):
        p = f"{path}[{i}]"
        op = t.get("operator") or ""
        if t.get("key"):
            causes += [fe.invalid(f"{p}.key", t["key"], e) for e in label_key_errors(str(t["key"]))]
        if not t.get("key") and op != "Exists":
            msg = 'operator must be Exists when `key` is empty, which means "match all values and all keys"'
            causes.append(fe.invalid(f"{p}.operator", op, msg))
        effect = t.get("effect") or ""
        if t.get("tolerationSeconds") is not None and effect != "NoExecute":
            causes.append(fe.invalid(f"{p}.effect", effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"))
        value = str(t.get("value") or "")
        if op in ("Equal", ""):
            causes += [fe.invalid(f"{p}.operator", value, e) for e in label_value_errors(value)]
        elif op == "Exists":
            if value:
                causes.append(fe.invalid(f"{p}.operator", value, "value must be empty when `operator` is 'Exists'"))
        elif op in ("Lt", "Gt"):
            if not allow_comparison:
                causes.append(fe.not_supported(f"{p}.operator", op, ("Equal", "Exists", "Lt", "Gt")))
            else:
                causes += [fe.invalid(f"{p}.value", value, e) for e in _decimal_integer_errors(value)]
                causes += [fe.invalid(f"{p}.value", value, e) for e in _parse_int64_errors(value)]
        else:
            causes.append(fe.not_supported(f"{p}.operator", op, ("Equal", "Exists")))
        if effect and effect not in TAINT_EFFECTS:
            causes.append(fe.not_supported(f"{p}.effect", effect, TAINT_EFFECTS))
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


def _init_resize_policy_causes(spec: Obj, opts: PodValidationOptions) -> list[Cause]:
    """``validateInitContainers``' resize policy rules: none at all without
    AllowSidecarResizePolicy (InPlacePodVerticalScaling is locked on in 1.37, so never), and
    no RestartContainer on a non-sidecar init container unless the old spec had one
    (AllowExistingRestartContainerForNonSidecarInitContainer)."""
    out: list[Cause] = []
    msg = "must not be set to 'RestartContainer' for non-sidecar initContainers"
    for i, c in enumerate(spec.get("initContainers") or ()):
        if not isinstance(c, dict):
            continue
        if not opts.allow_sidecar_resize_policy and c.get("resizePolicy"):
            out.append(fe.invalid(f"spec.initContainers[{i}].resizePolicy", c["resizePolicy"], "must not be set for init containers"))
        if not opts.allow_existing_restart_container_for_non_sidecar_init_container:
            out += [
                fe.invalid(f"spec.initContainers[{i}].resizePolicy[{j}].restartPolicy", "RestartContainer", msg)
                for j in _restart_container_on(c)
            ]
    return out


_SPEC_ONLY_SUBRESOURCES: Final = ("resize", "ephemeralcontainers")


def _options_source(pod: Obj, old: Obj | None, ctx: Context) -> Obj | None:
    """The old pod for the validation options: the resize and ephemeralcontainers
    subresources validate with no old pod here, yet upstream's strategies build the
    options from the stored one (which ``ctx.get`` still returns)."""
    if old is not None or ctx.subresource not in _SPEC_ONLY_SUBRESOURCES:
        return old
    meta = pod.get("metadata") or {}
    return ctx.get("v1", "Pod", str(meta.get("name") or ""), meta.get("namespace"))


@validator("Pod")
def validate_pod(pod: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """PodSpec rules on create, and the update restrictions on update, under
    ``GetValidationOptionsFromPodSpecAndMeta``'s options."""
    src = _options_source(pod, old, ctx)
    opts = options_from_pod_spec_and_meta(
        pod.get("spec") or {},
        None if src is None else src.get("spec") or {},
        pod.get("metadata") or {},
        None if src is None else src.get("metadata") or {},
        ctx.gates,
    )
    return pod_causes(pod, old, ctx, opts)


def pod_causes(pod: Obj, old: Obj | None, ctx: Context, opts: PodValidationOptions) -> list[Cause]:
    """``validate_pod``'s rules under ``opts`` (a template's come from
    ``GetValidationOptionsFromPodTemplate``)."""
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
    causes += _init_resize_policy_causes(spec, opts)
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
    allow_cmp = opts.allow_taint_toleration_comparison_operators
    causes += toleration_causes(spec.get("tolerations") or [], "spec.tolerations", allow_cmp)
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
    causes += pod_spec_causes(spec, "spec", template=is_template or not creating, meta=meta, opts=opts)
    if not is_template:  # a template's annotations are apps' to check, at its own path
        rules = functools.partial(toleration_causes, allow_comparison=allow_cmp)
        causes += pod_annotation_causes(pod, old, rules, opts.allow_invalid_pod_deletion_cost)
        if creating:
            causes += seccomp_annotation_field_causes(pod.get("metadata") or {}, spec, "spec")
            causes += apparmor_annotation_field_causes(pod.get("metadata") or {}, spec, "spec")
    if old is not None:
        causes += pod_update_causes(pod, old)
    return causes


@validator("Pod", status=True)
def validate_pod_status(pod: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """``ValidatePodStatusUpdate`` (``pod_status.py``) under the pod's validation options;
    the phase is not checked."""
    old = old or {}
    opts = options_from_pod_spec_and_meta(
        pod.get("spec") or {}, old.get("spec") or {}, pod.get("metadata") or {},
        old.get("metadata") or {}, ctx.gates,
    )
    return pod_status_causes(pod, old, opts, ctx.gates.enabled("RestartAllContainersOnContainerExits"))
