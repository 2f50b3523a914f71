"""DRA CEL cost estimation against upstream v1.37.2's own rows.

``TestCEL`` (k8s.io/dynamic-resource-allocation cel/compile_test.go) checks
``CompilationResult.MaxCost`` of every expression that compiles: each such row is one case
here on ``reference_impl.dra.cel_cost.cost`` and on the cost ``validation`` uses. The cost
rows of ``TestValidateClaim`` (pkg/apis/resource/validation/validation_resourceclaim_test.go:
"CEL-length", "CEL-cost", "derived-attributes-CEL-*") run through the reference apiserver
with upstream's exact errors. The deviceclass and claim template tests have no cost rows.
Extra shapes near the limit were checked with a probe calling upstream's
``GetCompiler(...).CompileCELExpression`` (built outside the repository).
"""

from __future__ import annotations

from typing import Any, Final

import celpy
import pytest

from fixtures.validation_diff import Case, run_reference
from fixtures.validation_diff.build import claim
from reference_impl.dra.cel_cost import cost
from reference_impl.dra.validation import expression_causes

_ENV: Final = celpy.Environment()
_MAX_LIST: Final = 64  # maxElementsListTypeEnabled
_A: Final = 'device.attributes["dra.example.com"]'
_C: Final = 'device.capacity["dra.example.com"]'
_INCLUDES: Final = 4 + 64  # cost of "includes" on dynamic type
_L10: Final = "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]"


def _nested(names: str) -> str:
    """Upstream's nested ``all`` over ten-element lists around ``int('1'.find('[0-9]*')) < 100``."""
    expr = "int('1'.find('[0-9]*')) < 100"
    for v in reversed(names.split()):
        expr = f"{_L10}.all({v}, {expr})"
    return expr


_EXPENSIVE: Final = _nested("x y z z2 z3 z4 z5")
_UNDER: Final = _nested("x y z z2 z3")
_ALL: Final = f"""
{_C}.quantity.isGreaterThan(quantity("1Ki")) &&
{_A}.bool &&
{_A}.int > 0 &&
{_A}.string == "fish" &&
{_A}.version.isGreaterThan(semver("0.0.1")) &&
{_C}["quantity"].isGreaterThan(quantity("1Ki")) &&
{_A}["bool"] &&
{_A}["int"] > 0 &&
{_A}["string"] == "fish" &&
{_A}["version"].isGreaterThan(semver("0.0.1"))
"""

