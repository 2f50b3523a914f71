"""Models ``pkg/quota/v1/evaluator/core/registry.go`` (``NewEvaluators``),
``pkg/quota/v1/install`` (the ignored resources) and the evaluators the quota controller's
monitor adds: an object-count evaluator for every other quotable resource.

Upstream's registry is a map, listed in random order; here the core evaluators come in a
fixed order (pods, services, claims, resource claims, then the legacy counters by name).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from reference_impl.apiserver.quota import generic
from reference_impl.apiserver.quota.pods import PodEvaluator
from reference_impl.apiserver.quota.pvcs import PVCEvaluator
from reference_impl.apiserver.quota.resource_claims import ResourceClaimEvaluator
from reference_impl.apiserver.quota.services import ServiceEvaluator
from reference_impl.apiserver.quota.types import Env, Evaluator

__all__ = [
    "IGNORED_RESOURCES",
    "LEGACY_OBJECT_COUNT_ALIASES",
    "evaluator_for",
    "evaluators",
    "evaluators_for_hard",
    "group_resource_of_count",
]

# legacyObjectCountAliases: the old object-count names, kept as aliases.
LEGACY_OBJECT_COUNT_ALIASES: Final = {
    "configmaps": "configmaps",
    "replicationcontrollers": "replicationcontrollers",
    "resourcequotas": "resourcequotas",
    "secrets": "secrets",
}
# install.ignoredResources: virtual resources, and events (never quota'd).
IGNORED_RESOURCES: Final = frozenset(
    {
        "bindings",
        "componentstatuses",
        "tokenreviews.authentication.k8s.io",
        "selfsubjectreviews.authentication.k8s.io",
        "subjectaccessreviews.authorization.k8s.io",
        "selfsubjectaccessreviews.authorization.k8s.io",
        "localsubjectaccessreviews.authorization.k8s.io",
        "selfsubjectrulesreviews.authorization.k8s.io",
        "events",
        "events.events.k8s.io",
    }
)
_COUNT: Final = "count/"


def evaluators(env: Env) -> list[Evaluator]:
    """``NewEvaluators``: pods, services, claims, resource claims (DynamicResourceAllocation),
    and object counters with the legacy aliases."""
    out: list[Evaluator] = [PodEvaluator(env), ServiceEvaluator(env), PVCEvaluator(env)]
    if generic.gate_enabled(env, "DynamicResourceAllocation"):
        out.append(ResourceClaimEvaluator(env))
    for gr, alias in sorted(LEGACY_OBJECT_COUNT_ALIASES.items()):
        out.append(generic.ObjectCountEvaluator(gr, env, alias))
    return out


def evaluator_for(group_resource: str, env: Env) -> Evaluator:
    """The core evaluator of ``plural[.group]``, else a plain object counter for it
    (what the admission plugin builds for a resource the registry lacks)."""
    for e in evaluators(env):
        if e.group_resource == group_resource:
            return e
    return generic.ObjectCountEvaluator(group_resource, env)


def group_resource_of_count(name: str) -> str | None:
    """``count/deployments.apps`` -> ``deployments.apps``; None for other names."""
    return name[len(_COUNT) :] or None if name.startswith(_COUNT) else None


def evaluators_for_hard(hard_names: Sequence[str], env: Env) -> list[Evaluator]:
    """The core evaluators plus an object counter for each ``count/<resource>[.<group>]``
    in ``hard`` whose resource is served, namespaced, not ignored and not already
    covered: the evaluators the controller's quota monitor would have registered."""
    out = evaluators(env)
    covered = {e.group_resource for e in out}
    for name in hard_names:
        gr = group_resource_of_count(name)
        if gr is None or gr in covered or gr in IGNORED_RESOURCES:
            continue
        info = generic.served_resource(gr, env)
        if info is not None and info.namespaced:
            out.append(generic.ObjectCountEvaluator(gr, env))
            covered.add(gr)
    return out
