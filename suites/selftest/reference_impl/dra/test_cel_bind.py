"""``cel.bind`` evaluated by the reference's DRA selectors (ext.Bindings, in the DRA CEL
environment since 1.31). Rows from cel-go's ``ext/bindings_test.go`` (``bindingTests``,
``TestBindingsNonMatch``, ``TestBindingsInvalidIdent``), plus the macro's lazy,
scoped semantics and one scheduler walk allocating a claim whose selector binds."""

from __future__ import annotations

from typing import Any

import celpy
import pytest
from celpy import celtypes

from reference_impl.dra.cel import CELError, compile_selector, device_activation
from reference_impl.dra.cel_bind import expand_binds
from reference_impl.dra.cel_check import CheckError, check
from reference_impl.scheduler.framework.interface import Code
from suites.selftest.reference_impl.scheduler.upstream_dra_harness import (
    CLAIM,
    DRIVER,
    NODE,
    claim,
    device_class,
    node,
    node_slice,
    pod,
    setup,
    walk,
)

_INTS = {"x": celtypes.ListType([celtypes.IntType(3), celtypes.IntType(7)])}
_STRS = {"x": celtypes.ListType([celtypes.StringType("three"), celtypes.StringType("seven")])}


@pytest.mark.parametrize(
    ("expr", "variables"),
    [
        pytest.param(
            """cel.bind(a, 'hell' + 'o' + '!', "%s, %s, %s".format([a, a, a])) ==
               'hello!, hello!, hello' + '!'""",
            {},
            id="single bind",
            marks=pytest.mark.skip(reason="string format() (ext.Strings) is not in cel-python"),
        ),
        pytest.param(
            """cel.bind(a, 'hello!',
               cel.bind(b, 'goodbye',
               a + ' and, ' + b)) == 'hello! and, goodbye'""",
            {},
            id="multiple binds",
        ),
        pytest.param(
            """cel.bind(a,
               cel.bind(a, 'world', a + '!'),
               'hello ' + a) == 'hello ' + 'world' + '!'""",
            {},
            id="shadow binds",
        ),
        pytest.param(
            """cel.bind(a, x,
               cel.bind(b, a[0],
               cel.bind(c, a[1], b + c))) == 10""",
            _INTS,
            id="nested bind with int list",
        ),
        pytest.param(
            """cel.bind(a, x,
               cel.bind(b, a[0],
               cel.bind(c, a[1], b + c))) == "threeseven\"""",
            _STRS,
            id="nested bind with string list",
        ),
    ],
)
def test_binding_tests(expr: str, variables: dict[str, Any]) -> None:
    """``TestBindings``: each expression evaluates to true (costs are not modelled here)."""
    assert compile_selector(expr).matches(variables) is True


def test_bindings_non_match() -> None:
    """``TestBindingsNonMatch``: ``ceel.bind`` is no macro call: nothing is rewritten,
    and evaluating it fails as an ordinary unknown function."""
    expr = "ceel.bind(a, 1, a)"
    tree = celpy.Environment().compile(expr)
    assert expand_binds(tree) == tree
    with pytest.raises(CELError, match="undeclared reference to 'bind'"):
        compile_selector(expr).evaluate({"ceel": celtypes.MapType({})})


def test_bindings_invalid_ident() -> None:
    """``TestBindingsInvalidIdent``: rejected when written (the message's column is
    cel_check's, not cel-go's 1:11); never rewritten, so it cannot evaluate either."""
    expr = "cel.bind(a.b, 1, a.b)"
    with pytest.raises(CheckError, match=r"cel\.bind\(\) variable names must be simple identifiers"):
        check(celpy.Environment().compile(expr))
    with pytest.raises(CELError):
        compile_selector(expr).evaluate({})


# -- semantics of the macro (cel-go: an accumulator over an empty range, lazily initialized)


