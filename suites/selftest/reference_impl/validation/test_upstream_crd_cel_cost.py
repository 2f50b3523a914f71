"""Upstream v1.37.2's CRD CEL cost tables against the reference.

``k8s.io/apiextensions-apiserver``: ``pkg/apiserver/schema/cel/compilation_test.go``
(``TestCostEstimation``, ``TestMetadataNameCostIsBounded``: a rule's estimated maximum
cost), ``pkg/apis/apiextensions/validation/validation_test.go`` (``TestCostInfo``: the
cardinality a schema node inherits; ``TestPerCRDEstimatedCost``: the per-CRD total;
``TestValidateCustomResourceDefinitionValidation``'s cost and budget rows: whole CRD
creates through a bare APIServer, with the exact errors the live apiserver returns)."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from reference_impl.apiserver.registry import Context
from reference_impl.apiserver.server import APIServer
from reference_impl.apiserver.strategies.apiextensions import validate_crd
from reference_impl.apiserver.strategies.apiextensions_cel import _tree
from reference_impl.apiserver.strategies.apiextensions_cel_cost import (
    TotalCost,
    decl_type,
    rule_max_cardinality,
)
from reference_impl.apiserver.strategies.apiextensions_cel_estimate import estimate
from reference_impl.clock import SimClock, parse_rfc3339
from reference_impl.errors import ApiError
from reference_impl.features import FeatureGates
from reference_impl.rng import Rng
from reference_impl.storage.mvcc import MVCCStore

Obj = dict[str, Any]
Gen = Callable[[int | None], Obj]
_MAXU = 2**64 - 1
_COST_LIMIT = 100_000_000  # compilation_test.go's costLimit


def _rule(s: Obj, rule: str) -> Obj:
    return {**s, "x-kubernetes-validations": [{"rule": rule}]}


def _with(s: Obj, key: str, v: int | None) -> Obj:
    return s if v is None else {**s, key: v}


def _prim(t: str) -> Obj:
    """``parseRuleType``: a format name is a string of that format."""
    if t in ("duration", "date", "date-time"):
        return {"type": "string", "format": t}
    if t == "int-or-string":
        return {"x-kubernetes-int-or-string": True}
    return {"type": t}


def gen_array(t: str, rule: str) -> Gen:
    return lambda m: _rule(_with({"type": "array", "items": _prim(t)}, "maxItems", m), rule)


def gen_array_of_arrays(t: str, rule: str) -> Gen:
    items = {"type": "array", "items": {"type": t}}
    return lambda m: _rule(_with({"type": "array", "items": items}, "maxItems", m), rule)


_REQ_OPT: Obj = {"required": {"type": "string"}, "optional": {"type": "string"}}
_OBJ_FOR_MAP: Obj = {"type": "object", "properties": _REQ_OPT, "required": ["required"]}


def gen_object_array(rule: str) -> Gen:
    return lambda m: _rule(_with({"type": "array", "items": _OBJ_FOR_MAP}, "maxItems", m), rule)


def gen_map_array(t: str, rule: str) -> Gen:
    items = {"type": "object", "additionalProperties": {"type": t}}
    return lambda m: _rule(_with({"type": "array", "items": items}, "maxItems", m), rule)


def gen_map(t: str, rule: str) -> Gen:
    return lambda m: _rule(_with({"type": "object", "additionalProperties": _prim(t)}, "maxProperties", m), rule)


def gen_map_of(item: Obj, rule: str) -> Gen:
    return lambda m: _rule(_with({"type": "object", "additionalProperties": item}, "maxProperties", m), rule)


def gen_string(rule: str) -> Gen:
    return lambda m: _rule(_with({"type": "string"}, "maxLength", m), rule)


def gen_enum(rule: str, *values: str) -> Gen:
    return lambda m: _rule(_with({"type": "string", "enum": list(values)}, "maxLength", m), rule)


def gen_bytes(rule: str) -> Gen:
    return lambda m: _rule(_with({"type": "string", "format": "byte"}, "maxLength", m), rule)


def gen_nested_spec(rule: str) -> Gen:
    return lambda m: _rule(
        _with({"type": "object", "additionalProperties": _with({"type": "string"}, "maxLength", m)}, "maxProperties", m),
        rule,
    )


def gen_nested_root(rule: str, *, all_max: bool) -> Gen:
    def g(m: int | None) -> Obj:
        inner = {"type": "object", "properties": _REQ_OPT, "required": ["required"]}
        inner = _with(inner, "maxProperties", m) if all_max else inner
        items = _with({"type": "object", "additionalProperties": inner}, "maxProperties", m)
        outer = {"type": "array", "items": items}
        return _rule(_with(outer, "maxItems", m) if all_max else outer, rule)

    return g


def gen_strings_list(rule: str) -> Gen:
    return lambda m: _rule(
        _with({"type": "array", "x-kubernetes-list-type": "atomic", "items": _with({"type": "string"}, "maxLength", m)},
              "maxItems", m),
        rule,
    )  # fmt: skip


def gen_str_object(rule: str, **extra: Obj) -> Gen:
    return lambda m: _rule({"type": "object", "properties": {"str": _with({"type": "string"}, "maxLength", m), **extra}}, rule)


def gen_int_or_string(rule: str) -> Gen:
    return lambda m: _rule(_with({"x-kubernetes-int-or-string": True}, "maxLength", m), rule)


_NUM_ARRAY: Obj = {"type": "array", "items": {"type": "number"}}
_NUM_MAP: Obj = {"type": "object", "additionalProperties": {"type": "number"}}
_NO_ESTIMATE = "the reference's estimator does not model {} (it gives no estimate, so no cost error)"


def _skip(what: str) -> Any:
    return pytest.mark.skip(reason=_NO_ESTIMATE.format(what))


# (row name, generator, setMaxElements, expectedCalcCost, expectCalcCostExceedsLimit, expectedSetCost)
_ESTIMATION: list[Any] = [
    pytest.param(gen_array("number", "self.all(x, true)"), 10, 4718591, 0, 32, id="number array with all"),
    pytest.param(gen_array("string", "self.all(x, true)"), 20, 3145727, 0, 62, id="string array with all"),
    pytest.param(gen_array("boolean", "self.all(x, true)"), 5, 1887437, 0, 17, id="boolean array with all"),
    pytest.param(gen_array_of_arrays("number", "self.all(x, true)"), 100, 3145727, 0, 302, id="array of number arrays with all"),
    pytest.param(gen_object_array("self.all(x, true)"), 50, 555128, 0, 152, id="array of objects with all"),
    pytest.param(gen_map("number", "self.all(x, true)"), 10, 1348169, 0, 32, id="map of numbers with all"),
    pytest.param(gen_map("number", "has(self.x)"), 100, 0, 0, 0, id="map of numbers with has"),
    pytest.param(gen_map("string", "self.all(x, true)"), 3, 1179647, 0, 11, id="map of strings with all"),
    pytest.param(gen_map("string", "has(self.x)"), 550, 0, 0, 0, id="map of strings with has"),
    pytest.param(gen_map("boolean", "self.all(x, true)"), 100, 943718, 0, 302, id="map of booleans with all"),
    pytest.param(gen_map("boolean", "has(self.x)"), 1024, 0, 0, 0, id="map of booleans with has"),
    pytest.param(gen_string("self.contains('test')"), 10, 314574, 0, 5, id="string with contains"),
    pytest.param(gen_string("self.startsWith('test')"), 15, 2, 0, 2, id="string with startsWith"),
    pytest.param(gen_string("self.endsWith('test')"), 30, 2, 0, 2, id="string with endsWith"),
    pytest.param(gen_string('size(self + "hello") > size("hello")'), 4, 314578, 0, 7, id="concat string"),
    pytest.param(gen_array("number", "self[1] == 0.0"), 5000, 2, 0, 2, id="index of array with numbers"),
    pytest.param(gen_array("string", "self[1] == self[1]"), 8, 314577, 0, 314577, id="index of array with strings"),
    pytest.param(gen_array("number", "self.all(x, self.all(y, true))"), 10, 0, _COST_LIMIT, 352, id="O(n^2) loop with numbers"),
    pytest.param(gen_array("number", "self.all(x, self.all(y, self.all(z, true)))"), 10, 0, _COST_LIMIT, 3552,
                 id="O(n^3) loop with numbers"),
    pytest.param(gen_string('self.matches("x")'), 50, 314574, 0, 22, id="regex matches simple"),
    pytest.param(gen_string('"".matches("(((((((((())))))))))[0-9]")'), 10, 7, 0, 7, id="regex matches empty string"),
    pytest.param(gen_string('self.matches("")'), 100, 1, 0, 1, id="regex matches empty regex"),
    pytest.param(gen_nested_spec("self.all(x, x.contains(self[x]))"), 10, 2752507, 0, 72, id="map of strings with value length"),
    pytest.param(gen_array("number", "self[3] == 0.0"), 0, 2, 0, 2, id="set array maxLength to zero"),
    pytest.param(gen_map("number", 'self["x"] == 0.0'), 0, 2, 0, 2, id="set map maxLength to zero"),
    pytest.param(gen_string('self == "x"'), 0, 2, 0, 1, id="set string maxLength to zero"),
    pytest.param(gen_bytes('self == b"x"'), 0, 2, 0, 1, id="set bytes maxLength to zero"),
    pytest.param(gen_array("number", "self.all(x, x == 0.0)"), 3 * 1024 * 2048, 6291454, 0, 25165826,
                 id="set maxLength greater than estimated maxLength"),
    pytest.param(gen_nested_root('self.all(x, x["y"].required == "z")', all_max=True), 10, 7340027, 0, 72,
                 id="nested types with root rule with all supporting maxLength"),
    pytest.param(gen_nested_root('self.all(x, x["y"].required == "z")', all_max=False), 10, 7340027, 0, 7340027,
                 id="nested types with root rule with one supporting maxLength"),
    pytest.param(gen_array("int-or-string", "self.all(x, true)"), 10, 4718591, 0, 32, id="int-or-string array with all"),
    pytest.param(gen_array("int-or-string", "self[0] == 5"), 10, 3, 0, 3, id="index of array with int-or-strings"),
    pytest.param(gen_array("boolean", "self[0] == false"), 25, 2, 0, 2, id="index of array with booleans"),
    pytest.param(gen_object_array("self[0] == null"), 422, 2, 0, 2, id="index of array of objects"),
    pytest.param(gen_array_of_arrays("number", "self[0][0] == -1.0"), 51, 3, 0, 3, id="index of array of array of numnbers"),
    pytest.param(gen_map_array("number", "self.all(x, x.y == 25.2)"), 12, 6291452, 0, 74, id="array of number maps with all"),
    pytest.param(gen_map_array("number", "self[0].x > 2.0"), 3000, 4, 0, 4, id="index of array of number maps"),
    pytest.param(gen_array("duration", "self.all(x, true)"), 5, 2359295, 0, 17, id="duration array with all"),
    pytest.param(gen_array("duration", "self[0].getHours() == 2"), 525, 4, 0, 4, id="index of duration array"),
    pytest.param(gen_array("date", "self.all(x, true)"), 15, 725936, 0, 47, id="date array with all"),
    pytest.param(gen_array("date", "self[2].getDayOfMonth() == 13"), 42, 4, 0, 4, id="index of date array"),
    pytest.param(gen_array("date-time", "self.all(x, true)"), 25, 428963, 0, 77, id="date-time array with all"),
    pytest.param(gen_array("date-time", "self[2].getMinutes() == 45"), 99, 4, 0, 4, id="index of date-time array"),
    pytest.param(gen_map("int-or-string", "self.all(x, true)"), 15, 1348169, 0, 47, id="map of int-or-strings with all"),
    pytest.param(gen_map("int-or-string", "has(self.x)"), 5000, 0, 0, 0, id="map of int-or-strings with has"),
    pytest.param(gen_map_of(_OBJ_FOR_MAP, "self.all(x, true)"), 20, 428963, 0, 62, id="map of objects with all"),
    pytest.param(gen_map_of(_OBJ_FOR_MAP, "has(self.x)"), 9001, 0, 0, 0, id="map of objects with has"),
    pytest.param(gen_map_of(_NUM_MAP, "self.all(x, true)"), 10, 1179647, 0, 32, id="map of number maps with all"),
    pytest.param(gen_map_of(_NUM_MAP, "has(self.x)"), 101, 0, 0, 0, id="map of number maps with has"),
    pytest.param(gen_map_of(_NUM_ARRAY, "self.all(x, true)"), 25, 1179647, 0, 77, id="map of number arrays with all"),
    pytest.param(gen_map_of(_NUM_ARRAY, "has(self.x)"), 40000, 0, 0, 0, id="map of number arrays with has"),
    pytest.param(gen_map("duration", "self.all(x, true)"), 5, 1048577, 0, 17, id="map of durations with all"),
    pytest.param(gen_map("duration", "has(self.x)"), 256, 0, 0, 0, id="map of durations with has"),
    pytest.param(gen_map("date", "self.all(x, true)"), 10, 524288, 0, 32, id="map of dates with all"),
    pytest.param(gen_map("date", "has(self.x)"), 65536, 0, 0, 0, id="map of dates with has"),
    pytest.param(gen_map("date-time", "self.all(x, true)"), 25, 349526, 0, 77, id="map of date-times with all"),
    pytest.param(gen_map("date-time", "has(self.x)"), 490, 0, 0, 0, id="map of date-times with has"),
    pytest.param(gen_string("self.find('[0-9]+') == ''"), 10, 629147, 0, 11, id="extended library regex find"),
    pytest.param(gen_strings_list("self.join(' ') == 'aa bb'"), 10, 329853068905, 0, 43, id="extended library join"),
    pytest.param(gen_strings_list("self.isSorted() == true"), 10, 329854432052, 0, 52, id="extended library isSorted"),
    pytest.param(gen_str_object("self.str.replace(self.before, self.after) == 'does not matter'",
                                before={"type": "string", "maxLength": 2}, after={"type": "string", "maxLength": 4}),
                 4, 629154, 0, 12, id="extended library replace", marks=_skip("replace")),
    pytest.param(lambda m: gen_str_object("self.str.split(self.separator) == []",
                                          separator=_with({"type": "string"}, "maxLength", m))(m),
                 10, 629160, 0, 22, id="extended library split"),
    pytest.param(gen_string("self.lowerAscii() == 'lower!'"), 10, 314575, 0, 6, id="extended library lowerAscii"),
    pytest.param(gen_map("integer", "oldSelf.size() == self.size()"), 10, 5, 0, 5, id="check cost of size call"),
    pytest.param(gen_map("date-time", 'self["a"] == self["b"]'), 7, 8, 0, 8, id="check cost of timestamp comparison"),
    pytest.param(gen_map("duration", 'self["c"] == self["d"]'), 42, 8, 0, 8, id="check cost of duration comparison"),
    pytest.param(gen_enum("self.contains('A')", "A", "B", "C", "LongValue"), 1000, 2, 0, 401,
                 id="enums with maxLength equals to the longest possible value"),
    pytest.param(gen_int_or_string("isQuantity(self)"), 20, 314574, 0, 9, id="IntOrString type with quantity rule",
                 marks=_skip("the quantity library")),
]  # fmt: skip


def _max_cost(s: Obj) -> int | None:
    """``Compile(s, SchemaDeclType(s, false), ...)[0].MaxCost``."""
    decl = decl_type(s, False)
    assert decl is not None
    return estimate(_tree(s["x-kubernetes-validations"][0]["rule"]), decl)


@pytest.mark.parametrize(("gen", "set_max", "calc", "calc_exceeds", "set_cost"), _ESTIMATION)
def test_cost_estimation(gen: Gen, set_max: int, calc: int, calc_exceeds: int, set_cost: int) -> None:
    """``TestCostEstimation`` (``schemaChecker``: a zero expectation is not checked)."""
    for s, want, exceeds in ((gen(None), calc, calc_exceeds), (gen(set_max), set_cost, 0)):
        got = _max_cost(s)
        assert got is not None
        if want > 0:
            assert got == want
        if exceeds > 0:
            assert got >= exceeds


@pytest.mark.parametrize("rule", ["self.metadata.name.contains('x')", "self.metadata.generateName.contains('x')"],
                         ids=["name rule", "generateName rule"])  # fmt: skip
def test_metadata_name_cost_is_bounded(rule: str) -> None:
    """``TestMetadataNameCostIsBounded``: the root's ``metadata.name`` is 253 characters."""
    decl = decl_type({"type": "object"}, True)
    assert decl is not None
    got = estimate(_tree(rule), decl)
    assert got is not None and 0 < got <= 10000


