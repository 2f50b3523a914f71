"""``getRollbackTo`` and ``Revision`` (``pkg/controller/deployment/rollback.go``,
``deployment/util/deployment_util.go``) parse with ``strconv.ParseInt(v, 10, 64)``: an
optional sign and ASCII digits within int64, anything else is an error (no rollback)."""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.controllers.deployment.rollback import ROLLBACK_TO, get_rollback_to
from reference_impl.controllers.deployment.util import REVISION, parse_revision

ROWS = [
    pytest.param("3", 3, id="plain"),
    pytest.param("0", 0, id="zero means the previous revision"),
    pytest.param("+3", 3, id="plus sign"),
    pytest.param("-3", -3, id="minus sign"),
    pytest.param("007", 7, id="leading zeros"),
    pytest.param(str((1 << 63) - 1), (1 << 63) - 1, id="max int64"),
    pytest.param(str(-(1 << 63)), -(1 << 63), id="min int64"),
    pytest.param(str(1 << 63), None, id="above int64"),
    pytest.param(str(-(1 << 63) - 1), None, id="below int64"),
    pytest.param(" 3 ", None, id="surrounding spaces"),
    pytest.param("3\n", None, id="trailing newline"),
    pytest.param("1_0", None, id="underscore"),
    pytest.param("\u0663", None, id="non-ASCII digit"),
    pytest.param("0x10", None, id="hex"),
    pytest.param("3.0", None, id="decimal point"),
    pytest.param("+", None, id="sign only"),
    pytest.param("abc", None, id="not a number"),
]


def _obj(annotations: dict[str, str]) -> dict[str, Any]:
    return {"metadata": {"name": "d", "namespace": "default", "annotations": annotations}}


@pytest.mark.parametrize(("value", "want"), ROWS)
def test_get_rollback_to(value: str, want: int | None) -> None:
    assert get_rollback_to(_obj({ROLLBACK_TO: value})) == want


@pytest.mark.parametrize(("value", "want"), ROWS)
def test_revision(value: str, want: int | None) -> None:
    assert parse_revision(_obj({REVISION: value})) == want


def test_absent() -> None:
    """No annotation: no rollback; an absent revision is 0. An empty rollback value is
    absent too (``revision == ""``)."""
    assert get_rollback_to(_obj({})) is None
    assert get_rollback_to(_obj({ROLLBACK_TO: ""})) is None
    assert parse_revision(_obj({})) == 0
