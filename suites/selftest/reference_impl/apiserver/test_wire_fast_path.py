"""The decoder walk's shortcut for well-typed scalars reports exactly what the full walk
reports: the same first type error (message and Go path), the same unknown fields."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference_impl.api import make_pod
from reference_impl.apiserver import wire

Obj = dict[str, Any]

# Scalar fields of a pod, by path, and values of every JSON type (some out of Go's ranges).
_PATHS = [
    ("spec", "terminationGracePeriodSeconds"),
    ("spec", "hostNetwork"),
    ("spec", "schedulerName"),
    ("spec", "priority"),
    ("spec", "containers", 0, "name"),
    ("spec", "containers", 0, "ports"),
    ("spec", "containers", 0, "stdin"),
    ("metadata", "generation"),
    ("metadata", "labels"),
    ("spec", "bogus"),
]
_VALUES = st.one_of(
    st.none(), st.booleans(), st.text(max_size=3),
    st.sampled_from([0, -1, 2**31, 2**63, -(2**63) - 1, 1.5]),
    st.just([{"containerPort": 2**31}]), st.just([{"containerPort": 80, "protocol": 7}]),
    st.just({"a": 1}),
)  # fmt: skip


def _pod() -> Obj:
    return make_pod("p", "default").req(cpu="1").build()


def _set(obj: Obj, path: tuple[Any, ...], value: Any) -> None:
    for step in path[:-1]:
        obj = obj[step]
    obj[path[-1]] = value


def _report(obj: Obj) -> tuple[str, Any, list[Any]] | None:
    out = wire.wire_errors(obj, "v1", "Pod")
    return None if out is None else (out.fatal, out.type_error, out.unknown)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(_PATHS), _VALUES), min_size=1, max_size=3))
def test_the_shortcut_reports_what_the_full_walk_reports(
    edits: list[tuple[tuple[Any, ...], Any]],
) -> None:
    pod = _pod()
    for path, value in edits:
        _set(pod, path, copy.deepcopy(value))
    fast = _report(pod)
    saved = wire._fits
    wire._fits = lambda _v, _p: False  # every field through the full walk
    try:
        assert _report(pod) == fast
    finally:
        wire._fits = saved


@pytest.mark.parametrize(
    ("path", "value", "go_path"),
    [
        (("spec", "terminationGracePeriodSeconds"), 2**63, "spec.terminationGracePeriodSeconds"),
        (("spec", "priority"), 2**31, "spec.priority"),
        (("spec", "hostNetwork"), "yes", "spec.hostNetwork"),
        (("spec", "schedulerName"), 5, "spec.schedulerName"),
        (("metadata", "generation"), True, "metadata.generation"),
    ],
)
def test_a_scalar_of_the_wrong_type_or_range_is_a_type_error(
    path: tuple[Any, ...], value: Any, go_path: str
) -> None:
    pod = _pod()
    _set(pod, path, value)
    out = wire.wire_errors(pod, "v1", "Pod")
    assert out is not None and out.type_error is not None
    assert out.type_error.field == go_path
    assert out.type_error.message.startswith("json: cannot unmarshal ")


def test_a_byte_field_is_still_checked_as_base64() -> None:
    csr = {
        "apiVersion": "certificates.k8s.io/v1", "kind": "CertificateSigningRequest",
        "metadata": {"name": "c"},
        "spec": {"request": "not base64!", "signerName": "example.com/s", "usages": ["digital signature"]},
    }  # fmt: skip
    out = wire.wire_errors(csr, "certificates.k8s.io/v1", "CertificateSigningRequest")
    assert out is not None and out.fatal == "illegal base64 data"
    csr["spec"]["request"] = "aGVsbG8="
    assert wire.wire_errors(csr, "certificates.k8s.io/v1", "CertificateSigningRequest") is None