# --- TestCostInfo ---------------------------------------------------------------------


def _obj() -> Obj:
    return {"type": "object", "properties": {}}


def _arr(max_items: int | None = None) -> Obj:
    return _with({"type": "array"}, "maxItems", max_items)


def _map(max_props: int | None = None) -> Obj:
    return _with({"type": "object", "additionalProperties": {"type": "string"}}, "maxProperties", max_props)


def _chain(schemas: list[Obj]) -> tuple[Obj, str]:
    """The schemas nested in order (the test's ``childContext`` calls), a string leaf
    appended: the root and the leaf's path."""
    nodes = [copy.deepcopy(s) for s in schemas] + [{"type": "string"}]
    path = "openAPIV3Schema"
    for parent, child in zip(nodes, nodes[1:], strict=False):
        if parent.get("type") == "array":
            parent["items"], path = child, f"{path}.items"
        elif "additionalProperties" in parent:
            parent["additionalProperties"], path = child, f"{path}.additionalProperties"
        else:
            parent["properties"]["f"], path = child, f"{path}.properties[f]"
    return nodes[0], path


_COST_INFO: list[Any] = [
    pytest.param([_obj()], 1, id="object"),
    pytest.param([_arr(5)], 5, id="array"),
    pytest.param([_arr()], None, id="unbounded array"),
    pytest.param([_map(10)], 10, id="map"),
    pytest.param([_map()], None, id="unbounded map"),
    pytest.param([_map(5), _arr(5)], 25, id="array inside map"),
    pytest.param([_map(5), _arr()], None, id="unbounded array inside bounded map"),
    pytest.param([_arr(3), _obj()], 3, id="object inside array"),
    pytest.param([_arr(2), _obj(), _map(4)], 8, id="map inside object inside array"),
    pytest.param([_arr(2**63 - 1), _arr(100)], _MAXU, id="integer overflow bounds check"),
]


