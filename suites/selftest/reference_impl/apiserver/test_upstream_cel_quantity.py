"""k8s.io/apiserver v0.37.2 ``pkg/cel/library/quantity_test.go`` ``TestQuantity``: the
runtime rows, through the shared quantity library (``apiserver.cel_quantity``). The one
compile-error row (``isQuantity_noOverload``) needs cel-go's type checker, which
cel-python lacks."""

from __future__ import annotations

import re
from typing import Any

import celpy
import pytest

from reference_impl.apiserver.cel_quantity import QUANTITY_FUNCTIONS

T, F = True, False
ROWS: list[tuple[str, str, Any]] = [
    ("parseInvalidSuffix", 'quantity("10Mo")', re.compile("quantities must match the regular expression|invalid quantity")),
    ("isQuantity", 'isQuantity("20")', T),
    ("isQuantity_megabytes", 'isQuantity("20M")', T),
    ("isQuantity_mebibytes", 'isQuantity("20Mi")', T),
    ("isQuantity_invalidSuffix", 'isQuantity("20Mo")', F),
    ("isQuantity_passingRegex", 'isQuantity("10Mm")', F),
    ("equality_reflexivity", 'quantity("200M") == quantity("200M")', T),
    ("equality_symmetry", 'quantity("200M") == quantity("0.2G") && quantity("0.2G") == quantity("200M")', T),
    ("equality_transitivity", 'quantity("2M") == quantity("0.002G") && quantity("2000k") == quantity("2M") '
                              '&& quantity("0.002G") == quantity("2000k")', T),
    ("inequality", 'quantity("200M") == quantity("0.3G")', F),
    ("quantity_less", 'quantity("50M").isLessThan(quantity("50Mi"))', T),
    ("quantity_less_obvious", 'quantity("50M").isLessThan(quantity("100M"))', T),
    ("quantity_less_false", 'quantity("100M").isLessThan(quantity("50M"))', F),
    ("quantity_greater", 'quantity("50Mi").isGreaterThan(quantity("50M"))', T),
    ("quantity_greater_obvious", 'quantity("150Mi").isGreaterThan(quantity("100Mi"))', T),
    ("quantity_greater_false", 'quantity("50M").isGreaterThan(quantity("100M"))', F),
    ("compare_equal", 'quantity("200M").compareTo(quantity("0.2G"))', 0),
    ("compare_less", 'quantity("50M").compareTo(quantity("50Mi"))', -1),
    ("compare_greater", 'quantity("50Mi").compareTo(quantity("50M"))', 1),
    ("add_quantity", 'quantity("50k").add(quantity("20")) == quantity("50.02k")', T),
    ("add_int", 'quantity("50k").add(20).isLessThan(quantity("50020"))', F),
    ("sub_quantity", 'quantity("50k").sub(quantity("20")) == quantity("49.98k")', T),
    ("sub_int", 'quantity("50k").sub(20) == quantity("49980")', T),
    ("arith_chain_1", 'quantity("50k").add(20).sub(quantity("100k")).asInteger()', -49980),
    ("arith_chain", 'quantity("50k").add(20).sub(quantity("100k")).sub(-50000).asInteger()', 20),
    ("as_integer", 'quantity("50k").asInteger()', 50000),
    ("as_integer_error", 'quantity("9999999999999999999999999999999999999G").asInteger()',
     re.compile("cannot convert value to integer")),
    ("is_integer", 'quantity("9999999999999999999999999999999999999G").isInteger()', F),
    ("is_integer#01", 'quantity("50").isInteger()', T),
    ("as_float", 'quantity("50.703k").asApproximateFloat()', 50703.0),
    ("add_does_not_mutate_receiver", '[quantity("9999999999999999999999999999999999999")].all(x, '
                                     'x.add(quantity("1")).compareTo(x.add(quantity("2"))) == -1)', T),
    # Not upstream rows: a fraction is no int64 either.
    ("x-as_integer_fraction", 'quantity("1.5").asInteger()', re.compile("cannot convert value to integer")),
    ("x-is_integer_fraction", 'quantity("1500m").isInteger()', F),
]  # fmt: skip


def _evaluate(expr: str) -> Any:
    env = celpy.Environment()
    prog = env.program(env.compile(expr), functions=QUANTITY_FUNCTIONS)
    try:
        return prog.evaluate({})
    except celpy.CELEvalError as e:
        return e


@pytest.mark.parametrize(("expr", "want"), [pytest.param(e, w, id=n) for n, e, w in ROWS])
def test_quantity(expr: str, want: Any) -> None:
    got = _evaluate(expr)
    if isinstance(want, re.Pattern):
        assert isinstance(got, celpy.CELEvalError), got
        assert want.search(str(got.args)), got.args
    else:
        assert not isinstance(got, celpy.CELEvalError), got
        assert got == want and type(got) is not bool
