"""CEL device selectors, after ``k8s.io/dynamic-resource-allocation/cel``.

Expressions are compiled once with cel-python (``celpy``) and cached by their text. The
``device`` variable has ``driver``, ``attributes[<domain>].<name>``,
``capacity[<domain>].<name>`` (a Kubernetes Quantity) and ``allowMultipleAllocations``.
An unknown domain is an empty map, as upstream; an unknown name is a runtime error. The
Quantity helpers are those of the Kubernetes CEL library: ``quantity("40Gi")``,
``q.compareTo(other)``, ``isGreaterThan``, ``isLessThan``, ``asInteger``,
``asApproximateFloat``, ``add`` and ``sub``. With DRAListTypeAttributes list attributes are
CEL lists and ``x.includes(v)`` is declared (true when list ``x`` holds ``v``, or scalar
``x`` equals it); with the gate off an expression calling it does not compile, as
upstream declares the function only then. ``version`` attributes are semver values of the
Kubernetes semver library (``cel_semver``: ``semver("1.2.3")``, ``v.isGreaterThan(w)``).
``cel.bind(v, init, expr)`` is rewritten at compile time (``cel_bind``).

A device's name never reaches CEL, so activations and ``matches`` verdicts are cached by
the device's content (``cel_cache``): 8,000 identical GPUs cost one evaluation per
expression, and a changed device is a new key, so nothing is ever stale. An expression
that reads only ``device.driver`` (and ``allowMultipleAllocations``) is cached by those
values alone (``matches_scalars``, ``cel_reads``), and needs no activation at all.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

import celpy
from celpy import celtypes

from reference_impl.api.meta import parse_quantity
from reference_impl.apiserver.cel_quantity import QUANTITY_FUNCTIONS, Quantity
from reference_impl.dra.cel_bind import BIND_FUNCTION, bind_result, expand_binds
from reference_impl.dra.cel_cache import (
    ACTIVATION_CACHE_SIZE,
    LRU,
    RESULT_CACHE_SIZE,
    content_key,
)
from reference_impl.dra.cel_reads import SHALLOW_FIELDS, device_fields
from reference_impl.dra.cel_semver import extend_functions, version_value

__all__ = [
    "Activation",
    "CELError",
    "Quantity",
    "Selector",
    "clear_caches",
    "compile_selector",
    "device_activation",
]


class CELError(Exception):
    """A CEL expression failed to compile, or failed or returned a non-bool at runtime."""


def _cel_equal(a: Any, b: Any) -> bool:
    # CEL equality never mixes bool with numbers (Python's True == 1 would).
    if isinstance(a, celtypes.BoolType) != isinstance(b, celtypes.BoolType):
        return False
    try:
        return bool(a == b)
    except TypeError:
        return False


def _includes(target: Any, arg: Any) -> celtypes.BoolType:
    """``library.Lists`` ``includes``: list membership, or equality for a scalar."""
    if isinstance(target, celtypes.ListType):
        return celtypes.BoolType(any(_cel_equal(x, arg) for x in target))
    return celtypes.BoolType(_cel_equal(target, arg))


_GATED_FUNCTIONS: dict[str, Any] = {"includes": _includes}
_FUNCTIONS: dict[str, Any] = {
    # The quantity library is in every 1.37 CEL environment (environment.MustBaseEnvSet).
    **QUANTITY_FUNCTIONS,
    # cel.bind (ext.Bindings, DRA environment since 1.31), after expand_binds' rewrite.
    BIND_FUNCTION: bind_result,
}
# The Kubernetes semver library (base CEL environment since 1.33).
_FUNCTIONS = extend_functions(_FUNCTIONS)
_ENV = celpy.Environment()


class _Domains(celtypes.MapType):
    """``device.attributes`` / ``device.capacity``: a missing domain is an empty map."""

    def __getitem__(self, key: Any) -> Any:
        try:
            return super().__getitem__(key)
        except KeyError:
            return celtypes.MapType({})


def _called(tree: Any) -> set[str]:
    """The function names an expression calls (``f(x)`` and ``x.f(y)``)."""
    out: set[str] = set()
    for node in tree.iter_subtrees():
        if node.data in ("member_dot_arg", "ident_arg"):
            name = node.children[1 if node.data == "member_dot_arg" else 0]
            out.add(str(name))
    return out


class Activation(dict[str, Any]):
    """The CEL variables for one device, with the content key its verdicts are cached
    under (None: not cacheable). The ``device`` value is shared by every device of the
    same content and must be treated as read-only (CEL never mutates it)."""

    __slots__ = ("content_key",)

    def __init__(self, variables: Mapping[str, Any], key: str | None) -> None:
        super().__init__(variables)
        self.content_key = key


# A verdict is True/False, or the CELError message evaluating the expression raised.
# Keyed by the Selector's serial, not its text: whatever the environment it was compiled
# in (gates), two Selectors never share verdicts.
_RESULTS: LRU[tuple[int, str], bool | str] = LRU(RESULT_CACHE_SIZE)
_SERIALS = itertools.count()
_DEVICES: LRU[str, celtypes.MapType] = LRU(ACTIVATION_CACHE_SIZE)


def clear_caches() -> None:
    """Forget cached activations and verdicts (tests, and memory-conscious callers)."""
    _RESULTS.clear()
    _DEVICES.clear()


class Selector:
    """One compiled expression; ``matches`` evaluates it against a device activation."""

    __slots__ = ("expression", "list_types", "_program", "_serial", "_scalar")

    def __init__(self, expression: str, list_types: bool = False) -> None:
        self.expression = expression
        self.list_types = list_types
        self._serial = next(_SERIALS)
        functions = {**_FUNCTIONS, **_GATED_FUNCTIONS} if list_types else _FUNCTIONS
        try:
            ast = expand_binds(_ENV.compile(expression))
        except Exception as e:  # noqa: BLE001 - celpy raises several parse error types
            raise CELError(f"compilation failed: {_first_line(e)}") from None
        reads = device_fields(ast)
        self._scalar = reads is not None and reads <= SHALLOW_FIELDS
        undeclared = sorted(_called(ast) & (set(_GATED_FUNCTIONS) - set(functions)))
        if undeclared:
            raise CELError(f"compilation failed: undeclared reference to '{undeclared[0]}'")
        try:
            self._program = _ENV.program(ast, functions=functions)
        except Exception as e:  # noqa: BLE001
            raise CELError(f"compilation failed: {_first_line(e)}") from None

    def evaluate(self, activation: Mapping[str, Any]) -> Any:
        """The expression's value; CELError on a runtime error."""
        try:
            out = self._program.evaluate(dict(activation))
        except Exception as e:  # noqa: BLE001 - any evaluation failure aborts allocation
            raise CELError(f"CEL runtime error: {_runtime_message(e)}") from None
        if isinstance(out, Exception):
            raise CELError(f"CEL runtime error: {_runtime_message(out)}")
        return out

    def matches(self, activation: Mapping[str, Any]) -> bool:
        """Whether the device matches; CELError on a runtime error or a non-bool result.

        With an ``Activation`` the verdict (or the error) is cached by its content key."""
        key = activation.content_key if isinstance(activation, Activation) else None
        if key is None:
            return self._matches(activation)
        rkey = (self._serial, key)
        hit = _RESULTS.get(rkey)
        if hit is None:
            try:
                hit = self._matches(activation)
            except CELError as e:
                hit = str(e)
            _RESULTS.put(rkey, hit)
        if isinstance(hit, str):
            raise CELError(hit)
        return hit

    def matches_scalars(self, driver: str, allow_multiple: bool) -> bool | None:
        """The verdict for every device of ``driver`` (with that ``allowMultipleAllocations``)
        when the expression reads nothing else of ``device``, cached as ``matches`` caches;
        None when it reads more (then evaluate with the device's activation)."""
        if not self._scalar:
            return None
        key = f"\0{driver}\0{allow_multiple:d}"  # content keys are JSON: never "\0..."
        hit = _RESULTS.get((self._serial, key))
        if hit is None:
            return self.matches(Activation({"device": _scalar_device(driver, allow_multiple)}, key))
        if isinstance(hit, str):
            raise CELError(hit)
        return hit

    def _matches(self, activation: Mapping[str, Any]) -> bool:
        out = self.evaluate(activation)
        if not isinstance(out, celtypes.BoolType):
            raise CELError(f"must evaluate to bool, got {type(out).__name__}")
        return bool(out)


