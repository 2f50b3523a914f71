"""Port of apiextensions-apiserver v0.37.2 ``pkg/apiserver/schema/cel/validation_test.go``
TestValidationExpressions: every ``valid`` rule of a row must pass over its object (through
``cel.evaluate``, which must give true, and the apiserver path ``rule_causes``, which must
report nothing), and every ``errors`` rule must fail with an Invalid error containing
upstream's text. The rows (schemas as OpenAPI, objects, rules) were dumped from the Go
table into ``upstream_cel_validation_expressions.json``; a number's float-ness is kept.
The rows cel-python cannot match are listed in ``_SKIP`` by reason. Rows checking cel-go's
runtime cost (``expectedCost``) are checked for their verdict only.

TestValidationExpressionsAtSchemaLevels (rules under items, additionalProperties, escaped
and unescapable property names, and allOf members) is ported too: each expected error
must be matched by one reported Invalid error and nothing else reported. Its dump lost a
nested allOf member's additionalProperties (``ToKubeOpenAPI`` drops them); the two rows
using one were restored from the Go table by hand."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from celpy.celtypes import BoolType

from reference_impl.apiserver.customresource.cel import evaluate, rule_causes

Obj = dict[str, Any]
_ROWS: list[Obj] = json.loads(
    (Path(__file__).parent / "upstream_cel_validation_expressions.json").read_text()
)["TestValidationExpressions"]

# reason -> (row name, rule) pairs
_SKIPPED: dict[str, list[tuple[str, str]]] = {
    "string.format and the format.* library are not implemented": [
        (
            "unicode strings",
            "'%d %s %f %s %s'.format([1, 'abc', 1.0, duration('1m'), timestamp('2000-01-01T00:00:00.000Z')]) == '1 abc 1.000000 60s 2000-01-01T00:00:00Z'",
        ),
        ("unicode strings", "'%e'.format([3.14]) == '3.140000×10⁰⁰'"),
        ("unicode strings", "'%o %o %o'.format([7, 8, 9]) == '7 10 11'"),
        ("unicode strings", "'%b %b %b'.format([7, 8, 9]) == '111 1000 1001'"),
        ("format", '!format.named("unknown").hasValue()'),
    ],
    "a cel-go compile (type-check) error, which cel-python (parse only) does not raise": [
        ("unicode strings", "self.val1.matches(')')"),
        ("duration format", "duration('1')"),
        ("duration format", "duration('1d')"),
        ("duration format", "duration('1us') < duration('1nns')"),
        ("date-time format", "timestamp('1000-00-00T00:00:00Z')"),
        ("date-time format", "timestamp('1000-01-01T00:00:00ZZ')"),
        ("date-time format", "timestamp(-62135596801)"),
        ("lists", "[1, 'a', false].filter(x, string(x) == 'a')"),
        ("ext lists version 3", '["d", 3, 2, "c"].sort() == ["a", "b", "c", "d"]'),
        ("listMaps", "self.objs[0] == {'k': 'a', 'v': '1'}"),
        ("maps", "{'k1': 'a', 'k2': 1, 'k2': false}"),
        ("objects", "self.objs[0] == {'f1': 'a', 'f2': 'b'}"),
        ("object access", "has(self.a.z)"),
        ("object access", "self.a['b'] == 1"),
        ("typemeta and objectmeta access specified", "has(self.metadata.namespace)"),
        ("typemeta and objectmeta access not specified", "has(self.metadata.namespace)"),
        ("embedded object", "has(self.embedded.metadata.namespace)"),
        ("embedded object", "has(self.embedded.spec)"),
        ("embedded object with properties", "has(self.embedded.metadata.namespace)"),
        ("embedded object with preserve unknown", "has(self.embedded.spec)"),
        ("preserve unknown fields", "has(self.anyvalField1)"),
        ("preserve unknown fields", "has(self.anyvalField2)"),
        ("preserve unknown fields", "has(self.anyvalList)"),
        ("preserve unknown fields", "has(self.anyvalMap)"),
        ("preserve unknown fields", "has(self.withUnknown.field1)"),
        ("known and unknown fields", "has(self.withUnknown.unknown)"),
        ("field nullability", "self.setDefaultedStr != null"),
        ("field nullability", "self.setNullableStr != null"),
        ("field nullability", "self.setPlainStr != null"),
        ("field nullability", "self.unsetDefaultedStr != null"),
        ("field nullability", "self.unsetNullableStr == null"),
        ("field nullability", "self.unsetPlainStr == null"),
        ("escaping", "self == 201"),
        ("escaping", "self.__illegal__ == 301"),
        ("escaping", "self.true == 1"),
        (
            "object types are not accessible",
            "string(type(self.nestedInList[0])).endsWith('.nestedInList.@idx')",
        ),
        (
            "listMaps with unsupported identity characters in property names",
            "self.objs[0][0].k! == '1'",
        ),
        ("stdlib list functions", "['a', 'b'].sum() == 'c'"),
        ("stdlib list functions", "[[1], [2]].min() == [1]"),
        ("stdlib list functions", "[{'a': 1}, {'b': 2}].max() == {'b': 2}"),
        ("stdlib regex functions", "self.str.find(')') == ''"),
        ("stdlib regex functions", "self.str.findAll(')') == []"),
        ("stdlib regex functions", "self.str.findAll(')', 1) == []"),
        ("stdlib regex functions", "self.str.matches('x++')"),
        (
            "authorizer is not supported for CRD Validation Rules",
            "authorizer.path('/healthz').check('get').allowed()",
        ),
    ],
    "cel-python's lexer rejects a raw line break inside a triple-quoted string": [
        ("escaped strings", "self.val1 == '''l1\nl2'''"),
    ],
    "type names cel-python lacks (google.protobuf.Duration/Timestamp, net.IP)": [
        ("duration format", "type(self.val1) == google.protobuf.Duration"),
        ("date format", "type(self.val1) == google.protobuf.Timestamp"),
        ("date-time format", "type(self.val1) == google.protobuf.Timestamp"),
        ("IP and CIDR", 'type(ip("192.168.0.1")) == net.IP'),
        ("IP and CIDR", 'type(cidr("2001:db8::/32").ip()) == net.IP'),
    ],
    "cel-go macro cel-python lacks (two-variable comprehensions, existsOne, transformList/Map, sortBy)": [
        ("ext lists version 3", "[].sortBy(e, e) == []"),
        ("ext lists version 3", '["a"].sortBy(e, e) == ["a"]'),
        ("ext lists version 3", "[-3, 1, -5, -2, 4].sortBy(e, -(e * e)) == [-5, 4, -3, -2, 1]"),
        (
            "ext lists version 3",
            "[-3, 1, -5, -2, 4].map(e, e * 2).sortBy(e, -(e * e)) == [-10, 8, -6, -4, 2]",
        ),
        ("ext lists version 3", "lists.range(3).sortBy(e, -e) == [2, 1, 0]"),
        (
            "ext lists version 3",
            "[{'name': 'foo'}, {'name': 'bar'}, {'name': 'baz'}].sortBy(e, e.name) == [{'name': 'bar'}, {'name': 'baz'}, {'name': 'foo'}]",
        ),
        ("map access", "self.val.all(k, v, v > 0)"),
        ("map access", "self.val.exists(k, v, v == 2)"),
        ("map access", "self.val.existsOne(k, v, v == 2)"),
        ("map access", "self.val.transformMap(k, v, v > 1, v + 1).size() == 1"),
        ("map access", "self.val.transformMap(k, v, v + 1).size() == 2"),
        ("map access", "self.val.transformMapEntry(k, v, v > 1, {k + '2': v + 1}).size() == 1"),
        ("map access", "self.val.transformMapEntry(k, v, {k + '2': v + 1}).size() == 2"),
        ("listMap access", "self.listMap.map(m, has(m.v2) && m.v2 == 'z', m.v2).size() == 1"),
        ("listMap access", "!self.listMap.all(i, m, has(m.v2) && m.v2 != 'z')"),
        ("listMap access", "self.listMap.exists(i, m, has(m.v2) && m.v2 == 'z')"),
        ("listMap access", "self.listMap.existsOne(i, m, has(m.v2) && m.v2 == 'z')"),
        (
            "listMap access",
            "self.listMap.transformList(i, m, has(m.v2) && m.v2 == 'z', m.v2).size() == 1",
        ),
        ("listMap access", "self.listMap.transformList(i, m, m.v).size() == 3"),
        ("listMap access", "self.listMap.map(m, m.v2 == 'z', m.v2).size() == 1"),
        ("list access", "self.array.all(i, e, e > 0)"),
        ("list access", "self.array.exists(i, e, e > 2)"),
        ("list access", "self.array.existsOne(i, e, e > 4)"),
        ("list access", "self.array.transformList(i, e, e > 2, e * 2).size() > 0"),
        ("list access", "self.array.transformList(i, e, e * 2).size() > 0"),
    ],
    "cel-python has no optional types (?. / [?] / optional.*)": [
        (
            "ext lists version 3",
            '["a", "c", "b", "first"].sortBy(e, e == "first" ? "" : e) == ["first", "a", "b", "c"]',
        ),
        ("optionals", "self.?presentObj.?presentStr == optional.of('value')"),
        ("optionals", "self.presentObj.?presentStr == optional.of('value')"),
        (
            "optionals",
            "self.presentObj.?presentStr.or(optional.of('nope')) == optional.of('value')",
        ),
        ("optionals", "self.presentObj.?presentStr.orValue('') == 'value'"),
        ("optionals", "self.presentObj.?presentStr.hasValue() == true"),
        ("optionals", "self.presentObj.?presentStr.optMap(v, v == 'value').hasValue()"),
        ("optionals", "self.?absentObj.?absentStr == optional.none()"),
        ("optionals", "self.?absentObj.?absentStr.or(optional.of('nope')) == optional.of('nope')"),
        ("optionals", "self.?absentObj.?absentStr.orValue('nope') == 'nope'"),
        ("optionals", "self.?absentObj.?absentStr.hasValue() == false"),
        ("optionals", "self.?absentObj.?absentStr.optMap(v, v == 'value').hasValue() == false"),
        ("optionals", "self.m[?'k'] == optional.of('v')"),
        ("optionals", "self.m[?'k'].or(optional.of('nope')) == optional.of('v')"),
        ("optionals", "self.m[?'k'].orValue('') == 'v'"),
        ("optionals", "self.m[?'k'].hasValue() == true"),
        ("optionals", "self.m[?'k'].optMap(v, v == 'v').hasValue()"),
        ("optionals", "self.m[?'x'] == optional.none()"),
        ("optionals", "self.m[?'x'].or(optional.of('nope')) == optional.of('nope')"),
        ("optionals", "self.m[?'x'].orValue('nope') == 'nope'"),
        ("optionals", "self.m[?'x'].hasValue() == false"),
        ("optionals", "self.m[?'x'].hasValue() == false"),
        ("optionals", "self.l[?0] == optional.of('a')"),
        ("optionals", "self.l[?1] == optional.none()"),
        ("optionals", "self.l[?0].orValue('') == 'a'"),
        ("optionals", "self.l[?0].hasValue() == true"),
        ("optionals", "self.l[?0].optMap(v, v == 'a').hasValue()"),
        ("optionals", "self.l[?1] == optional.none()"),
        ("optionals", "self.l[?1].or(optional.of('nope')) == optional.of('nope')"),
        ("optionals", "self.l[?1].orValue('nope') == 'nope'"),
        ("optionals", "self.l[?1].hasValue() == false"),
        ("optionals", "self.l[?1].hasValue() == false"),
        ("optionals", "optional.ofNonZeroValue(1).hasValue()"),
        ("optionals", "optional.ofNonZeroValue(uint(1)).hasValue()"),
        ("optionals", "optional.ofNonZeroValue(1.1).hasValue()"),
        ("optionals", "optional.ofNonZeroValue('a').hasValue()"),
        ("optionals", "optional.ofNonZeroValue(true).hasValue()"),
        ("optionals", "optional.ofNonZeroValue(['a']).hasValue()"),
        ("optionals", "optional.ofNonZeroValue({'k': 'v'}).hasValue()"),
        (
            "optionals",
            "optional.ofNonZeroValue(timestamp('2011-08-18T00:00:00.000+01:00')).hasValue()",
        ),
        ("optionals", "optional.ofNonZeroValue(duration('19h3m37s10ms')).hasValue()"),
        ("optionals", "optional.ofNonZeroValue(null) == optional.none()"),
        ("optionals", "optional.ofNonZeroValue(0) == optional.none()"),
        ("optionals", "optional.ofNonZeroValue(uint(0)) == optional.none()"),
        ("optionals", "optional.ofNonZeroValue(0.0) == optional.none()"),
        ("optionals", "optional.ofNonZeroValue('') == optional.none()"),
        ("optionals", "optional.ofNonZeroValue(false) == optional.none()"),
        ("optionals", "optional.ofNonZeroValue([]) == optional.none()"),
        ("optionals", "optional.ofNonZeroValue({}) == optional.none()"),
        (
            "optionals",
            "optional.ofNonZeroValue(timestamp('0001-01-01T00:00:00.000+00:00')) == optional.none()",
        ),
        ("optionals", "optional.ofNonZeroValue(duration('0s')) == optional.none()"),
        ("optionals", "{?'k': optional.none(), 'k2': 'v2'} == {'k2': 'v2'}"),
        ("optionals", "{?'k': optional.of('v'), 'k2': 'v2'} == {'k': 'v', 'k2': 'v2'}"),
        ("optionals", "['a', ?optional.none(), 'c'] == ['a', 'c']"),
        ("optionals", "['a', ?optional.of('v'), 'c'] == ['a', 'v', 'c']"),
        ("optionals", "self.absentObj.?absentStr == optional.none()"),
        ("format", 'format.dns1123Label().validate("my-label-name") == optional.none()'),
        ("format", 'format.dns1123Subdomain().validate("apiextensions.k8s.io") == optional.none()'),
        (
            "format",
            'format.qualifiedName().validate("apiextensions.k8s.io/v1beta1") == optional.none()',
        ),
        ("format", 'format.dns1123LabelPrefix().validate("my-label-prefix-") == optional.none()'),
        (
            "format",
            'format.dns1123SubdomainPrefix().validate("mysubdomain.prefix.-") == optional.none()',
        ),
        ("format", 'format.dns1035LabelPrefix().validate("my-label-prefix-") == optional.none()'),
        ("format", 'format.uri().validate("http://example.com") == optional.none()'),
        (
            "format",
            'format.uuid().validate("123e4567-e89b-12d3-a456-426614174000") == optional.none()',
        ),
        ("format", 'format.byte().validate("aGVsbG8=") == optional.none()'),
        ("format", 'format.date().validate("2021-01-01") == optional.none()'),
        ("format", 'format.datetime().validate("2021-01-01T00:00:00Z") == optional.none()'),
        ("format", 'format.named("dns1123Label").value().validate("my-name") == optional.none()'),
        (
            "format",
            "format.dns1123Label().validate(\"contains a space\").value()[0] == \"a lowercase RFC 1123 label must consist of lower case alphanumeric characters or \\'-\\', and must start and end with an alphanumeric character (e.g. \\'my-name\\',  or \\'123-abc\\', regex used for validation is \\'[a-z0-9]([-a-z0-9]*[a-z0-9])?\\')\"",
        ),
    ],
    "has() over a missing intermediate field: cel-python answers false where cel-go fails with no such key": [
        ("object access", "has(self.a1.d2.e2)"),
    ],
    "cel-python's all() macro reports an element's error as no such overload": [
        ("listMap access", "self.listMap.all(m, m.v2 == 'z')"),
    ],
    "cel-python's index error does not name the index": [
        ("list access", "self.array[100] == 0"),
    ],
    "has() on a field whose data the schema rejects: cel-python's has() tests presence only": [
        ("invalid data", "has(self.intorstring)"),
        ("invalid data", "has(self.l)"),
        ("invalid data", "has(self.lm)"),
        ("invalid data", "has(self.m)"),
        ("invalid data", "has(self.o)"),
        ("invalid data", "has(self.s)"),
    ],
    "cel-python's built-in min() shadows the library's (its empty-list error differs)": [
        ("stdlib list functions", "self.emptyDoubles.min() == 1.0"),
        ("stdlib list functions", "self.emptyInts.min() == 1"),
        ("stdlib list functions", "self.emptyStrings.min() == 'a'"),
    ],
}
_SKIP: dict[tuple[str, str], str] = {pair: why for why, pairs in _SKIPPED.items() for pair in pairs}


def _cases(kind: str) -> list[Any]:
    out = []
    for row in _ROWS:
        rules = (
            row.get("valid") or [] if kind == "valid" else list((row.get("errors") or {}).items())
        )
        for rule in rules:
            text = rule if isinstance(rule, str) else rule[0]
            out.append(pytest.param(row, rule, id=f"{row['name']}/{text[:127]}"))
    return out


def _go_error(c: Any) -> str:
    """``field.Error.Error()``: the path, then the detail."""
    return f"{c.field}: {c.message}"


def _with_rule(row: Obj, rule: str) -> Obj:
    return {**row["schema"], "x-kubernetes-validations": [{"rule": rule}]}


@pytest.mark.parametrize(("row", "rule"), _cases("valid"))
def test_valid(row: Obj, rule: str) -> None:
    if (why := _SKIP.get((row["name"], rule))) is not None:
        pytest.skip(why)
    s, old = _with_rule(row, rule), row.get("oldObj")
    causes = rule_causes(s, row["obj"], old, has_old=old is not None, path="root")
    assert [str(c) for c in causes] == []
    if row["expectSkipped"]:  # a transition rule without an old value is not evaluated
        return
    got = evaluate(rule, s, row["obj"], old, root=row["isRoot"])
    assert isinstance(got, BoolType) and bool(got), got


@pytest.mark.parametrize(("row", "rule"), _cases("errors"))
def test_errors(row: Obj, rule: tuple[str, str]) -> None:
    text, want = rule
    if (why := _SKIP.get((row["name"], text))) is not None:
        pytest.skip(why)
    causes = rule_causes(_with_rule(row, text), row["obj"], path="root")
    assert causes, "expected validation errors but got none"
    for c in causes:
        assert c.reason == "FieldValueInvalid" and want in _go_error(c), _go_error(c)


def test_skips_name_rows() -> None:
    """Every skipped pair names a rule of the table (no stale skips)."""
    rules = {
        (r["name"], t) for r in _ROWS for t in [*(r.get("valid") or []), *(r.get("errors") or {})]
    }
    assert set(_SKIP) <= rules


_LEVELS: list[Obj] = json.loads(
    (Path(__file__).parent / "upstream_cel_validation_expressions.json").read_text()
)["TestValidationExpressionsAtSchemaLevels"]
_SKIP_LEVELS_COMPILE = (
    "a cel-go compile (type-check) error, which cel-python (parse only) does not raise"
)
_SKIP_LEVELS: dict[str, str] = {
    name: _SKIP_LEVELS_COMPILE
    for name in (
        "invalid rule under array items",
        "invalid rule under array items, parent has rule",
        "invalid rule under additionalProperties",
        "invalid rule under additionalProperties, parent has rule",
        "invalid rule under unescaped field name",
        "invalid rule under unescaped field name, parent has rule",
        "invalid rule under escaped field name",
        "invalid rule under escaped field name, parent has rule",
        "invalid rule under unescapable field name",
        "invalid rule under unescapable field name, parent has rule",
    )
}


@pytest.mark.parametrize("row", _LEVELS, ids=[r["name"] for r in _LEVELS])
def test_at_schema_levels(row: Obj) -> None:
    if (why := _SKIP_LEVELS.get(row["name"])) is not None:
        pytest.skip(why)
    unmatched = list(row.get("errors") or [])
    for c in rule_causes(row["schema"], row["obj"], path="root"):
        assert c.reason == "FieldValueInvalid", _go_error(c)
        hit = next((e for e in unmatched if e in _go_error(c)), None)
        assert hit is not None, f"unexpected error {_go_error(c)}; expected one of {unmatched}"
        unmatched.remove(hit)
    assert unmatched == []
