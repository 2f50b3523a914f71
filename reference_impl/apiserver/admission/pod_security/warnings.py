"""PodSecurity's warnings (``k8s.io/pod-security-admission/admission/admission.go``):
pod templates of workload resources (``DefaultPodSpecExtractor``), the exempt-namespace
warning (``exemptNamespaceWarning``) and the check of existing pods against a tightened
enforce level (``EvaluatePodsInNamespace``, ``prioritizePods``, ``decoratePodWarnings``).

The pod check's wall-clock timeout (``namespacePodCheckTimeout``, 1s) and a failed pod
list are not modelled: the reference lists from storage and never runs out of time."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final

from reference_impl.apiserver.admission.pod_security.checks import CheckResult, go_quote
from reference_impl.apiserver.admission.pod_security.evaluate import aggregate
from reference_impl.apiserver.admission.pod_security.levels import (
    AUDIT_LEVEL_LABEL,
    AUDIT_VERSION_LABEL,
    ENFORCE_LEVEL_LABEL,
    ENFORCE_VERSION_LABEL,
    WARN_LEVEL_LABEL,
    WARN_VERSION_LABEL,
    Level,
    LevelVersion,
    Policy,
)

__all__ = [
    "DEFAULT_NAMESPACE_MAX_PODS_TO_CHECK",
    "POD_SPEC_RESOURCES",
    "evaluate_pods_in_namespace",
    "exempt_namespace_warning",
    "extract_pod_spec",
    "policy_equivalent",
    "prioritize_pods",
]

Obj = dict[str, Any]
EvaluatePod = Callable[[LevelVersion, Obj, Obj], Sequence[CheckResult]]

DEFAULT_NAMESPACE_MAX_PODS_TO_CHECK: Final = 3000
# ``defaultPodSpecResources`` minus pods (validated by ValidatePod), as group resources.
POD_SPEC_RESOURCES: Final = frozenset(
    {
        "replicationcontrollers",
        "podtemplates",
        "replicasets.apps",
        "deployments.apps",
        "statefulsets.apps",
        "daemonsets.apps",
        "jobs.batch",
        "cronjobs.batch",
    }
)


def extract_pod_spec(group_resource: str, obj: Obj) -> tuple[Obj, Obj] | None:
    """``ExtractPodSpec`` of a pod controller: the template's metadata and spec, or None
    where a ReplicationController has no template (``extractPodSpecFromTemplate``)."""
    if group_resource == "podtemplates":
        template = obj.get("template")
    elif group_resource == "cronjobs.batch":
        job = (obj.get("spec") or {}).get("jobTemplate") or {}
        template = (job.get("spec") or {}).get("template")
    else:
        template = (obj.get("spec") or {}).get("template")
    if template is None and group_resource == "replicationcontrollers":
        return None
    template = template or {}
    return template.get("metadata") or {}, template.get("spec") or {}


def _lv_equivalent(a: LevelVersion, b: LevelVersion) -> bool:
    """``LevelVersion.Equivalent``: both privileged, or the same level and version."""
    both_privileged = a.level is Level.PRIVILEGED and b.level is Level.PRIVILEGED
    return both_privileged or a == b


def policy_equivalent(a: Policy, b: Policy) -> bool:
    """``Policy.Equivalent``."""
    return (
        _lv_equivalent(a.enforce, b.enforce)
        and _lv_equivalent(a.audit, b.audit)
        and _lv_equivalent(a.warn, b.warn)
    )


def exempt_namespace_warning(name: str, policy: Policy, defaults: Policy, labels: Obj) -> str:
    """``exemptNamespaceWarning``: the modes the labels set to other than privileged."""
    if policy.fully_privileged() or policy_equivalent(policy, defaults):
        return ""
    parts = []
    for mode, lv, level_label, version_label in (
        ("enforce", policy.enforce, ENFORCE_LEVEL_LABEL, ENFORCE_VERSION_LABEL),
        ("audit", policy.audit, AUDIT_LEVEL_LABEL, AUDIT_VERSION_LABEL),
        ("warn", policy.warn, WARN_LEVEL_LABEL, WARN_VERSION_LABEL),
    ):
        if lv.level is not Level.PRIVILEGED and (level_label in labels or version_label in labels):
            parts.append(f"{mode}={lv}")
    return (
        f"namespace {go_quote(name)} is exempt from Pod Security, "
        f"and the policy ({', '.join(parts)}) will be ignored"
    )


def _controller_uid(pod: Obj) -> str | None:
    """``GetControllerOfNoCopy``'s UID: the first owner reference with controller=true."""
    for ref in (pod.get("metadata") or {}).get("ownerReferences") or ():
        if isinstance(ref, dict) and ref.get("controller") is True:
            return str(ref.get("uid") or "")
    return None


def prioritize_pods(pods: Sequence[Obj], exempt_runtime_classes: frozenset[str]) -> list[Obj]:
    """``prioritizePods``: exempt runtime classes dropped, then one pod per controller and
    every uncontrolled pod, then the other replicas."""
    first: list[Obj] = []
    duplicates: list[Obj] = []
    seen: set[str] = set()
    for pod in pods:
        rc = (pod.get("spec") or {}).get("runtimeClassName")
        if rc and rc in exempt_runtime_classes:
            continue
        uid = _controller_uid(pod)
        if uid is None:
            first.append(pod)
        elif uid in seen:
            duplicates.append(pod)
        else:
            first.append(pod)
            seen.add(uid)
    return first + duplicates


def evaluate_pods_in_namespace(
    evaluate_pod: EvaluatePod,
    pods: Sequence[Obj],
    namespace: str,
    enforce: LevelVersion,
    *,
    exempt_runtime_classes: frozenset[str] = frozenset(),
    max_pods: int = DEFAULT_NAMESPACE_MAX_PODS_TO_CHECK,
) -> list[str]:
    """``EvaluatePodsInNamespace``: a summary line per distinct refusal, naming the
    least pod name and how many other pods share it, after the limit and header lines."""
    prioritized = prioritize_pods(pods, exempt_runtime_classes)
    total = len(prioritized)
    checked = prioritized[:max_pods]
    order: list[str] = []
    counts: dict[str, tuple[str, int]] = {}  # reason -> (least pod name, pod count)
    for pod in checked:
        meta = pod.get("metadata") or {}
        result = aggregate(evaluate_pod(enforce, meta, pod.get("spec") or {}))
        if result.allowed:
            continue
        reason = result.forbidden_reason()
        name = str(meta.get("name") or "")
        if reason not in counts:
            order.append(reason)
            counts[reason] = (name, 1)
        else:
            least, n = counts[reason]
            counts[reason] = (min(least, name), n + 1)
    warnings = []
    if len(checked) < total:
        warnings.append(
            f"new PodSecurity enforce level only checked against the first {len(checked)} "
            f"of {total} existing pods"
        )
    if order:
        warnings.append(
            f"existing pods in namespace {go_quote(namespace)} violate the new PodSecurity "
            f"enforce level {go_quote(str(enforce))}"
        )
    return warnings + sorted(_decorate(r, *counts[r]) for r in order)


def _decorate(reason: str, name: str, count: int) -> str:
    """``decoratePodWarnings``."""
    if count == 1:
        return f"{name}: {reason}"
    if count == 2:
        return f"{name} (and 1 other pod): {reason}"
    return f"{name} (and {count - 1} other pods): {reason}"
