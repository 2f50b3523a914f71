"""A Job's ``spec.scheduling`` (WorkloadWithJob, 1.37.2): the declarative tags of
``JobSchedulingConfiguration`` and the ``WorkloadPodGroup*`` building blocks, plus
``validateGangMinCount`` (minCount ≤ parallelism), the workload builder's controller
policy (no ``all`` disruption with a basic policy) and ``validateJobSchedulingUpdate``
(the basic/gang variant is frozen; only ``gang.minCount`` may change)."""

from __future__ import annotations

from typing import Any, Final

from reference_impl.apiserver.registry import Context, validator
from reference_impl.apiserver.validation import fielderr as fe
from reference_impl.apiserver.validation.declarative import Field, Struct, validate
from reference_impl.errors import Cause

__all__ = ["JOB_SCHEDULING"]

Obj = dict[str, Any]
_TOPOLOGY: Final = Struct((Field("key", required=True, fmt="k8s-label-key"),))
# scheduling/v1alpha3 Validate_WorkloadPodGroupResourceClaim: exactly one source.
_CLAIM: Final = Struct(
    (
        Field("name", required=True, fmt="k8s-short-name"),
        Field("resourceClaimName", fmt="k8s-long-name", ptr=True),
        Field("resourceClaimTemplateName", fmt="k8s-long-name", ptr=True),
    ),
    union=("resourceClaimName", "resourceClaimTemplateName"),
)
JOB_SCHEDULING: Final = Struct(
    (
        Field(
            "schedulingPolicy",
            no_set=True,
            no_unset=True,
            struct=Struct(
                (
                    Field("basic"),
                    Field("gang", struct=Struct((Field("minCount", minimum=1, ptr=True),))),
                ),
                union=("basic", "gang"),
            ),
        ),
        Field(
            "schedulingConstraints",
            immutable=True,
            struct=Struct((Field("topology", max_items=1, struct=_TOPOLOGY),)),
        ),
        Field(
            "disruptionMode",
            immutable=True,
            struct=Struct((Field("single"), Field("all")), union=("single", "all")),
        ),
        Field("resourceClaims", map_key="name", max_items=4, immutable=True, struct=_CLAIM),
    )
)
_PATH: Final = "spec.scheduling"


@validator("Job")
def validate_job_scheduling(job: Obj, old: Obj | None, ctx: Context) -> list[Cause]:
    """The tags, minCount ≤ parallelism, no basic+all, the frozen variant; scheduling
    itself cannot be added or removed after create."""
    spec = job.get("spec") or {}
    sched = spec.get("scheduling")
    ospec = (old or {}).get("spec") or {}
    osched = ospec.get("scheduling") if old is not None else None
    causes: list[Cause] = []
    if old is not None and (sched is None) != (osched is None):
        causes.append(fe.invalid(_PATH, None, "field is immutable"))
    if not isinstance(sched, dict):
        return causes
    causes += validate(sched, osched, JOB_SCHEDULING, _PATH, ctx.gates, update=osched is not None)
    policy = sched.get("schedulingPolicy") or {}
    min_count = (policy.get("gang") or {}).get("minCount") if isinstance(policy, dict) else None
    parallelism = spec.get("parallelism", 1)
    if isinstance(min_count, int) and isinstance(parallelism, int) and min_count > parallelism:
        causes.append(
            fe.invalid(
                f"{_PATH}.schedulingPolicy.gang.minCount",
                min_count,
                f"must not be greater than parallelism ({parallelism})",
            )
        )
    if _resolves_basic(sched) and (sched.get("disruptionMode") or {}).get("all") is not None:
        causes.append(
            fe.invalid(
                f"{_PATH}.disruptionMode",
                "",
                "the disruptionMode `all` is not supported with the Basic scheduling policy",
            )
        )
    opolicy = (osched or {}).get("schedulingPolicy") if isinstance(osched, dict) else None
    if (
        isinstance(opolicy, dict)
        and policy
        and (opolicy.get("basic") is None) != (policy.get("basic") is None)
    ):
        causes.append(
            fe.invalid(
                f"{_PATH}.schedulingPolicy",
                None,
                "the basic/gang policy variant is immutable after creation; only "
                "schedulingPolicy.gang.minCount may be updated",
            )
        )
    return causes


def _resolves_basic(sched: Obj) -> bool:
    """The workload builder's resolved policy: a Job defaults an unset one to basic
    (``WorkloadItemForJob``)."""
    policy = sched.get("schedulingPolicy")
    if policy is None:
        return True
    return isinstance(policy, dict) and policy.get("basic") is not None
