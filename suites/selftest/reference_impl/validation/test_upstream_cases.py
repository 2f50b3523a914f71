"""The reference answers upstream's own validation cases as the real v1.37.2
kube-apiserver did: the verdict and every cause's field path and error type.

Each case (``fixtures.fuzz.cases_*``) comes from upstream's tests; the answers in
``fixtures/fuzz/answers/`` were recorded from a local v1.37.2 apiserver with
``dryRun=All`` (updates over a stored old object), so this runs without a cluster.
``cases_stored``'s answers also keep the object an accepted create returned (normalized,
``stored_diff``): the reference must store the same.
"""

from __future__ import annotations

import copy
import json
import time
from importlib import resources
from typing import Any

import pytest

# The CEL checks of resource.k8s.io writes register when reference_impl.dra is imported
# (it sits above the apiserver); a bare APIServer needs it imported explicitly.
import reference_impl.dra  # noqa: F401
from fixtures.fuzz import case_modules
from fixtures.fuzz.case import Case, update_body
from fixtures.fuzz.record import answer_of
from fixtures.fuzz.stored_diff import normalized, reference_stored
from fixtures.localcluster.launcher import FEATURE_GATES
from reference_impl.api import make_namespace
from reference_impl.apiserver.admission import install_priority, podgroup_protection
from reference_impl.apiserver.server import APIServer
from reference_impl.clock import SimClock, parse_rfc3339
from reference_impl.errors import ApiError
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

_GATES = {k: v == "true" for k, v in (g.split("=") for g in FEATURE_GATES.split(","))}


def _answers_file(module: str) -> Any:
    return resources.files("fixtures.fuzz").joinpath("answers", f"{module}.json")


def _recorded(module: str) -> dict[str, Any]:
    # A module not recorded yet has no file: its cases are left out here, and
    # test_every_case_module_is_recorded says so.
    if not _answers_file(module).is_file():
        return {}
    data: dict[str, Any] = json.loads(_answers_file(module).read_text())
    return data


# Cases of versions the local cluster does not serve (certificates.k8s.io/v1beta1) have
# no recorded answer and are left out.
_CASES = [
    (c, _recorded(name)[c.id])
    for name, cases in case_modules().items()
    for c in cases
    if c.id in _recorded(name)
]


# Some cases carry certificates stamped with the wall clock (the live apiserver judges
# them against its own): the reference's clock starts there too.
_WALL_NOW = parse_rfc3339(time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))


def _answer(case: Case) -> dict[str, Any]:
    if case.keep_object:  # cases_stored: the whole admission chain, and the stored object
        return _stored_answer(case)
    srv = APIServer(MVCCStore(), SimClock(_WALL_NOW), Rng(0), FeatureGates(_GATES))
    install_priority(srv)
    podgroup_protection.install(srv)
    srv.create(make_namespace("default").build())
    for obj in case.setup:  # cases_authz: the RBAC objects a review asks about
        srv.create(copy.deepcopy(obj))
    try:
        if case.old is None:
            returned = srv.create(copy.deepcopy(case.obj))
            if case.keep_status:
                return {"ok": True, "causes": [], "status": returned.get("status")}
        else:
            stored = srv.create(copy.deepcopy(case.old))
            getattr(srv, case.verb)(update_body(case, stored))
    except ApiError as e:
        got = answer_of(e)
        return {**got, "causes": sorted(tuple(c) for c in got["causes"])}
    return {"ok": True, "causes": []}


def _stored_answer(case: Case) -> dict[str, Any]:
    """A create as the stored-object comparison makes it (``stored_diff``): the answer,
    and the normalized object when accepted."""
    answer, created = reference_stored(case.obj, _GATES)
    if created is None:
        return {"ok": False, "reason": answer.reason, "causes": sorted(answer.causes)}
    return {"ok": True, "causes": [], "object": normalized(created, case.obj)}


@pytest.mark.parametrize(("case", "upstream"), _CASES, ids=[c.id for c, _ in _CASES])
def test_reference_answers_as_upstream(case: Case, upstream: dict[str, Any]) -> None:
    got = _answer(case)
    want = {**upstream, "causes": sorted(tuple(c) for c in upstream["causes"])}
    assert got == want


def test_every_case_module_is_recorded() -> None:
    missing = [m for m, cases in case_modules().items() if cases and not _answers_file(m).is_file()]
    assert not missing, f"record them: python -m fixtures.fuzz.record --module <m> ({missing})"
