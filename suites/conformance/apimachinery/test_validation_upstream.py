"""API machinery conformance: objects from upstream v1.37.2's own validation tests are
refused with upstream's field paths and error types, and nothing is stored.

The objects and the expected causes come from ``fixtures.fuzz`` (the cases and the
answers a v1.37.2 kube-apiserver gave); this sample sends them to either target.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from fixtures import Target
from fixtures.fuzz import case_modules, recorded_answers
from reference_impl.errors import Invalid

pytestmark = pytest.mark.conformance

_SAMPLE = {
    "cases_core": (
        "meta/label-value-bad",
        "meta/label-key-bad",
        "meta/finalizer-unprefixed",
        "configmap/key-bad",
        "pod/container-no-name",
        "pod/port-zero",
        "pod/requests-over-limits",
        "pod/dns-policy-bad",
        "service/ports-unnamed-two",
        "service/ports-duplicate",
        "pvc/no-access-modes",
        "pvc/zero-storage",
        "deployment/rolling-both-zero",
        "deployment/selector-empty",
        "job/restart-always",
        "job/ttl-negative",
        "pdb/selector-bad-key",
        "hpa/max-zero",
    ),
    "cases_scheduling": (
        "workload-v1beta1/controller-ref-no-kind",
        "workload-v1beta1/controller-ref-kind-slash",
        "workload-v1beta1/two-priorities",
        "workload-v1beta1/empty-template-name",
        "workload-v1beta1/gang-min-count-zero",
        "podgroup-v1beta1/ref-bad-workload",
        "podgroup-v1beta1/ref-empty-template",
        "podgroup-v1beta1/ref-long-template",
    ),
}


def _params(module: str, marks: list[Any]) -> list[Any]:
    cases = {c.id: c for c in case_modules()[module]}
    answers = recorded_answers(module)
    return [
        pytest.param(cases[i].obj, answers[i]["causes"], id=i, marks=marks) for i in _SAMPLE[module]
    ]


_PARAMS = _params("cases_core", []) + _params("cases_scheduling", [pytest.mark.feature("KEP-4671")])


@pytest.mark.parametrize(("obj", "causes"), _PARAMS)
def test_upstream_validation_case_is_refused_as_upstream(
    target: Target, namespace: str, obj: dict[str, Any], causes: list[list[str]]
) -> None:
    """API machinery, upstream's validation cases.

    An object that upstream v1.37.2's validation tests reject MUST be refused as Invalid
    with exactly upstream's causes (each field path with its error type: Required,
    Invalid, NotSupported, Duplicate, Forbidden), and MUST NOT be stored.
    """
    body = json.loads(json.dumps(obj))  # a private copy
    body["metadata"]["namespace"] = namespace
    name = body["metadata"]["name"]
    with pytest.raises(Invalid) as err:
        target.apply(body)
    got = sorted({(c.field, c.reason) for c in err.value.causes})
    assert got == sorted((f, r) for f, r in causes)
    stored = [
        o["metadata"]["name"] for o in target.list(body["apiVersion"], body["kind"], namespace)
    ]
    assert name not in stored