def _runtime_message(e: BaseException) -> str:
    """cel-go's text for a missing map key ("no such key: k"), which upstream's
    ``EnhanceRuntimeError`` looks for; celpy's first line otherwise."""
    head = str(e.args[0]) if e.args else ""
    if head.startswith("no such member in mapping: "):  # m.k
        return "no such key: " + head.removeprefix("no such member in mapping: ").strip("'")
    if head == "no such key" and len(e.args) > 2 and e.args[2]:  # m["k"]
        return f"no such key: {e.args[2][0]}"
    return _first_line(e)


def _first_line(e: BaseException) -> str:
    text = str(e.args[0]) if e.args else str(e)
    return text.strip().splitlines()[0] if text.strip() else type(e).__name__


@lru_cache(maxsize=4096)
def compile_selector(expression: str, list_types: bool = False) -> Selector:
    """The compiled selector for ``expression`` (compiled once per distinct text and
    environment: ``list_types`` is DRAListTypeAttributes)."""
    return Selector(expression, list_types)


def _cel_value(attr: Mapping[str, Any]) -> Any:
    for key, conv in (
        ("bool", celtypes.BoolType),
        ("int", celtypes.IntType),
        ("string", celtypes.StringType),
        ("version", version_value),
    ):
        if key in attr:
            return conv(attr[key])
    for key, conv in (
        ("bools", celtypes.BoolType),
        ("ints", celtypes.IntType),
        ("strings", celtypes.StringType),
        ("versions", version_value),
    ):
        if key in attr:
            return celtypes.ListType([conv(v) for v in attr[key]])
    return celtypes.StringType("")