@pytest.mark.parametrize(
    ("expr", "variables", "want"),
    [
        pytest.param("cel.bind(a, 1, a + 1) == 2", {}, True, id="binds the value"),
        pytest.param("cel.bind(a, 1, a) + a == 11", {"a": celtypes.IntType(10)}, True,
                     id="shadows an outer variable only inside the body"),
        pytest.param("cel.bind(a, 1/0, true)", {}, True, id="an unread init is never evaluated"),
        pytest.param("cel.bind(a, 2, [1, 2].map(x, x * a)) == [2, 4]", {}, True,
                     id="visible inside a nested macro"),
        pytest.param("[1, 2].map(a, cel.bind(a, a * 10, a + 1)) == [11, 21]", {}, True,
                     id="shadows a macro variable"),
        pytest.param("cel.bind(b, cel.bind(a, 3, a * 2), cel.bind(a, b, a + b)) == 12", {}, True,
                     id="bind as init and body"),
        pytest.param("(cel.bind(a, 1, a) == 1) && (cel.bind(b, 2, b) == 3)", {}, False,
                     id="two binds side by side"),
    ],
)
def test_bind_semantics(expr: str, variables: dict[str, Any], want: bool) -> None:
    assert compile_selector(expr).matches(variables) is want


def test_error_in_init_is_the_selectors_error() -> None:
    with pytest.raises(CELError, match="CEL runtime error: modulus or divide by zero"):
        compile_selector("cel.bind(a, 1/0, a == 1)").matches({})
    with pytest.raises(CELError, match="CEL runtime error: no such key: missing"):
        compile_selector('cel.bind(d, device.attributes["gpu.example.com"], d.missing)').matches(
            device_activation("gpu.example.com", {"name": "gpu-0"})
        )


@pytest.mark.parametrize(
    ("attributes", "want"),
    [
        pytest.param({"model": {"string": "a100"}, "memory": {"int": 80}}, True, id="match"),
        pytest.param({"model": {"string": "a100"}, "memory": {"int": 40}}, False, id="no match"),
    ],
)
def test_device_selector_binds_a_domain(attributes: dict[str, Any], want: bool) -> None:
    """The use upstream's compile.go names: the domain given once."""
    sel = compile_selector(
        'cel.bind(dra, device.attributes["gpu.example.com"], dra.model == "a100" && dra.memory >= 80)'
    )
    activation = device_activation("gpu.example.com", {"name": "gpu-0", "attributes": attributes})
    assert sel.matches(activation) is want


def test_bind_shadowing_device_reads_the_whole_device() -> None:
    sel = compile_selector('cel.bind(device, device.attributes["d"], device.ok) && device.driver == "d"')
    assert sel.matches_scalars("d", False) is None  # not decidable from the driver alone
    assert sel.matches(device_activation("d", {"name": "x", "attributes": {"ok": {"bool": True}}})) is True


@pytest.mark.parametrize(
    ("healthy", "allocated"),
    [pytest.param(True, True, id="allocated"), pytest.param(False, False, id="no device matches")],
)
def test_scheduler_allocates_claim_selecting_with_bind(healthy: bool, allocated: bool) -> None:
    """DynamicResources (PreFilter .. PreBind): the claim, accepted by the apiserver,
    allocates the device its ``cel.bind`` selector matches."""
    want = "true" if healthy else "false"
    selector = f'cel.bind(attrs, device.attributes["{DRIVER}"], attrs.healthy == {want})'
    env = setup([claim(selector=selector), device_class(), node_slice(attr=True)])
    out = walk(env, pod(), [node(NODE)])
    if allocated:
        assert out["filter/" + NODE][0] == Code.SUCCESS
        assert out["prebind"][0] == Code.SUCCESS
        results = out["claims"][CLAIM]["allocation"]["devices"]["results"]
        assert [(r["driver"], r["pool"], r["device"]) for r in results] == [(DRIVER, NODE, "instance-1")]
    else:
        assert out["filter/" + NODE] == (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "cannot allocate all claims")
        assert "allocation" not in out["claims"][CLAIM]