@pytest.mark.parametrize(("schemas", "want"), _COST_INFO)
def test_cost_info(schemas: list[Obj], want: int | None) -> None:
    """``TestCostInfo``: the leaf's ``MaxCardinality`` (None: unbounded)."""
    root, path = _chain(schemas)
    assert rule_max_cardinality(root, path) == want


# --- TestPerCRDEstimatedCost ------------------------------------------------------------

_PER_CRD: list[Any] = [
    pytest.param([], [], 0, id="no costs"),
    pytest.param([1000000], [1000000], 1000000, id="one cost"),
    pytest.param([900000], [], 900000, id="one cost, ignored"),
    pytest.param([5000000, 25000000], [25000000, 5000000], 30000000, id="2 costs"),
    pytest.param([5000000, 25000000, 900000], [25000000, 5000000], 30900000, id="3 costs, one ignored"),
    pytest.param([16000000, 50000000, 34000000, 50000000], [50000000, 50000000, 34000000, 16000000], 150000000,
                 id="4 costs"),
    pytest.param([16000000, 50000000, 900000, 34000000, 50000000, 50000001], [50000001, 50000000, 50000000, 34000000],
                 200900001, id="5 costs, one trimmed, one ignored"),
    pytest.param([_MAXU // 2, _MAXU // 2, 1, 10, 100, 1000], [_MAXU // 2, _MAXU // 2], _MAXU,
                 id="costs do not overflow"),
]  # fmt: skip


@pytest.mark.parametrize(("costs", "expensive", "total"), _PER_CRD)
def test_per_crd_estimated_cost(costs: list[int], expensive: list[int], total: int) -> None:
    """``TestPerCRDEstimatedCost``: ``ObserveExpressionCost``'s total and top four."""
    t = TotalCost()
    for c in costs:
        t.observe("", c)
    assert [c for _, c in t.most_expensive] == expensive
    assert t.total == total


# --- TestValidateCustomResourceDefinitionValidation's cost rows: whole CRD creates ---------

_ADVICE = (
    " (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings"
    " are declared)"
)
_SP = "spec.validation.openAPIV3Schema"  # one version: its schema is hoisted to the top level
_CONTRIBUTED = "Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema"
_TOTAL = "Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of "
_RULE = "Forbidden: estimated rule cost exceeds budget by factor of "
_MESSAGE = "Forbidden: estimated messageExpression cost exceeds budget by factor of "
_F = "FieldValueForbidden"


def _crd(schema: Obj) -> Obj:
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


def _causes(obj: Obj) -> list[tuple[str, str, str]]:
    """A create's error causes, sorted."""
    srv = APIServer(MVCCStore(), SimClock(parse_rfc3339("2026-12-06T00:00:00Z")), Rng(0), FeatureGates({}))
    try:
        srv.create(copy.deepcopy(obj))
    except ApiError as e:
        return sorted((c.field, c.reason, c.message) for c in e.causes)
    return []


def _v(rule: str, **kw: str) -> list[Obj]:
    return [{"rule": rule, **kw}]


def _double_nested(key: Obj, outer_max: int | None = None, inner_max: int | None = None) -> Obj:
    items = _with({"type": "object", "additionalProperties": {
        "type": "object", "required": ["key"], "properties": {"key": key}}}, "maxProperties", inner_max)  # fmt: skip
    value = _with({"type": "array", "items": items}, "maxItems", outer_max)
    value["x-kubernetes-validations"] = _v("self.all(x, x.all(y, x[y].key == x[y].key))")
    return {"type": "object", "properties": {"value": value}}


_VALUE_RULE = f"{_SP}.properties[value].x-kubernetes-validations[0].rule"
_F_MESSAGE = f"{_SP}.properties[f].x-kubernetes-validations[0].messageExpression"
_DOUBLE_NESTED_ERRORS = [
    (_SP, _F, _TOTAL + "more than 100x" + _ADVICE),
    (_VALUE_RULE, _F, _CONTRIBUTED),
    (_VALUE_RULE, _F, _RULE + "more than 100x" + _ADVICE),
]
_CONTAINS = _v("self.contains('keyword')")
_STRINGS: Obj = {"type": "array", "items": {"type": "string"}}

_VALIDATION_ROWS: list[Any] = [
    pytest.param(_double_nested({"type": "string"}), _DOUBLE_NESTED_ERRORS, id="forbid double-nested rule with no limit set"),
    pytest.param(_double_nested({"type": "string", "maxLength": 10}), _DOUBLE_NESTED_ERRORS,
                 id="forbid double-nested rule with one limit set"),
    pytest.param(_double_nested({"type": "string", "maxLength": 10}, 10, 10), [],
                 id="allow double-nested rule with three limits set"),
    pytest.param(_double_nested({"type": "number"}, 4), [], id="allow double-nested rule with one limit set on outermost array"),
    pytest.param({"type": "object", "properties": {"value": {"type": "integer", "x-kubernetes-validations": _v("self < 1024")}}},
                 [], id="check for cardinality of 1 under root object"),
    pytest.param(
        {"type": "object", "properties": {
            "list": {"type": "array", "maxItems": 100000,
                     "items": {"type": "string", "maxLength": 5000, "x-kubernetes-validations": _CONTAINS}},
            "map": {"type": "object", "maxProperties": 1000,
                    "additionalProperties": {"type": "string", "maxLength": 5000, "x-kubernetes-validations": _CONTAINS}},
            "field": {"type": "integer", "x-kubernetes-validations": _v("self > 50 && self < 100")}}},
        [
            (_SP, _F, _TOTAL + "2.0x" + _ADVICE),
            (f"{_SP}.properties[list].items.x-kubernetes-validations[0].rule", _F, _CONTRIBUTED),
            (f"{_SP}.properties[list].items.x-kubernetes-validations[0].rule", _F, _RULE + "20.0x" + _ADVICE),
            (f"{_SP}.properties[map].additionalProperties.x-kubernetes-validations[0].rule", _F, _CONTRIBUTED),
        ],
        id="forbid validation rules where cost total exceeds total limit"),
    pytest.param(
        {"type": "object", "properties": {"f": {**_STRINGS, "x-kubernetes-validations": _v(
            "true", messageExpression="self[0] + self[1] + self[2] + self[3] + self[4] + self[5] + self[6] + self[7]")}}},
        [(_F_MESSAGE, _F, _MESSAGE + "1.101006x" + _ADVICE)],
        id="x-kubernetes-validations rule invalidated by messageExpression exceeding per-expression estimated cost limit"),
    pytest.param(
        {"type": "object", "properties": {"f": {
            "type": "array", "maxItems": 5, "items": {"type": "string", "maxLength": 5},
            "x-kubernetes-validations": _v("self.all(x, self.exists_one(y, x.lowerAscii() == y.lowerAscii()))")}}},
        [], id="x-kubernetes-validations rule with lowerAscii check should be within estimated cost limit"),
    pytest.param(
        {"type": "object", "x-kubernetes-validations": _v(
            "self.metadata.name.contains(self.metadata.name) && "
            "self.metadata.generateName.contains(self.metadata.generateName)")},
        [], id="x-kubernetes-validations rule referencing metadata.name and generateName is within estimated cost limit"),
    pytest.param(
        {"type": "object", "properties": {"f": {**_STRINGS, "x-kubernetes-validations": _v(
            "true", messageExpression="string(self[0]) + string(self[1]) + string(self[2])")}}},
        [
            (_SP, _F, _TOTAL + "more than 100x" + _ADVICE),
            (_F_MESSAGE, _F, _CONTRIBUTED),
            (_F_MESSAGE, _F, _MESSAGE + "more than 100x" + _ADVICE),
        ],
        id="x-kubernetes-validations rule invalidated by messageExpression exceeding per-CRD estimated cost limit"),
]  # fmt: skip


@pytest.mark.parametrize(("schema", "want"), _VALIDATION_ROWS)
def test_validate_crd_validation_cost(schema: Obj, want: list[tuple[str, str, str]]) -> None:
    """``TestValidateCustomResourceDefinitionValidation``'s cost rows, as v1 creates: the
    errors (and their messages, as the live v1.37.2 apiserver words them)."""
    assert _causes(_crd(schema)) == sorted(want)


# --- TestValidateCustomResourceDefinitionUpdate's cost-suppression rows ---------------------

_M8 = "self[0] + self[1] + self[2] + self[3] + self[4] + self[5] + self[6] + self[7]"


def _versioned(versions: list[tuple[str, str]]) -> Obj:
    """A v1 CRD (defaults applied) whose versions' schemas carry ``f``'s messageExpression."""
    def schema(m: str) -> Obj:
        f = {**_STRINGS, "x-kubernetes-validations": [{"rule": "true", "messageExpression": m}]}
        return {"openAPIV3Schema": {"type": "object", "properties": {"f": f}}}

    obj = _crd({})
    obj["metadata"] = {"name": "plural.group.com", "resourceVersion": "1"}
    obj["spec"].update(group="group.com", scope="Cluster", conversion={"strategy": "None"},
                       names={"plural": "plural", "singular": "singular", "kind": "Plural", "listKind": "PluralList"})
    obj["spec"]["versions"] = [
        {"name": n, "served": n == "v1", "storage": n == "v1", "schema": schema(m)} for n, m in versions
    ]
    obj["status"] = {"storedVersions": ["v1"]}
    return obj  # fmt: skip


def _update_causes(new: Obj, old: Obj) -> list[tuple[str, str, str]]:
    """``ValidateCustomResourceDefinitionUpdate`` (the old object is not re-validated)."""
    ctx = Context(FeatureGates({}), lambda *a: None, lambda *a: [])
    return sorted((c.field, c.reason, c.message) for c in validate_crd(new, old, ctx))


_V1_MESSAGE = "spec.versions[1].schema.openAPIV3Schema.properties[f].x-kubernetes-validations[0].messageExpression"
_UPDATE_ROWS: list[Any] = [
    # Upstream's internal-form old object keeps v1's and v2's identical schemas per version
    # and expects v3 flagged too; a v1 write hoists identical schemas to the top level, and
    # GetSchemaForVersion then gives that schema for v3 as well, so v1.37.2 suppresses it.
    pytest.param(_versioned([("v1", _M8), ("v2", _M8 + " + self[8]"), ("v3", _M8)]), _versioned([("v1", _M8), ("v2", _M8)]),
                 [(_V1_MESSAGE, _F, _MESSAGE + "1.384122x" + _ADVICE)],
                 id="suppress per-expression cost limit in pre-existing versions"),
    pytest.param(_versioned([("v1", _M8), ("v2", _M8 + " + self[8]")]), _versioned([("v1", _M8)]),
                 [(_V1_MESSAGE, _F, _MESSAGE + "1.384122x" + _ADVICE)],
                 id="suppress per-expression cost limit in new object during top-level schema to Versions extraction"),
]  # fmt: skip


@pytest.mark.parametrize(("new", "old", "want"), _UPDATE_ROWS)
def test_validate_crd_update_cost_suppression(new: Obj, old: Obj, want: list[tuple[str, str, str]]) -> None:
    """A version whose schema an update leaves as it was keeps its over-budget expressions."""
    assert _update_causes(new, old) == sorted(want)