# (row, expression, expectCost): every TestCEL row without expectCompileError.
_COMPILE_ROWS: Final[list[tuple[str, str, int]]] = [
    ("true", "true", 0),
    ("false", "false", 0),
    ("runtime-error-lookup-identifier", 'device.attributes["no-such-domain"].noSuchAttr.isGreaterThan(quantity("0"))', 6),
    ("runtime-error-lookup-map", 'device.attributes["no-such-domain"]["noSuchAttr"].isGreaterThan(quantity("0"))', 6),
    ("domain-check-negative", '"no-such-domain" in device.attributes', 3),
    ("domain-check-positive", '"dra.example.com" in device.attributes', 3),
    ("empty-driver-name", 'device.driver == ""', 2),
    ("real-driver-name", 'device.driver == "dra.example.com"', 4),
    ("driver-name-qualifier", f"{_A}.name", 4),
    ("driver-name-qualifier-map-lookup", f'{_A}["name"]', 4),
    ("bind", f"cel.bind(dra, {_A}, dra.name)", 15),
    ("qualified-attribute-name", 'device.attributes["other.example.com"].name', 4),
    ("bool", f"{_A}.name", 4),
    ("int", f"{_A}.name > 0", 5),
    ("string", f'{_A}.name == "fish"', 5),
    ("macro-exists-on-int", f"{_A}.name.exists(x, x > 0)", 5 + (3 + 3) * _MAX_LIST),
    ("macro-exists-on-bool", f"{_A}.name.exists(x, x == true)", 5 + (3 + 3) * _MAX_LIST),
    ("macro-exists-on-string", f'{_A}.name.exists(x, x == "fish")', 5 + (3 + 3) * _MAX_LIST),
    ("list-result-type-causes-match-error", f"{_A}.names", 4),
    ("includes-function-can-evaluate", f'{_A}.name.includes("fish")', _INCLUDES),
    ("list-of-bool", f"{_A}.names.size() == 2", 6),
    ("list-of-int", f"{_A}.names.size() == 2", 6),
    ("list-of-string", f"{_A}.names.size() == 2", 6),
    ("list-of-semver", f"{_A}.names.size() == 2", 6),
    ("macro-on-list-of-int", f"{_A}.names.exists(x, x > 0)", 5 + (3 + 3) * _MAX_LIST),
    ("macro-on-list-of-string", f'{_A}.names.all(x, x != "")', 5 + (2 + 2) * _MAX_LIST),
    ("macro-on-list-of-semver", f'{_A}.names.all(x, x.isGreaterThan(semver("0.0.1")))', 5 + (2 + 4) * _MAX_LIST),
    ("includes-function-compilation-and-eval-success", f'{_A}.attr.includes("fish")', _INCLUDES),
    ("includes-function-on-bool-scalar-positive", f"{_A}.name.includes(true)", _INCLUDES),
    ("includes-function-on-bool-scalar-negative", f"{_A}.name.includes(true)", _INCLUDES),
    ("includes-function-on-bool-list-positive", f"{_A}.name.includes(true)", _INCLUDES),
    ("includes-function-on-bool-list-negative", f"{_A}.name.includes(false)", _INCLUDES),
    ("includes-function-on-int-scalar-positive", f"{_A}.name.includes(1)", _INCLUDES),
    ("includes-function-on-int-scalar-negative", f"{_A}.name.includes(1)", _INCLUDES),
    ("includes-function-on-int-list-positive", f"{_A}.name.includes(1)", _INCLUDES),
    ("includes-function-on-int-list-negative", f"{_A}.name.includes(3)", _INCLUDES),
    ("includes-function-on-string-scalar-positive", f'{_A}.name.includes("fish")', _INCLUDES),
    ("includes-function-on-string-scalar-negative", f'{_A}.name.includes("bird")', _INCLUDES),
    ("includes-function-on-string-list-positive", f'{_A}.name.includes("fish")', _INCLUDES),
    ("includes-function-on-string-list-negative", f'{_A}.name.includes("cat")', _INCLUDES),
    ("includes-function-on-semver-scalar-positive", f'{_A}.name.includes(semver("1.0.0"))', _INCLUDES + 1),
    ("includes-function-on-semver-scalar-negative", f'{_A}.name.includes(semver("2.0.0"))', _INCLUDES + 1),
    ("includes-function-on-semver-list-positive", f'{_A}.name.includes(semver("1.0.0"))', _INCLUDES + 1),
    ("includes-function-on-semver-list-negative", f'{_A}.name.includes(semver("3.0.0"))', _INCLUDES + 1),
    ("includes-function-on-very-long-list-positive", f'{_A}.name.includes("value-48")', _INCLUDES),
    ("in-operator-on-list", f"1 in {_A}.names", 4 + 64),
    ("version", f'{_A}.name.isGreaterThan(semver("0.0.1"))', 6),
    ("version_v", f'{_A}.name.isGreaterThan(semver("v0.0.1", true)) && isSemver("v1.0.0", true)', 7),
    ("macro-exists-on-version", f'{_A}.name.exists(x, x.isGreaterThan(semver("0.0.1")))', 5 + (3 + 4) * _MAX_LIST),
    ("quantity", f'{_C}.name.isGreaterThan(quantity("1Ki"))', 6),
    ("check-positive", f'"name" in {_C} && {_C}.name.isGreaterThan(quantity("1Ki"))', 10),
    ("check-negative", f'!("name" in {_C}) || {_C}.name.isGreaterThan(quantity("1Ki"))', 11),
    ("all", _ALL, 52),
    ("many", f"{_A}.a && {_A}.b && {_A}.c", 12),
    ("check_attribute_domains", 'device.attributes.exists_one(x, x == "dra.example.com")', 164),
    ("check_attribute_ids", f'{_A}.exists_one(x, x == "services")', 133),
    ("split_attribute", f'{_A}.services.split("example").size() >= 2', 19),
    ("regexp_attribute", f'{_A}.services.matches("[^a]?sym")', 18),
    ("check_capacity_domains", 'device.capacity.exists_one(x, x == "dra.example.com")', 164),
    ("check_capacity_ids", f'{_C}.exists_one(x, x == "memory")', 133),
    ("expensive", _EXPENSIVE, 85555551),
    ("allow_multiple_allocations", "device.allowMultipleAllocations == true", 3),
    ("allow_multiple_allocations_default", "device.allowMultipleAllocations == false", 3),
    ("allow_multiple_allocations_false", "device.allowMultipleAllocations == false", 3),
    ("allow_multiple_allocations_new", "device.allowMultipleAllocations == false", 3),
    ("allow_multiple_allocations_enabled", "device.allowMultipleAllocations == false", 3),
]

