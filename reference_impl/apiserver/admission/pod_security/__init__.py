"""Models the PodSecurity admission plugin (``plugin/pkg/admission/security/podsecurity``
over ``k8s.io/pod-security-admission/admission``), on by default in kube-apiserver with
the default configuration: enforce, audit and warn ``privileged:latest``, no exemptions.

What is modelled (validating only, create and update):

- Namespaces: the ``pod-security.kubernetes.io/*`` labels must parse; a create with a
  bad level or version, or an update that introduces or changes label errors, is
  Invalid (``metadata.labels[<label>]: Invalid value``). Subresources are not checked.
- Pods: in a namespace whose policy is not fully privileged, a create, or an update
  that changes a container's image or the number of (init) containers or adds an
  ephemeral container (``isSignificantPodUpdate``), is Forbidden when the enforce
  level and version refuse it: ``pods "NAME" is forbidden: violates PodSecurity
  "restricted:latest": <reason> (<detail>), ...``. Subresources exec, attach, binding,
  eviction, log, portforward, proxy and status are never checked.

Warnings (``warning.AddWarning``, through ``Context.warn``; see ``warnings``): the warn
mode on allowed pods and on pod controllers' templates (never enforced), the exempt
namespace warning, and existing pods checked against a namespace's tightened enforce
level. Audit annotations are not modelled, nor exempt usernames (no users here).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Final

from reference_impl.api.resources import ResourceInfo
from reference_impl.apiserver.admission.pod_security.checks import go_quote
from reference_impl.apiserver.admission.pod_security.evaluate import (
    Evaluator,
    aggregate,
    default_evaluator,
)
from reference_impl.apiserver.admission.pod_security.levels import (
    LATEST,
    Level,
    LevelVersion,
    Policy,
    compare_levels,
    policy_to_evaluate,
)
from reference_impl.apiserver.admission.pod_security.warnings import (
    DEFAULT_NAMESPACE_MAX_PODS_TO_CHECK,
    POD_SPEC_RESOURCES,
    evaluate_pods_in_namespace,
    exempt_namespace_warning,
    extract_pod_spec,
)
from reference_impl.apiserver.registry import Context, Operation
from reference_impl.errors import ApiError, Cause, Forbidden

if TYPE_CHECKING:
    from reference_impl.apiserver.server import APIServer

__all__ = [
    "DEFAULT_POLICY",
    "IGNORED_POD_SUBRESOURCES",
    "PodSecurity",
    "install",
    "significant_pod_update",
]

Obj = dict[str, Any]
_PRIVILEGED: Final = LevelVersion(Level.PRIVILEGED, LATEST)
DEFAULT_POLICY: Final = Policy(_PRIVILEGED, _PRIVILEGED, _PRIVILEGED)
IGNORED_POD_SUBRESOURCES: Final = frozenset(
    {"exec", "attach", "binding", "eviction", "log", "portforward", "proxy", "status"}
)


def _containers(spec: Obj, part: str) -> list[Obj]:
    return [c if isinstance(c, dict) else {} for c in spec.get(part) or ()]


def significant_pod_update(pod: Obj, old: Obj) -> bool:
    """``isSignificantPodUpdate``: a (init) container count or image changed, or an
    ephemeral container was added or changed its image."""
    spec, old_spec = pod.get("spec") or {}, old.get("spec") or {}
    for part in ("containers", "initContainers"):
        if len(_containers(spec, part)) != len(_containers(old_spec, part)):
            return True
    for part in ("containers", "initContainers"):
        for c, oc in zip(_containers(spec, part), _containers(old_spec, part), strict=True):
            if c.get("image", "") != oc.get("image", ""):
                return True
    olds = _containers(old_spec, "ephemeralContainers")
    for c in _containers(spec, "ephemeralContainers"):
        same = [o for o in olds if o.get("name", "") == c.get("name", "")]
        if not same or c.get("image", "") != same[0].get("image", ""):
            return True
    return False


class PodSecurity:
    """Enforce the Pod Security Standards a namespace's labels choose."""

    name = "PodSecurity"

    def __init__(
        self,
        defaults: Policy = DEFAULT_POLICY,
        *,
        exempt_namespaces: Iterable[str] = (),
        exempt_runtime_classes: Iterable[str] = (),
        evaluator: Evaluator | None = None,
        namespace_max_pods_to_check: int = DEFAULT_NAMESPACE_MAX_PODS_TO_CHECK,
    ) -> None:
        self.defaults = defaults
        self.exempt_namespaces = frozenset(exempt_namespaces)
        self.exempt_runtime_classes = frozenset(exempt_runtime_classes)
        self.evaluator = evaluator or default_evaluator()
        self.namespace_max_pods_to_check = namespace_max_pods_to_check

    def admit(
        self, op: Operation, info: ResourceInfo, obj: Obj, old: Obj | None, ctx: Context
    ) -> None:
        """Not a mutating plugin."""

    def validate(
        self, op: Operation, info: ResourceInfo, obj: Obj, old: Obj | None, ctx: Context
    ) -> list[Cause]:
        """``Plugin.Validate``: namespaces, pods and pod controllers, on create and update."""
        if op not in (Operation.CREATE, Operation.UPDATE):
            return []
        gr = info.group_resource
        if gr == "namespaces":
            return self._namespace(op, obj, old, ctx)
        if gr == "pods":
            self._pod(op, obj, old, ctx)
        elif gr in POD_SPEC_RESOURCES:
            self._pod_controller(gr, obj, ctx)
        return []

    def _labels(self, obj: Obj | None) -> dict[str, str]:
        return dict(((obj or {}).get("metadata") or {}).get("labels") or {})

    def _namespace(self, op: Operation, obj: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
        """``ValidateNamespace``: label errors on create, and on an update that
        introduces or changes them (label errors already there are let be)."""
        if ctx.subresource:
            return []
        labels = self._labels(obj)
        policy, errs = policy_to_evaluate(labels, self.defaults)
        name = str((obj.get("metadata") or {}).get("name") or "")
        if op is Operation.CREATE:
            if not errs and name in self.exempt_namespaces:
                _warn(ctx, exempt_namespace_warning(name, policy, self.defaults, labels))
            return errs
        old_policy, old_errs = policy_to_evaluate(self._labels(old), self.defaults)
        if errs and (not old_errs or errs != old_errs):
            return errs
        new, prior = policy.enforce, old_policy.enforce
        if new == prior or new.level is Level.PRIVILEGED:
            return []
        if new.version == prior.version and compare_levels(new.level, prior.level) < 1:
            return []
        if name in self.exempt_namespaces:
            _warn(ctx, exempt_namespace_warning(name, policy, self.defaults, labels))
            return []
        if ctx.warn is not None:
            pods = ctx.lister_list("v1", "Pod", name)
            for text in evaluate_pods_in_namespace(
                self.evaluator.evaluate_pod, pods, name, new,
                exempt_runtime_classes=self.exempt_runtime_classes,
                max_pods=self.namespace_max_pods_to_check,
            ):  # fmt: skip
                ctx.warn(text)
        return []

    def _pod(self, op: Operation, pod: Obj, old: Obj | None, ctx: Context) -> None:
        """``ValidatePod`` and ``EvaluatePod`` in enforce mode."""
        if ctx.subresource in IGNORED_POD_SUBRESOURCES:
            return
        meta = pod.get("metadata") or {}
        ns = str(meta.get("namespace") or "")
        if ns and ns in self.exempt_namespaces:
            return
        namespace = ctx.lister_get("v1", "Namespace", ns, None)
        if namespace is None:
            raise ApiError(f"Internal error occurred: failed to lookup namespace {go_quote(ns)}")
        policy, errs = policy_to_evaluate(self._labels(namespace), self.defaults)
        if not errs and policy.fully_privileged():
            return
        if op is Operation.UPDATE and old is not None and not significant_pod_update(pod, old):
            return
        spec = pod.get("spec") or {}
        runtime_class = spec.get("runtimeClassName")
        if runtime_class and runtime_class in self.exempt_runtime_classes:
            return
        result = aggregate(self.evaluator.evaluate_pod(policy.enforce, meta, spec))
        if not result.allowed:
            name = str(meta.get("name") or "")
            what = f"pods {go_quote(name)}" if name else "pods"
            raise Forbidden(
                f"{what} is forbidden: violates PodSecurity {go_quote(str(policy.enforce))}: "
                f"{result.forbidden_detail()}"
            )
        if policy.warn == policy.enforce:
            return  # the cached enforce result allowed it
        self._warn_mode(policy, meta, spec, ctx)

    def _pod_controller(self, gr: str, obj: Obj, ctx: Context) -> None:
        """``ValidatePodController``: the template's warn mode (audit is not modelled),
        never enforced; any update (no significance check), no subresource."""
        if ctx.subresource or ctx.warn is None:
            return
        ns = str((obj.get("metadata") or {}).get("namespace") or "")
        if ns and ns in self.exempt_namespaces:
            return
        namespace = ctx.lister_get("v1", "Namespace", ns, None)
        if namespace is None:
            return  # upstream: allowed, with an "error" audit annotation
        policy, errs = policy_to_evaluate(self._labels(namespace), self.defaults)
        if not errs and policy.warn.level is Level.PRIVILEGED:
            return  # privileged warn and audit: nothing to say (audit is not modelled)
        extracted = extract_pod_spec(gr, obj)
        if extracted is None:
            return
        meta, spec = extracted
        runtime_class = spec.get("runtimeClassName")
        if runtime_class and runtime_class in self.exempt_runtime_classes:
            return
        self._warn_mode(policy, meta, spec, ctx)

    def _warn_mode(self, policy: Policy, meta: Obj, spec: Obj, ctx: Context) -> None:
        """``EvaluatePod``'s warn mode: "would violate PodSecurity" when refused."""
        if ctx.warn is None or policy.warn.level is Level.PRIVILEGED:
            return  # privileged allows everything
        result = aggregate(self.evaluator.evaluate_pod(policy.warn, meta, spec))
        if not result.allowed:
            ctx.warn(
                f"would violate PodSecurity {go_quote(str(policy.warn))}: "
                f"{result.forbidden_detail()}"
            )


def _warn(ctx: Context, text: str) -> None:
    """``warning.AddWarning`` of a non-empty text."""
    if text and ctx.warn is not None:
        ctx.warn(text)


def install(server: APIServer) -> None:
    """Enable the plugin with kube-apiserver's default configuration (between
    LimitRanger and Priority in upstream's order)."""
    server.admission.append(PodSecurity())