def _split(qualified: str, driver: str) -> tuple[str, str]:
    # An unqualified attribute name belongs to the driver's own domain.
    domain, _, name = qualified.rpartition("/")
    return (domain or driver), name


def device_activation(driver: str, device: Mapping[str, Any]) -> Activation:
    """The CEL ``device`` variable for one ResourceSlice device manifest.

    Devices with the same content share one (read-only) ``device`` value."""
    key = content_key(driver, device)
    if key is None:
        return Activation({"device": _device_value(driver, device)}, None)
    value = _DEVICES.get(key)
    if value is None:
        value = _device_value(driver, device)
        _DEVICES.put(key, value)
    return Activation({"device": value}, key)


def _scalar_device(driver: str, allow_multiple: bool) -> celtypes.MapType:
    # Only what an expression of ``Selector.matches_scalars`` can read.
    return celtypes.MapType({
        celtypes.StringType("driver"): celtypes.StringType(driver),
        celtypes.StringType("allowMultipleAllocations"): celtypes.BoolType(allow_multiple),
    })  # fmt: skip


def _device_value(driver: str, device: Mapping[str, Any]) -> celtypes.MapType:
    attrs: dict[str, dict[Any, Any]] = {}
    for qname, attr in sorted((device.get("attributes") or {}).items()):
        domain, name = _split(qname, driver)
        attrs.setdefault(domain, {})[celtypes.StringType(name)] = _cel_value(attr)
    caps: dict[str, dict[Any, Any]] = {}
    for qname, cap in sorted((device.get("capacity") or {}).items()):
        domain, name = _split(qname, driver)
        caps.setdefault(domain, {})[celtypes.StringType(name)] = Quantity(
            parse_quantity(cap.get("value", 0))
        )
    return celtypes.MapType(
        {
            celtypes.StringType("driver"): celtypes.StringType(driver),
            celtypes.StringType("allowMultipleAllocations"): celtypes.BoolType(
                bool(device.get("allowMultipleAllocations"))
            ),
            celtypes.StringType("attributes"): _Domains(
                {celtypes.StringType(d): celtypes.MapType(m) for d, m in attrs.items()}
            ),
            celtypes.StringType("capacity"): _Domains(
                {celtypes.StringType(d): celtypes.MapType(m) for d, m in caps.items()}
            ),
        }
    )