# Shapes near the limit and DRA-specific paths, each cost read from upstream's compiler.
_PROBED: Final[list[tuple[str, str, int]]] = [
    ("five-levels", _UNDER, 855551),
    ("attribute-domains-nested", f"device.attributes.all(d, device.attributes[d].all(i, {_A}.exists(x, x == i)))",
     335107),
    ("matches-dyn-pattern", "device.attributes['x.com'].s.matches(device.attributes['x.com'].t)", 120),
    ("map-lower-size-sum", f"{_A}.map(s, s.lowerAscii()).map(s, s.size()).sum() == 0", 1050),
    ("ids-three-levels", f"{_A}.exists(a, {_A}.exists(b, {_A}.exists(c, a == b && b == c)))", 532740),
    ("values-three-levels-true", f"{_A}.names.exists(a, {_A}.names.exists(b, {_A}.names.exists(c, true)))", 1086021),
    ("values-three-levels-all", f'{_A}.names.all(a, {_A}.names.all(b, {_A}.names.all(c, c != "")))', 1081861),
    ("values-three-levels-unknown-size",
     f"{_A}.names.exists(a, {_A}.names.exists(b, {_A}.names.exists(c, a == b)))", 2**64 - 1),
    ("per-attribute-regex", "device.attributes.all(d, device.attributes[d].all(i, device.attributes[d][i].all(x, "
     'x.matches("^a+$"))))', 2**64 - 1),
    ("per-attribute-contains", "device.attributes.all(d, device.attributes[d].all(i, "
     "device.attributes[d][i].lowerAscii().contains(d)))", 67843),
    ("bind-then-nested", f"cel.bind(a, {_A}, a.names.all(x, a.names.all(y, a.names.all(z, x == z))))", 2**64 - 1),
    ("per-capacity", 'device.capacity.all(d, device.capacity[d].all(i, device.capacity[d][i].isGreaterThan(quantity("1"))))',
     11523),
    ("size-of-dyn", f"size({_A}.model) > 2", 6),
    ("dyn-plus-int", f"{_A}.count + 1 > 2", 6),
    ("dyn-times-double", f"2.0 * {_A}.n > 4.0", 6),
    ("dyn-minus-uint", f"{_A}.n - 1u > 4u", 6),
    ("not-dyn", f"!{_A}.flag", 5),
    ("negate-dyn", f"-{_A}.n < 0", 6),
    ("dyn-less-dyn", f"{_A}.n < {_A}.m", 15),
    ("dyn-less-string", f'{_A}.n < "abcdefghijklmnopqrst"', 6),
    ("dyn-less-empty-string", f'{_A}.n < ""', 4),
    ("is-sorted-dyn", f"{_A}.major.isSorted()", 11),
    ("index-of-dyn", f"{_A}.n.indexOf(1) > 4", 12),
    ("sum-dyn", f"{_A}.n.sum() > 4", 12),
    ("semver-of-dyn", f"semver({_A}.s).major() == 1", 13),
    ("quantity-of-dyn", f"quantity({_A}.s).isInteger()", 12),
    ("map-plus-one", f"{_A}.names.map(x, x + 1).size() > 0", 913),
    ("regex-escape", f'{_A}.model.matches("^a\\\\.b$")', 18),
    ("raw-regex", f"{_A}.model.matches(r'^a\\.b\\d+$')", 25),
    ("unicode-escapes", 'device.driver == "\\x41\\101\\u00e9\\n\\\\abcdefghijklmnop"', 5),
    ("code-points", 'device.driver == "ééééééééééé"', 4),
]


