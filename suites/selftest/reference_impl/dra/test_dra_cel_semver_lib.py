"""The CEL semver library: blang/semver parsing, SemVer 2.0.0 precedence, upstream's
normalization, the CEL functions, and version attributes as semver values."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference_impl.dra.attribute_versions import version_causes
from reference_impl.dra.cel import CELError, compile_selector, device_activation
from reference_impl.dra.cel_semver import Semver, is_semver, normalize_and_parse, parse
from reference_impl.dra.derived import to_attribute

DRIVER = "gpu.test"

_num = st.integers(0, 2**64 - 1)
_pre_id = st.one_of(st.integers(0, 10**6), st.from_regex(r"[0-9]*[a-zA-Z-][0-9a-zA-Z-]{0,4}", fullmatch=True))
_build_id = st.from_regex(r"[0-9a-zA-Z-]{1,5}", fullmatch=True)
_versions = st.builds(
    lambda ma, mi, pa, pre, build: Semver(ma, mi, pa, tuple(pre), tuple(build)),
    st.integers(0, 3) | _num, st.integers(0, 3), st.integers(0, 3),
    st.lists(_pre_id, max_size=3), st.lists(_build_id, max_size=2),
)


def _precedence(v: Semver) -> tuple[Any, ...]:
    # SemVer 2.0.0 section 11, written independently of Semver.compare: a release
    # outranks its pre-releases; numeric identifiers rank below alphanumeric ones.
    ids = tuple((0, p, "") if isinstance(p, int) else (1, 0, p) for p in v.pre)
    return (v.major, v.minor, v.patch, not v.pre, ids)


def _sign(x: Any, y: Any) -> int:
    return (x > y) - (x < y)


@settings(max_examples=300, deadline=None)
@given(_versions, _versions, _versions)
def test_compare_is_a_total_order_matching_semver_precedence(a: Semver, b: Semver, c: Semver) -> None:
    assert a.compare(b) == _sign(_precedence(a), _precedence(b))
    assert a.compare(b) == -b.compare(a)
    assert a.compare(a) == 0
    if a.compare(b) <= 0 and b.compare(c) <= 0:
        assert a.compare(c) <= 0
    # Build metadata never matters: equality and hashing follow precedence.
    assert (a == b) == (a.compare(b) == 0)
    if a == b:
        assert hash(a) == hash(b)


@settings(max_examples=200, deadline=None)
@given(_versions)
def test_string_round_trip(v: Semver) -> None:
    text = str(v)
    back = parse(text)
    assert str(back) == text and back == v and back.build == v.build
    assert is_semver(text) and normalize_and_parse(text) == v


# The regex upstream's API validation uses and blang's parser agree on every string
# (short digit runs, so no uint64 overflow, which only the parser rejects).
@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="0123456789.-+aZv ", max_size=16))
def test_parser_agrees_with_the_api_validation_regex(s: str) -> None:
    dev = {"attributes": {"v": {"version": s}}}
    assert is_semver(s) == (not version_causes(dev, "d")), s


def test_spec_precedence_example() -> None:
    chain = ["1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2",
             "1.0.0-beta.11", "1.0.0-rc.1", "1.0.0", "1.0.1", "1.1.0", "2.0.0"]
    vs = [parse(s) for s in chain]
    assert all(x.compare(y) == -1 for x, y in zip(vs, vs[1:], strict=False))
    assert parse("1.0.0+a") == parse("1.0.0+b")


@pytest.mark.parametrize(("text", "message"), [
    ("", "Version string empty"),
    ("1.2", "No Major.Minor.Patch elements found"),
    ("v1.0.0", 'Invalid character(s) found in major number "v1"'),
    ("01.0.0", 'Major number must not contain leading zeroes "01"'),
    ("1.02.0", 'Minor number must not contain leading zeroes "02"'),
    ("1.0.x", 'Invalid character(s) found in patch number "x"'),
    ("1.0.0-", "Prerelease is empty"),
    ("1.0.0-01", 'Numeric PreRelease version must not contain leading zeroes "01"'),
    ("1.0.0-a_b", 'Invalid character(s) found in prerelease "a_b"'),
    ("1.0.0+", "Build meta data is empty"),
    ("1.0.0+a..b", "Build meta data is empty"),
    ("1.0.0+a_b", 'Invalid character(s) found in build meta data "a_b"'),
    ("1..0", 'strconv.ParseUint: parsing "": invalid syntax'),
    ("18446744073709551616.0.0", 'strconv.ParseUint: parsing "18446744073709551616": value out of range'),
    (" 1.0.0", 'Invalid character(s) found in major number " 1"'),
])
def test_invalid_strings_fail_with_blangs_message(text: str, message: str) -> None:
    with pytest.raises(ValueError) as e:
        parse(text)
    assert str(e.value) == message
    assert not is_semver(text)


@pytest.mark.parametrize(("text", "want"), [
    ("v1.0.0", "1.0.0"), ("1.0", "1.0.0"), ("1", "1.0.0"), ("01.01.01", "1.1.1"),
    ("v01.01", "1.1.0"), ("1.0.00-rc.1", "1.0.0-rc.1"), ("1.2.3-beta+b", "1.2.3-beta+b"),
])
def test_normalization(text: str, want: str) -> None:
    assert str(normalize_and_parse(text)) == want


@pytest.mark.parametrize("text", ["", " 1.0.0", "1. 0.0", "1.0.0 ", "1-rc", "1.0+b", "vv1.0.0"])
def test_normalization_still_rejects(text: str) -> None:
    assert not is_semver(text, True)


def _eval(expr: str, attrs: dict[str, Any] | None = None, lists: bool = False) -> bool:
    act = device_activation(DRIVER, {"name": "d", "attributes": attrs or {}})
    return compile_selector(expr, lists).matches(act)


@pytest.mark.parametrize("expr", [
    'semver("1.2.3").major() == 1 && semver("1.2.3").minor() == 2 && semver("1.2.3").patch() == 3',
    'isSemver("1.2.3-beta.1+build.1") && !isSemver("") && !isSemver("v1.0.0") && !isSemver("1.1")',
    'isSemver("v1.0.0", true) && isSemver("01.01.01", true) && isSemver("1", true)',
    'semver("v01.01", true) == semver("1.1.0")',
    'semver("1.2.3") != semver("1.0.0")',
    'semver("1.0.0").isLessThan(semver("1.2.3")) && !semver("1.0.0").isLessThan(semver("1.0.0"))',
    'semver("1.2.3").isGreaterThan(semver("1.0.0")) && !semver("1.0.0").isGreaterThan(semver("1.0.0"))',
    'semver("1.2.3").compareTo(semver("1.2.3")) == 0 && semver("1.0.0").compareTo(semver("1.2.3")) == -1',
    'semver("18446744073709551615.0.0").major() == -1',  # Go's int64(uint64) wraps
    'quantity("2Gi").isGreaterThan(quantity("1Gi")) && quantity("1").compareTo(quantity("1000m")) == 0',
    '"1.0.0" != semver("1.0.0") && !("1.0.0" == semver("1.0.0"))',  # a string is not a semver
    'true || semver("bad").major() == 1',  # CEL's commutative || absorbs the error
    'semver("1.2" + ".3").patch() == 3',  # a computed string argument
])
def test_library_functions(expr: str) -> None:
    assert _eval(expr)


@pytest.mark.parametrize(("expr", "message"), [
    ('semver("x") == semver("1.0.0")', "No Major.Minor.Patch elements found"),
    ('semver("v1.0.0") == semver("1.0.0")', 'Invalid character(s) found in major number "v1"'),
    ('semver("1.0.0") == "1.0.0"', "no such overload"),
    ('semver(1) == semver("1.0.0")', "no such overload"),
    ('semver("1.0.0").isGreaterThan(quantity("1"))', "no such overload"),
    ('semver("1.0.0") < semver("2.0.0")', "no matching overload"),
])
def test_runtime_errors(expr: str, message: str) -> None:
    with pytest.raises(CELError, match="CEL runtime error") as e:
        _eval(expr)
    assert message in str(e.value)


def test_version_attributes_are_semver_values() -> None:
    attrs = {"driverVersion": {"version": "550.54.15"}, "fw": {"versions": ["1.0.0", "2.0.0-rc.1"]}}
    dv = f'device.attributes["{DRIVER}"].driverVersion'
    assert _eval(f'{dv}.isGreaterThan(semver("1.2.0"))', attrs)
    assert _eval(f'{dv} == semver("550.54.15+any.build")', attrs)
    assert _eval(f'{dv}.major() == 550 && {dv}.minor() == 54 && {dv}.patch() == 15', attrs)
    fw = f'device.attributes["{DRIVER}"].fw'
    assert _eval(f'semver("2.0.0-rc.1") in {fw}', attrs)
    assert _eval(f'{fw}.exists(v, v.isLessThan(semver("2.0.0")))', attrs)
    assert _eval(f'{fw}.includes(semver("1.0.0"))', attrs, lists=True)
    with pytest.raises(CELError, match="no such overload"):
        _eval(f'{dv} == "550.54.15"', attrs)  # no longer a string


def test_an_unparsable_stored_version_fails_only_its_readers() -> None:
    attrs = {"v": {"version": "99999999999999999999.0.0"}, "ok": {"bool": True}}
    assert _eval(f'device.attributes["{DRIVER}"].ok', attrs)
    with pytest.raises(CELError, match="parse semantic version: strconv.ParseUint"):
        _eval(f'device.attributes["{DRIVER}"].v.major() == 1', attrs)


def test_api_validation_causes() -> None:
    dev = {"attributes": {"a": {"version": "550.54"}, "b": {"versions": ["1.0.0", "1.0.0-01"]},
                          "c": {"version": "1.0.0+" + "x" * 60}, "d": {"version": "1.0.0"}}}
    causes = version_causes(dev, "spec.devices[0]")
    assert [(c.field, c.reason) for c in causes] == [
        ("spec.devices[0].attributes[a].version", "FieldValueInvalid"),
        ("spec.devices[0].attributes[b].versions[1]", "FieldValueInvalid"),
        ("spec.devices[0].attributes[c].version", "FieldValueTooLong"),
    ]
    assert "must be a string compatible with semver.org spec 2.0.0" in causes[0].message


def test_a_semver_derived_attribute_is_a_version_value() -> None:
    assert to_attribute(parse("1.2.3-rc.1+b")) == ("version", ("1.2.3-rc.1+b",), False)
