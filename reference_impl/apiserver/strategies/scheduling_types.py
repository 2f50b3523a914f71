"""The ``+k8s:`` tags of scheduling.k8s.io v1beta1/v1alpha3 (``k8s.io/api/scheduling``,
1.37.2) as ``declarative`` tables: Workload, PodGroup and CompositePodGroup specs and the
PodGroup status. The two served versions carry the same tags for these kinds.
``resourceClaims`` (DRA-WLCLAIM) are checked in ``scheduling_claims``."""

from __future__ import annotations

from typing import Final

from reference_impl.apiserver.validation.declarative import Field, Struct

__all__ = [
    "COMPOSITE_POD_GROUP_SPEC",
    "POD_GROUP_SPEC",
    "POD_GROUP_STATUS",
    "WORKLOAD_SPEC",
]

HIGHEST_USER_PRIORITY: Final = 1_000_000_000
_TAS: Final = "TopologyAwareWorkloadScheduling"
_PREEMPTION: Final = "PodGroupPreemptionPolicy"
_COMPOSITE: Final = "CompositePodGroup"
_POLICIES: Final = ("Never", "PreemptLowerPriority")

_TOPOLOGY: Final = Struct((Field("key", required=True, fmt="k8s-label-key"),))
_CONSTRAINTS: Final = Struct((Field("topology", max_items=1, struct=_TOPOLOGY),))
_GANG: Final = Struct((Field("minCount", required=True, minimum=1),))
_COMPOSITE_GANG: Final = Struct((Field("minGroupCount", required=True, minimum=1),))
_POLICY: Final = Struct(
    (
        Field("basic", immutable=True),
        Field("gang", no_set=True, no_unset=True, struct=_GANG),
    ),
    union=("basic", "gang"),
)
_COMPOSITE_POLICY: Final = Struct(
    (
        Field("basic", immutable=True),
        Field("gang", no_set=True, no_unset=True, struct=_COMPOSITE_GANG),
    ),
    union=("basic", "gang"),
)
_DISRUPTION: Final = Struct((Field("single"), Field("all")), union=("single", "all"))
_CONTROLLER_REF: Final = Struct(
    (
        Field("apiGroup", fmt="k8s-long-name"),
        Field("kind", required=True, fmt="k8s-path-segment-name"),
        Field("name", required=True, fmt="k8s-path-segment-name"),
    )
)
_WORKLOAD_REF: Final = Struct(
    (
        Field("workloadName", required=True, fmt="k8s-long-name"),
        Field("templateName", required=True, fmt="k8s-short-name"),
    )
)


def _priority_fields() -> tuple[Field, ...]:
    return (
        Field("disruptionMode", immutable=True, struct=_DISRUPTION),
        Field("priorityClassName", fmt="k8s-long-name", immutable=True),
        Field("priority", maximum=HIGHEST_USER_PRIORITY, immutable=True),
        Field("preemptionPolicy", immutable=True, gate=_PREEMPTION, enum=_POLICIES),
    )


POD_GROUP_TEMPLATE: Final = Struct(
    (
        Field("name", required=True, fmt="k8s-short-name"),
        Field("schedulingPolicy", value=True, struct=_POLICY),
        Field("schedulingConstraints", gate=_TAS, immutable=True, struct=_CONSTRAINTS),
        *_priority_fields(),
    )
)


def _template_list(name: str, item: Struct | None = None, gate: str = "") -> Field:
    return Field(
        name,
        map_key="name",
        max_items=8,
        no_add=True,
        no_remove=True,
        gate=gate,
        struct=item if item is not None else (lambda: COMPOSITE_POD_GROUP_TEMPLATE),
    )


COMPOSITE_POD_GROUP_TEMPLATE: Final = Struct(
    (
        Field("name", required=True, fmt="k8s-short-name"),
        Field("schedulingPolicy", value=True, struct=_COMPOSITE_POLICY),
        Field("schedulingConstraints", immutable=True, struct=_CONSTRAINTS),
        *_priority_fields(),
        _template_list("podGroupTemplates", POD_GROUP_TEMPLATE),
        _template_list("compositePodGroupTemplates"),
    )
)
WORKLOAD_SPEC: Final = Struct(
    (
        Field("controllerRef", immutable=True, struct=_CONTROLLER_REF),
        _template_list("podGroupTemplates", POD_GROUP_TEMPLATE),
        _template_list("compositePodGroupTemplates", gate=_COMPOSITE),
    ),
    union=("podGroupTemplates", "compositePodGroupTemplates"),
)
POD_GROUP_SPEC: Final = Struct(
    (
        Field("parentCompositePodGroupName", gate=_COMPOSITE, immutable=True, fmt="k8s-long-name", ptr=True),
        Field("workloadRef", immutable=True, struct=_WORKLOAD_REF),
        Field("schedulingPolicy", value=True, struct=_POLICY),
        Field("schedulingConstraints", gate=_TAS, immutable=True, struct=_CONSTRAINTS),
        *_priority_fields(),
    )
)
POD_GROUP_STATUS: Final = Struct(
    (
        Field(
            "resourceClaimStatuses",
            map_key="name",
            max_items=4,
            struct=Struct((Field("resourceClaimName", fmt="k8s-long-name", ptr=True),)),
        ),
    )
)
COMPOSITE_POD_GROUP_SPEC: Final = Struct(
    (
        Field("parentCompositePodGroupName", immutable=True, fmt="k8s-long-name", ptr=True),
        Field("workloadRef", required=True, immutable=True, struct=_WORKLOAD_REF),
        Field("schedulingPolicy", immutable=True, value=True, struct=_COMPOSITE_POLICY),
        Field("schedulingConstraints", immutable=True, struct=_CONSTRAINTS),
        *_priority_fields(),
    )
)
