"""Ports of apiextensions-apiserver v0.37.2 ``pkg/apiserver/schema/cel/validation_test.go``:
TestReasonAndFldPath and TestMessageExpression (the rows about the rule's message; the
cost-budget rows need cel-go's runtime cost, which cel-python does not count)."""

from __future__ import annotations

from typing import Any

import pytest

from reference_impl.apiserver.customresource.cel import rule_causes

Obj = dict[str, Any]
INTEGER: Obj = {"type": "integer"}
STRING: Obj = {"type": "string"}


def _f_schema(reason: str | None, field_path: str) -> Obj:
    rule: Obj = {"rule": "self.m == 2"}
    if reason:
        rule["reason"] = reason
    if field_path:
        rule["fieldPath"] = field_path
    f = {"type": "object", "properties": {"m": INTEGER}, "x-kubernetes-validations": [rule]}
    return {"type": "object", "properties": {"f": f},
            "x-kubernetes-validations": [{"rule": "1 == 1"}]}  # fmt: skip


_MULTI: Obj = {
    "type": "object", "properties": {"field1": STRING, "field2": STRING, "field3": STRING},
    "x-kubernetes-validations": [
        {"rule": 'self.field2 != "value2"', "reason": "FieldValueDuplicate", "fieldPath": ".field2"},
        {"rule": 'self.field3 != "value3"', "reason": "FieldValueRequired", "fieldPath": ".field3"},
        {"rule": 'self.field1 != "value1"', "reason": "FieldValueForbidden", "fieldPath": ".field1"},
    ],
}  # fmt: skip
_F: Obj = {"f": {"m": 1}}
REASON_AND_FIELD_PATH: dict[str, tuple[Obj, Obj, list[tuple[str, str]]]] = {
    "Return error based on input reason": (
        _f_schema("FieldValueForbidden", ""), _F, [("FieldValueForbidden", "root.f")]),
    "Return error default is invalid": (_f_schema(None, ""), _F, [("FieldValueInvalid", "root.f")]),
    "Return error based on input fieldPath": (
        _f_schema("FieldValueForbidden", ".m"), _F, [("FieldValueForbidden", "root.f.m")]),
    "multiple rules with custom reason and field path": (
        _MULTI, {"field1": "value1", "field2": "value2", "field3": "value3"},
        [("FieldValueDuplicate", "root.field2"), ("FieldValueRequired", "root.field3"),
         ("FieldValueForbidden", "root.field1")]),
}  # fmt: skip


@pytest.mark.parametrize("name", list(REASON_AND_FIELD_PATH), ids=list(REASON_AND_FIELD_PATH))
def test_reason_and_fld_path(name: str) -> None:
    s, obj, want = REASON_AND_FIELD_PATH[name]
    got = [(c.reason, c.field) for c in rule_causes(s, obj, path="root")]
    assert sorted(got) == sorted(want)


_SKIP_COST = "needs cel-go's runtime cost budget, which cel-python does not count"
# name -> (message, messageExpression, expectedValidationErr)
MESSAGE_EXPRESSION: dict[str, tuple[str, str, str]] = {
    "no cost error expected": ("", '"static string"', "static string"),
    "messageExpression takes precedence over message": (
        "invisible", '"this is messageExpression"', "this is messageExpression"),
    "default rule message used if messageExpression does not eval to string": (
        "", "true", "failed rule"),
    "limit exceeded": ("", '"string 1" + "string 2" + "string 3"',
                       "messageExpression evaluation failed due to running out of cost budget"),
    "messageExpression budget (str concat)": ("", '"str1 " + self.str', "str1 a string"),
    "runtime cost preserved if messageExpression fails during evaluation": (
        "message not messageExpression", '"str1 " + ["a", "b", "c", "d"][4]',
        "message not messageExpression"),
    "runtime cost preserved if messageExpression fails during evaluation (no message set)": (
        "", '"str1 " + ["a", "b", "c", "d"][4]', "failed rule"),
    "per-call limit exceeded during messageExpression execution": (
        "", '"string 1" + "string 2" + "string 3"', "call cost exceeds limit for messageExpression"),
    "messageExpression is not allowed to generate a string with newlines": (
        "message not messageExpression", '"str with \\na newline"', "message not messageExpression"),
    "messageExpression is not allowed to generate messages >5000 characters": (
        "message not messageExpression", '"' + "a" * 5121 + '"', "message not messageExpression"),
    "messageExpression is not allowed to generate an empty string": (
        "message not messageExpression", 'string("")', "message not messageExpression"),
    "messageExpression is not allowed to generate a string with only spaces": (
        "message not messageExpression", 'string("     ")', "message not messageExpression"),
}  # fmt: skip
_COST_ROWS = ("limit exceeded", "per-call limit exceeded during messageExpression execution")


@pytest.mark.parametrize("name", list(MESSAGE_EXPRESSION), ids=list(MESSAGE_EXPRESSION))
def test_message_expression(name: str) -> None:
    if name in _COST_ROWS:
        pytest.skip(_SKIP_COST)
    message, expression, want = MESSAGE_EXPRESSION[name]
    rule: Obj = {"rule": "false", "messageExpression": expression}
    if message:
        rule["message"] = message
    s = {"type": "object", "properties": {"str": STRING}, "x-kubernetes-validations": [rule]}
    causes = rule_causes(s, {"str": "a string"}, path="root")
    assert len(causes) == 1
    assert want in f"{causes[0].field}: {causes[0].message}"
