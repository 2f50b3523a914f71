"""``pkg/registry/batch/job/storage/storage_test.go`` TestJobDeletion: a Job deleted (or
delete-collected) without a propagation policy at batch/v1, whose strategy orphans by
default, is warned that its pods stay; any policy, or another version, is not. Upstream
checks the warning where expected; the rows here check its absence too, as the code
(``REST.Delete``/``DeleteCollection``) adds nothing else."""

from __future__ import annotations

import pytest

from reference_impl.apiserver.warnings.delete import JOB_DELETE_OPTION_WARNING, delete_warnings

P = pytest.param
ROWS = [
    P("batch/v1", None, None, True, id="deletion: no policy, v1, warning"),
    P("batch/v2", None, None, False, id="deletion: no policy, v2, no warning"),
    P("batch/", None, None, False, id="deletion: no policy, no APIVersion, no warning"),
    P("batch/v1", None, True, False, id="deletion: orphan dependents, no warnings"),
    P("batch/v1", "Orphan", None, False, id="deletion: orphan deletion, no warnings"),
    P("batch/v1", "Background", None, False, id="deletion: background deletion, no warnings"),
    P("batch/v1", None, None, True, id="deleteCollection: no policy, v1, warning"),
    P("batch/v2", None, None, False, id="deleteCollection: no policy, v2, no warning"),
    P("batch/", None, None, False, id="deleteCollection: no policy, no APIVersion, no warning"),
    P("batch/v1", None, True, False, id="deleteCollection: orphan dependents, no warnings"),
    P("batch/v1", "Orphan", None, False, id="deletionCollection: orphan deletion, no warnings"),
    P("batch/v1", "Background", None, False,
      id="deletionCollection: background deletion, no warnings"),
]


@pytest.mark.parametrize(("api_version", "policy", "orphan", "warns"), ROWS)
def test_job_deletion(api_version: str, policy: str | None, orphan: bool | None, warns: bool) -> None:
    got = delete_warnings(api_version, "Job", policy, orphan)
    assert got == ([JOB_DELETE_OPTION_WARNING] if warns else [])


def test_the_warning_text() -> None:
    """``deleteOptionWarnings``, as upstream spells it."""
    assert JOB_DELETE_OPTION_WARNING == (
        "child pods are preserved by default when jobs are deleted; set "
        "propagationPolicy=Background to remove them or set propagationPolicy=Orphan to "
        "suppress this warning"
    )
