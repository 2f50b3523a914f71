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

Audit annotations and warnings (audit and warn modes, pod controllers, namespace label
changes against existing pods) are not modelled: they never refuse a request.
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
    policy_to_evaluate,
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
    ) -> None:
        self.defaults = defaults
        self.exempt_namespaces = frozenset(exempt_namespaces)
        self.exempt_runtime_classes = frozenset(exempt_runtime_classes)
        self.evaluator = evaluator or default_evaluator()

    def admit(
        self, op: Operation, info: ResourceInfo, obj: Obj, old: Obj | None, ctx: Context
    ) -> None:
        """Not a mutating plugin."""

    def validate(
        self, op: Operation, info: ResourceInfo, obj: Obj, old: Obj | None, ctx: Context
    ) -> list[Cause]:
        """``Plugin.Validate``: namespaces and pods, on create and update."""
        if op not in (Operation.CREATE, Operation.UPDATE):
            return []
        if info.group_resource == "namespaces":
            return self._namespace(op, obj, old, ctx)
        if info.group_resource == "pods":
            self._pod(op, obj, old, ctx)
        return []

    def _labels(self, obj: Obj | None) -> dict[str, str]:
        return dict(((obj or {}).get("metadata") or {}).get("labels") or {})

    def _namespace(self, op: Operation, obj: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
        """``ValidateNamespace``: label errors on create, and on an update that
        introduces or changes them (label errors already there are let be)."""
        if ctx.subresource:
            return []
        _, errs = policy_to_evaluate(self._labels(obj), self.defaults)
        if not errs or op is Operation.CREATE:
            return errs
        _, old_errs = policy_to_evaluate(self._labels(old), self.defaults)
        return errs if not old_errs or errs != old_errs else []

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


def install(server: APIServer) -> None:
    """Enable the plugin with kube-apiserver's default configuration (between
    LimitRanger and Priority in upstream's order)."""
    server.admission.append(PodSecurity())
