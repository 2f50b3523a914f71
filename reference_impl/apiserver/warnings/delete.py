"""What a DELETE is warned ahead of admission: the route's deprecation warning
(``installer.go``), then ``pkg/registry/batch/job/storage/storage.go`` ``REST.Delete``'s
warning that a v1 Job deleted without a propagation policy orphans its pods. No strategy
in v1.37.2 has a WarningsOnDelete."""

from __future__ import annotations

from typing import Final

from reference_impl.apiserver.warnings.deprecation import deprecation_warnings

__all__ = ["JOB_DELETE_OPTION_WARNING", "delete_warnings"]

JOB_DELETE_OPTION_WARNING: Final = (
    "child pods are preserved by default when jobs are deleted; set propagationPolicy=Background"
    " to remove them or set propagationPolicy=Orphan to suppress this warning"
)


def delete_warnings(
    api_version: str, kind: str, propagation_policy: str | None, orphan_dependents: bool | None = None
) -> list[str]:
    """The warnings a delete of ``kind`` at ``api_version`` starts with. The Job's shows
    only where its strategy's DefaultGarbageCollectionPolicy orphans (batch/v1) and the
    request names neither policy."""
    out = deprecation_warnings(api_version, kind)
    if (
        kind == "Job"
        and api_version == "batch/v1"
        and propagation_policy is None
        and orphan_dependents is None
    ):
        out.append(JOB_DELETE_OPTION_WARNING)
    return out
