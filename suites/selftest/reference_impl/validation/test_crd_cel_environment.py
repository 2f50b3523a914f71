"""Which CEL libraries a CRD's ``x-kubernetes-validations`` rules may call (v1.37.2).

No upstream test names these rows; the facts are from the source. The CRD rule
environment is apiserver ``pkg/cel/environment/base.go``'s base environment extended only
with ``self``/``oldSelf`` (apiextensions-apiserver ``pkg/apiserver/schema/cel/compilation.go``
``prepareEnvSet``). The base environment has ext.Strings, ext.Sets, ext.Lists,
ext.TwoVarComprehensions and cel.OptionalTypes, but not ext.Bindings (only DRA's
environment adds ``cel.bind``, dynamic-resource-allocation ``cel/compile.go``), ext.Math or
ext.Encoders. Without the bindings macro, ``cel.bind(...)`` is a call on the identifier
``cel``, which cel-go's checker reports first (errors sort by position): "undeclared
reference to 'cel' (in container '')". ``compileRule`` wraps the issues as
``field.Invalid(<rule path>, <the rule>, "compilation failed: " + issues)`` (and
``"messageExpression compilation failed: "`` for a messageExpression). cel-go's
``<line>:<col>`` and the caret snippet are not modelled (as elsewhere in the reference).
"""

from __future__ import annotations

import copy
from typing import Any, Final

import pytest

from reference_impl.apiserver.server import APIServer
from reference_impl.clock import SimClock, parse_rfc3339
from reference_impl.errors import ApiError
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

Obj = dict[str, Any]
PATH: Final = "spec.validation.openAPIV3Schema.properties[s].x-kubernetes-validations[0]"


def _crd(rule: Obj) -> Obj:
    schema = {
        "type": "object",
        "properties": {
            "s": {"type": "array", "maxItems": 10, "items": {"type": "string", "maxLength": 10},
                  "x-kubernetes-validations": [rule]},
        },
    }  # fmt: skip
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "foos.example.com"},
        "spec": {
            "group": "example.com",
            "scope": "Namespaced",
            "names": {"plural": "foos", "singular": "foo", "kind": "Foo", "listKind": "FooList"},
            "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": schema}}],
        },
    }


def _causes(rule: Obj) -> list[tuple[str, str, str]]:
    srv = APIServer(MVCCStore(), SimClock(parse_rfc3339("2026-12-06T00:00:00Z")), Rng(0), FeatureGates({}))
    try:
        srv.create(copy.deepcopy(_crd(rule)))
    except ApiError as e:
        return sorted((c.field, c.reason, c.message) for c in e.causes)
    return []


def _undeclared(rule: str, name: str) -> list[tuple[str, str, str]]:
    detail = f"compilation failed: ERROR: <input>: undeclared reference to '{name}' (in container '')"
    return [(f"{PATH}.rule", "FieldValueInvalid", f'Invalid value: {{"rule":"{rule}"}}: {detail}')]


_REJECTED: Final = [
    ("cel.bind(x, self.size(), x < 5)", "cel", "cel.bind: ext.Bindings is not in the CRD environment"),
    ("self.all(e, cel.bind(n, e.size(), n < 3))", "cel", "cel.bind inside a macro"),
    ("math.greatest(self.size(), 1) == 1", "math", "math.greatest: no ext.Math"),
    ("base64.encode(b'a') != ''", "base64", "base64.encode: no ext.Encoders"),
]


@pytest.mark.parametrize(("rule", "name"), [pytest.param(r, n, id=i) for r, n, i in _REJECTED])
def test_libraries_missing_from_the_crd_environment_are_undeclared(rule: str, name: str) -> None:
    assert _causes({"rule": rule}) == _undeclared(rule, name)


def test_cel_bind_in_message_expression_is_undeclared() -> None:
    mexpr = "cel.bind(n, string(self.size()), n)"
    rule = {"rule": "self.size() < 5", "messageExpression": mexpr}
    detail = "messageExpression compilation failed: ERROR: <input>: undeclared reference to 'cel' (in container '')"
    body = '{"messageExpression":"' + mexpr + '","rule":"self.size() < 5"}'
    assert _causes(rule) == [(f"{PATH}.messageExpression", "FieldValueInvalid", f"Invalid value: {body}: {detail}")]


@pytest.mark.parametrize(
    "rule",
    [
        pytest.param("strings.quote('a') != ''", id="ext.Strings v2: strings.quote"),
        pytest.param("sets.contains(self, ['a'])", id="ext.Sets: sets.contains"),
        pytest.param("lists.range(3).size() == 3", id="ext.Lists v3: lists.range"),
        pytest.param("optional.of(1).hasValue()", id="cel.OptionalTypes: optional.of"),
        pytest.param("self.all(i, e, i >= 0 && e != '')", id="ext.TwoVarComprehensions"),
    ],
)
def test_libraries_of_the_crd_environment_compile(rule: str) -> None:
    assert _causes({"rule": rule}) == []