@pytest.mark.parametrize(("expr", "want"), [pytest.param(e, c, id=n) for n, e, c in _COMPILE_ROWS])
def test_compile_cost(expr: str, want: int) -> None:
    assert cost(_ENV.compile(expr)) == want


@pytest.mark.parametrize(("expr", "want"), [pytest.param(e, c, id=n) for n, e, c in _COMPILE_ROWS])
def test_validation_uses_cost(expr: str, want: int) -> None:
    """The cost the selector validation charges is that estimate (non-bool results are
    refused before any cost is charged)."""
    errs, got = expression_causes(expr, "p", lists=True, derived=False)
    if errs and "must evaluate to bool" in errs[0].message:
        assert got == 0
    else:
        assert got == want


@pytest.mark.parametrize(("expr", "want"), [pytest.param(e, c, id=n) for n, e, c in _PROBED])
def test_probed_cost(expr: str, want: int) -> None:
    assert cost(_ENV.compile(expr)) == want


def _req(**exactly: Any) -> dict[str, Any]:
    return {"name": "req-0", "exactly": {"deviceClassName": "gpu", **exactly}}


def _derived(*exprs: str) -> dict[str, Any]:
    names = [f"derived/sharedNumaNode{i + 1}" for i in range(len(exprs))]
    return claim("fv", _req(derivedAttributes=[{"name": n, "expression": e} for n, e in zip(names, exprs, strict=True)]),
                 constraints=[{"requests": ["req-0"], "matchAttribute": n} for n in names])


def _long(extra: int) -> str:
    expr = 'device.driver == ""'
    return expr.replace('""', '"' + "x" * (10240 - len(expr) + extra) + '"')


_SEL: Final = "spec.devices.requests[{}].exactly.selectors[{}].cel.expression"
_DER: Final = "spec.devices.requests[0].exactly.derivedAttributes[0].expression"
_FORBIDDEN: Final = "Forbidden: too complex, exceeds cost limit"
_TOTAL: Final = "Forbidden: too complex, total cost of derived attribute CEL expressions in the claim exceeds cost limit"
_TOO_LONG: Final = "Too long: may not be more than 10240 bytes"

_CLAIM_ROWS: Final = [
    pytest.param(claim("fv", _req(selectors=[{"cel": {"expression": 'device.driver == "x"'}}]),
                       {"name": "req-0-2", "exactly": {"deviceClassName": "gpu", "selectors": [
                           {"cel": {"expression": _long(0)}}, {"cel": {"expression": _long(1)}}]}}),
                 [("FieldValueTooLong", _SEL.format(1, 1), _TOO_LONG)], id="CEL-length"),
    pytest.param(claim("fv", _req(selectors=[{"cel": {"expression": _EXPENSIVE}}])),
                 [("FieldValueForbidden", _SEL.format(0, 0), _FORBIDDEN)], id="CEL-cost"),
    pytest.param(_derived(_long(1)), [("FieldValueTooLong", _DER, _TOO_LONG)], id="derived-attributes-CEL-length"),
    pytest.param(_derived(_UNDER), [], id="derived-attributes-CEL-cost-under-limit"),
    pytest.param(_derived(_EXPENSIVE), [("FieldValueForbidden", _DER, _FORBIDDEN),
                                        ("FieldValueForbidden", "spec.devices", _TOTAL)],
                 id="derived-attributes-CEL-cost-per-expression-exceeds-limit"),
    pytest.param(_derived(_UNDER, _UNDER), [("FieldValueForbidden", "spec.devices", _TOTAL)],
                 id="derived-attributes-CEL-cost-exceeds-limit"),
]


@pytest.mark.parametrize(("obj", "want"), _CLAIM_ROWS)
def test_validate_claim_cost(obj: dict[str, Any], want: list[tuple[str, str, str]]) -> None:
    got = run_reference(Case("cost", obj))
    assert not got.other, got.other
    assert sorted(got.errors) == sorted(want)
    assert got.accepted == (not want)
