"""The body as upstream's JSON decoder reads it into the typed object.

Models ``sigs.k8s.io/json`` (Go's ``encoding/json`` fork) under the apiserver's strict
serializer (``apimachinery/pkg/runtime/serializer/json``), walking the body in document
order against the kind's 1.37 schema:
- a value of the wrong JSON type (or a number a Go integer cannot hold) is skipped and
  only the *first* such error is kept; its field is the dotted chain of struct field
  names from the root, without list indexes or map keys, with the Go name of an embedded
  struct where a field is promoted from one (``spec.volumes.VolumeSource.hostPath``);
- a custom ``UnmarshalJSON`` (Quantity, Time, MicroTime, IntOrString) that fails aborts
  the decode at once, whatever was saved before;
- only when neither happened are the strict errors reported: every unknown field, at its
  full path with indexes.

The apiserver answers all of these 400 before any validation runs. Enums, required
fields and formats are validation's business, not the decoder's.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from dataclasses import dataclass, field
from datetime import datetime
from functools import cache
from importlib import resources
from typing import Any, Final

from reference_impl.api.quantity_wire import wire_quantity
from reference_impl.apiserver import schema
from reference_impl.errors import Cause

__all__ = ["WireErrors", "definition_errors", "go_kind", "root_definition", "wire_errors"]

_REF: Final = "#/$defs/"
_INT_RANGE: Final = {"int32": (-(2**31), 2**31 - 1), "int64": (-(2**63), 2**63 - 1)}
_QUANTITY: Final = re.compile(r"^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$")
_QUANTITY_SUFFIXES: Final = frozenset(
    {"", "n", "u", "m", "k", "M", "G", "T", "P", "E", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"}
)
_QUANTITY_MSG: Final = (
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
)
# Go's time.Parse takes a comma before the fraction as well as a point.
_RFC3339: Final = re.compile(
    r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}([.,]\d+)?(Z|[+-]\d{2}:\d{2})$"
)
_RFC3339_MICRO: Final = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[.,]\d{6}(Z|[+-]\d{2}:\d{2})$")
_FREE: Final = frozenset(
    {
        "io.k8s.apimachinery.pkg.runtime.RawExtension",
        "io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1",
        "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSON",
    }
)
_VOLUME_SOURCE: Final = frozenset(
    "hostPath emptyDir gcePersistentDisk awsElasticBlockStore gitRepo secret nfs iscsi "
    "glusterfs persistentVolumeClaim rbd flexVolume cinder cephfs flocker downwardAPI fc "
    "azureFile configMap vsphereVolume quobyte azureDisk photonPersistentDisk projected "
    "portworxVolume scaleIO storageos csi ephemeral image".split()
)
_PV_SOURCE: Final = frozenset(
    "gcePersistentDisk awsElasticBlockStore hostPath glusterfs nfs rbd iscsi cinder cephfs "
    "fc flocker flexVolume azureFile vsphereVolume quobyte azureDisk photonPersistentDisk "
    "portworxVolume scaleIO local storageos csi".split()
)
_CONTAINER_COMMON: Final = frozenset(
    "args command env envFrom image imagePullPolicy lifecycle livenessProbe name ports "
    "readinessProbe resizePolicy resources restartPolicy restartPolicyRules securityContext "
    "startupProbe stdin stdinOnce terminationMessagePath terminationMessagePolicy tty "
    "volumeDevices volumeMounts workingDir".split()
)
_LOCAL_REF: Final = ("LocalObjectReference", frozenset({"name"}))
_RULE: Final = frozenset({"apiGroups", "apiVersions", "resources", "scope"})
# Embedded (json:"" / inline) Go structs, by the definition that embeds them (any version):
# the Go field names that the decoder puts in a promoted field's error path (a struct
# embedded in an embedded struct adds both: ``RuleWithOperations.Rule.resources``).
_EMBEDDED: Final[dict[str, tuple[str, frozenset[str]]]] = {
    "admissionregistration.RuleWithOperations": ("Rule", _RULE),
    "admissionregistration.NamedRuleWithOperations": ("RuleWithOperations", frozenset({"operations"})),
    "networking.IngressRule": ("IngressRuleValue", frozenset({"http"})),
    "core.Volume": ("VolumeSource", _VOLUME_SOURCE),
    "core.PersistentVolumeSpec": ("PersistentVolumeSource", _PV_SOURCE),
    "core.EphemeralContainer": ("EphemeralContainerCommon", _CONTAINER_COMMON),
    "core.Probe": ("ProbeHandler", frozenset({"exec", "httpGet", "tcpSocket", "grpc"})),
    "core.ConfigMapEnvSource": _LOCAL_REF,
    "core.ConfigMapKeySelector": _LOCAL_REF,
    "core.ConfigMapProjection": _LOCAL_REF,
    "core.ConfigMapVolumeSource": _LOCAL_REF,
    "core.SecretEnvSource": _LOCAL_REF,
    "core.SecretKeySelector": _LOCAL_REF,
    "core.SecretProjection": _LOCAL_REF,
    "resource.DeviceAllocationConfiguration": ("DeviceConfiguration", frozenset({"opaque"})),
    "resource.DeviceClaimConfiguration": ("DeviceConfiguration", frozenset({"opaque"})),
    "resource.DeviceClassConfiguration": ("DeviceConfiguration", frozenset({"opaque"})),
}
_NESTED: Final[dict[str, tuple[str, frozenset[str]]]] = {
    "admissionregistration.NamedRuleWithOperations": ("RuleWithOperations.Rule", _RULE),
}


@dataclass(slots=True)
class WireErrors:
    """What decoding found: a fatal message (the apiserver's 400 without a field), the first
    type error, or the strict errors; at most one of the three is reported."""

    fatal: str = ""
    type_error: Cause | None = None
    unknown: list[Cause] = field(default_factory=list)

    def causes(self) -> list[Cause]:
        """The causes of a non-fatal failure: the type error, else the strict errors."""
        return [self.type_error] if self.type_error else self.unknown


class _Abort(Exception):
    """A custom unmarshaler failed: the decode stops here."""

    def __init__(self, message: str, cause: Cause | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.cause = cause


def go_kind(v: Any) -> str:
    """The JSON kind Go's decoder names in a type error (bool, number, string, array, object)."""
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int | float):
        return "number"
    if isinstance(v, str):
        return "string"
    return "array" if isinstance(v, list) else "object"


def _short(def_name: str) -> str:
    parts = def_name.split(".")
    return f"{parts[3]}.{parts[-1]}" if def_name.startswith("io.k8s.api.") and len(parts) > 5 else ""


(_K_FREE, _K_QUANTITY, _K_INTSTR, _K_TIME, _K_MICROTIME, _K_OBJECT, _K_ARRAY, _K_STRING,
 _K_INTEGER, _K_NUMBER, _K_BOOLEAN, _K_SCHEMA_OR) = range(12)  # fmt: skip
_SCHEMA_OR: Final = ("JSONSchemaPropsOrArray", "JSONSchemaPropsOrBool", "JSONSchemaPropsOrStringArray")


@dataclass(frozen=True, slots=True)
class _Plan:
    node: Any  # the schema node planned (kept, so its id stays its own)
    kind: int
    name: str  # the definition it resolves to, "" if inline
    schema: dict[str, Any]  # the resolved schema
    byte: bool  # format: byte
    int_format: str  # the Go integer type named in errors
    lo: int
    hi: int


_PLANS: Final[dict[int, _Plan]] = {}  # by id() of schema nodes, which live for the process
_PROP_PLANS: Final[dict[int, tuple[dict[str, Any], dict[str, _Plan]]]] = {}  # by id() of objects
# id() of a schema node -> (the node, the named Go type it decodes into: go_types.json).
_GO_NAMES: Final[dict[int, tuple[Any, str]]] = {}


@cache
def _go_types() -> dict[str, dict[str, str]]:
    """Fields whose Go type the schema cannot name (tools/gotypes/extract.py wrote them)."""
    text = resources.files("reference_impl.apiserver").joinpath("go_types.json").read_text("utf-8")
    table: dict[str, dict[str, str]] = json.loads(text)
    return table


@cache
def _embedded(def_name: str) -> dict[str, str]:
    """Promoted field -> the embedded struct path its error path goes through."""
    out: dict[str, str] = {}
    for table in (_EMBEDDED, _NESTED):
        if (hit := table.get(_short(def_name))) is not None:
            out.update(dict.fromkeys(hit[1], hit[0]))
    return out


@cache
def root_definition(api_version: str, kind: str) -> str:
    """The definition a kind's root schema copies (its fields' Go types are noted by it)."""
    group, _, version = api_version.rpartition("/")
    for name, d in schema.definitions().items():
        for gvk in d.get("x-kubernetes-group-version-kind") or ():
            if (gvk.get("group"), gvk.get("version"), gvk.get("kind")) == (group, version, kind):
                return name
    return ""


# Synthetic schema nodes for the second decode of JSONSchemaPropsOr*, kept so their plans
# (cached by id) stay valid.
_SUB_NODES: dict[str, dict[str, Any]] = {}


class _Walker:
    def __init__(self) -> None:
        self.out = WireErrors()
        self.defs = schema.definitions()

    def resolve(self, node: Any) -> tuple[str, dict[str, Any]]:
        name = ""
        while isinstance(node, dict):
            ref = node.get("$ref")
            all_of = node.get("allOf")
            if isinstance(ref, str) and ref.startswith(_REF):
                name = ref[len(_REF) :]
                node = self.defs.get(name)
            elif isinstance(all_of, list) and len(all_of) == 1:
                node = all_of[0]
            else:
                return name, node
        return name, {}

    def save(self, go_path: str | None, message: str) -> None:
        """Go's saveError: only the first error is kept (a field's, or base64's without one)."""
        if self.out.type_error is None and not self.out.fatal:
            if go_path is None:
                self.out.fatal = message
            else:
                self.out.type_error = Cause(go_path, "FieldValueTypeInvalid", message)

    def type_error(self, go_path: str, value: Any, want: str, struct: str) -> None:
        self.save(
            go_path,
            f"json: cannot unmarshal {go_kind(value)} into Go struct field {struct}.{go_path} of type {want}",
        )

    def range_error(self, go_path: str, value: float, want: str, struct: str) -> None:
        """A number the Go integer cannot hold: Go names the literal ("number 1.5")."""
        self.save(
            go_path,
            f"json: cannot unmarshal number {json.dumps(value)} into Go struct field {struct}.{go_path} of type {want}",
        )

    def go_type(self, node: Any) -> str:
        """The Go type a schema node decodes into, as Go's errors name it ("[]v1.Container",
        "map[string]string"). A named type the schema cannot show (types.UID,
        v1.ResourceList) comes from go_types.json, noted by ``prop_plans``."""
        named = _GO_NAMES.get(id(node))
        if named is not None and named[0] is node:
            return named[1]
        p = self.plan(node)
        kind = p.kind
        if p.name and kind != _K_ARRAY:
            return ".".join(p.name.split(".")[-2:])  # package and type: v1.PodSpec
        if kind == _K_OBJECT:  # inline: a map
            extra = p.schema.get("additionalProperties")
            return f"map[string]{self.go_type(extra) if isinstance(extra, dict) else 'interface {}'}"
        if kind == _K_ARRAY:
            return "[]" + self.go_type(p.schema.get("items"))
        if kind == _K_STRING:
            return "[]uint8" if p.byte else "string"
        if kind == _K_INTEGER:
            return p.int_format
        return {_K_NUMBER: "float64", _K_BOOLEAN: "bool"}.get(kind, "interface {}")

    def plan(self, node: Any) -> _Plan:
        """How a value at ``node`` is decoded, worked out once per schema node."""
        hit = _PLANS.get(id(node))
        if hit is not None and hit.node is node:
            return hit
        name, r = self.resolve(node)
        t = r.get("type")
        types = {t} if isinstance(t, str) else set(t) - {"null"} if isinstance(t, list) else set()
        if name in _FREE or (not r and not name):
            kind = _K_FREE
        elif name.endswith("resource.Quantity"):
            kind = _K_QUANTITY
        elif name.endswith("intstr.IntOrString"):
            kind = _K_INTSTR
        elif name.endswith("meta.v1.Time"):
            kind = _K_TIME
        elif name.endswith("meta.v1.MicroTime"):
            kind = _K_MICROTIME
        elif name.endswith(_SCHEMA_OR):
            kind = _K_SCHEMA_OR
        elif "object" in types or (not types and "properties" in r):
            kind = _K_OBJECT
        elif "array" in types:
            kind = _K_ARRAY
        elif "string" in types:
            kind = _K_STRING
        elif "integer" in types:
            kind = _K_INTEGER
        elif "number" in types:
            kind = _K_NUMBER
        elif "boolean" in types:
            kind = _K_BOOLEAN
        else:
            kind = _K_FREE
        fmt = str(r.get("format") or "")
        lo, hi = _INT_RANGE.get(fmt, _INT_RANGE["int64"])
        out = _Plan(node, kind, name, r, fmt == "byte", fmt or "int64", lo, hi)
        _PLANS[id(node)] = out  # holds ``node``, so its id is not reused while cached
        return out

    def prop_plans(self, r: dict[str, Any], props: dict[str, Any], name: str) -> dict[str, _Plan]:
        """The plan of each property of the object schema ``r`` (definition ``name``),
        worked out once; the named Go types of its fields are noted by schema node."""
        hit = _PROP_PLANS.get(id(r))
        if hit is not None and hit[0] is r:
            return hit[1]
        plans = {k: self.plan(node) for k, node in props.items()}
        for key, go in _go_types().get(name, {}).items():
            field_name, part = (key[:-2], key[-2:]) if key[-2:] in ("[]", "{}") else (key, "")
            p = plans.get(field_name)
            if p is not None:
                node = p.node if not part else p.schema.get("items" if part == "[]" else "additionalProperties")
                _GO_NAMES[id(node)] = (node, go)
        _PROP_PLANS[id(r)] = (r, plans)  # holds ``r``, so its id is not reused while cached
        return plans

    def value(self, v: Any, node: Any, go_path: str, strict: str, struct: str) -> Any:
        """Check ``v`` against ``node``; ``struct``: the Go struct whose field holds it.
        Returns what a quantity reads back as when that differs from ``v`` (the caller
        puts it in ``v``'s place: the stored object has it), else None."""
        if v is None:
            return None  # a null leaves the Go value as it is
        p = self.plan(node)
        kind = p.kind
        if kind == _K_OBJECT:
            if not isinstance(v, dict):
                return self.type_error(go_path, v, self.go_type(node), struct)
            self.obj(v, p.schema, p.name, go_path, strict, struct)
        elif kind == _K_STRING:
            if isinstance(v, list) and p.byte:
                return self.byte_list(v, go_path, struct)
            if not isinstance(v, str):
                return self.type_error(go_path, v, self.go_type(node), struct)
            if p.byte:
                self.byte_string(v)
        elif kind == _K_FREE:
            return None
        elif kind == _K_ARRAY:
            if isinstance(v, str) and p.byte:
                return self.byte_string(v)
            if not isinstance(v, list):
                return self.type_error(go_path, v, self.go_type(node), struct)
            items = p.schema.get("items")
            for i, item in enumerate(v):
                if (canonical := self.value(item, items, go_path, f"{strict}[{i}]", struct)) is not None:
                    v[i] = canonical
        elif kind == _K_INTEGER:
            if isinstance(v, bool) or not isinstance(v, int) or not p.lo <= v <= p.hi:
                if isinstance(v, int | float) and not isinstance(v, bool):
                    return self.range_error(go_path, v, self.go_type(node), struct)
                return self.type_error(go_path, v, self.go_type(node), struct)
        elif kind == _K_QUANTITY:
            return self.quantity(v)
        elif kind == _K_SCHEMA_OR:
            return self.schema_or(v, p.name, go_path, struct)
        elif kind == _K_BOOLEAN:
            if not isinstance(v, bool):
                return self.type_error(go_path, v, self.go_type(node), struct)
        elif kind == _K_NUMBER:
            if isinstance(v, bool) or not isinstance(v, int | float):
                return self.type_error(go_path, v, self.go_type(node), struct)
        elif kind == _K_INTSTR:
            return self.int_or_string(v, go_path, struct)
        elif kind in (_K_TIME, _K_MICROTIME):
            return self.time(v, go_path, struct, micro=kind == _K_MICROTIME)
        return None

    def obj(
        self, v: dict[str, Any], r: dict[str, Any], name: str, go_path: str, strict: str, struct: str
    ) -> None:
        """Check an object; ``name``: its definition ("" inline, a map); ``struct``: the Go
        struct whose field holds it (a map's values are that struct's field too)."""
        props = r.get("properties")
        if isinstance(props, dict) and props:
            own = name.rpartition(".")[2] or struct
            embedded = _embedded(name)
            plans = self.prop_plans(r, props, name)
            for k, item in v.items():
                p = plans.get(k)
                if p is not None and (item is None or _fits(item, p)):
                    continue  # nothing to report, so no paths to build
                sub_strict = f"{strict}.{k}" if strict else k
                if p is None:  # no plan: not a property of this object
                    self.out.unknown.append(
                        Cause(sub_strict, "FieldValueUnknown", f'unknown field "{sub_strict}"')
                    )
                    continue
                step = f"{embedded[k]}.{k}" if k in embedded else k
                canonical = self.value(item, p.node, f"{go_path}.{step}" if go_path else step, sub_strict, own)
                if canonical is not None:
                    v[k] = canonical
            return
        extra = r.get("additionalProperties")
        if isinstance(extra, dict):
            for k, item in v.items():
                if (canonical := self.value(item, extra, go_path, f"{strict}.{k}" if strict else k, struct)) is not None:
                    v[k] = canonical
        elif extra is None or extra is False:
            # A Go struct without fields (BasicSchedulingPolicy): every key is unknown.
            for k in v:
                sub = f"{strict}.{k}" if strict else k
                self.out.unknown.append(Cause(sub, "FieldValueUnknown", f'unknown field "{sub}"'))

    def schema_or(self, v: Any, name: str, go_path: str, struct: str) -> None:
        """apiextensions' JSONSchemaPropsOr{Array,Bool,StringArray}.UnmarshalJSON: an object
        (or, for the arrays, a list) is decoded again by a plain, non-strict Unmarshal, whose
        first type error ends the whole decode with the outer path in front; other values
        are ignored, except that OrBool wants a boolean."""
        kind = name.rpartition(".")[2]
        props = f"{_REF}{name.rpartition('.')[0]}.JSONSchemaProps"
        if isinstance(v, dict):
            node: dict[str, Any] = _SUB_NODES.setdefault(props, {"$ref": props})
        elif isinstance(v, list) and kind != "JSONSchemaPropsOrBool":
            want = {"type": "string"} if kind.endswith("StringArray") else {"$ref": props}
            node = _SUB_NODES.setdefault(f"[]{kind}", {"type": "array", "items": want})
        elif kind == "JSONSchemaPropsOrBool" and not isinstance(v, bool):
            raise _Abort("boolean or JSON schema expected")
        else:
            return
        sub = _Walker()
        sub.value(v, node, "", "", "JSONSchemaProps")
        err = sub.out.type_error
        if err is not None:
            path = f"{go_path}.{err.field}" if err.field else go_path
            raise _Abort(err.message, Cause(path, err.reason, err.message))
        if sub.out.fatal:
            raise _Abort(sub.out.fatal)

    def quantity(self, v: Any) -> str | None:
        """Check a quantity; what it reads back as (``wire_quantity``) when not ``v``."""
        text = v if isinstance(v, str) else json.dumps(v)
        m = _QUANTITY.match(text.strip())
        if not m:
            raise _Abort(_QUANTITY_MSG)
        num, suffix = m.group(1), m.group(2)
        if num.count(".") > 1 or num.strip("+-") in ("", "."):
            raise _Abort("unable to parse numeric part of quantity")
        if suffix not in _QUANTITY_SUFFIXES and not re.fullmatch(r"[eE][-+]?[0-9]+", suffix):
            raise _Abort("unable to parse quantity's suffix")
        canonical = wire_quantity(v)
        return None if canonical == v else canonical

    def int_or_string(self, v: Any, go_path: str, struct: str) -> None:
        if isinstance(v, str):
            return
        lo, hi = _INT_RANGE["int32"]
        if isinstance(v, int) and not isinstance(v, bool) and lo <= v <= hi:
            return
        what = f"number {json.dumps(v)}" if isinstance(v, int | float) and not isinstance(v, bool) else go_kind(v)
        msg = f"json: cannot unmarshal {what} into Go struct field {struct}.{go_path} of type int32"
        raise _Abort(msg, Cause(go_path, "FieldValueTypeInvalid", msg))

    def time(self, v: Any, go_path: str, struct: str, *, micro: bool) -> None:
        if not isinstance(v, str):
            msg = f"json: cannot unmarshal {go_kind(v)} into Go struct field {struct}.{go_path} of type string"
            raise _Abort(msg, Cause(go_path, "FieldValueTypeInvalid", msg))
        pattern = _RFC3339_MICRO if micro else _RFC3339
        ok = bool(pattern.match(v))
        if ok:
            # Go's time.Parse takes year 0000, which datetime lacks; 2000 has the same
            # Gregorian calendar (both leap), so the date checks read the same. It takes
            # offsets up to 24:60 too (the range check in time.parse), datetime under 24h.
            stamp = ("2000" + v[4:] if v.startswith("0000") else v).replace(",", ".")
            if not stamp.endswith("Z"):
                stamp, ok = stamp[:-6] + "Z", int(stamp[-5:-3]) <= 24 and int(stamp[-2:]) <= 60
            try:
                datetime.fromisoformat(stamp.replace("Z", "+00:00"))
            except ValueError:
                ok = False
        if not ok:
            layout = "2006-01-02T15:04:05.000000Z07:00" if micro else "2006-01-02T15:04:05Z07:00"
            raise _Abort(f'parsing time "{v}" as "{layout}": cannot parse "{v}"')

    def byte_string(self, v: str) -> None:
        try:
            base64.b64decode(v, validate=True)
        except (binascii.Error, ValueError):
            self.save(None, "illegal base64 data")

    def byte_list(self, v: list[Any], go_path: str, struct: str) -> None:
        for item in v:  # Go decodes a JSON array into a []byte element by element
            if item is not None and (isinstance(item, bool) or not isinstance(item, int) or not 0 <= item <= 255):
                if isinstance(item, int | float) and not isinstance(item, bool):
                    return self.range_error(go_path, item, "uint8", struct)
                return self.type_error(go_path, item, "uint8", struct)


def _fits(v: Any, p: _Plan) -> bool:
    """True for a value ``value`` would accept without a word: a free-form value, or a
    plain string, boolean or in-range integer where the schema wants one."""
    kind, t = p.kind, type(v)
    if kind == _K_STRING:
        return t is str and not p.byte
    return kind == _K_FREE or (kind == _K_BOOLEAN and t is bool) or (
        kind == _K_INTEGER and t is int and p.lo <= v <= p.hi
    )


def wire_errors(obj: dict[str, Any], api_version: str, kind: str) -> WireErrors | None:
    """What upstream's decoder reports for ``obj`` (None when nothing: decoded cleanly, or
    no schema for the kind)."""
    root = schema.kind_schema(api_version, kind)
    if root is None:
        return None
    return _walk(obj, root, root_definition(api_version, kind), kind)


def definition_errors(v: dict[str, Any], definition: str) -> WireErrors | None:
    """``wire_errors`` for ``v`` decoded into the named ``definition`` itself, as
    ``utiljson.Unmarshal`` of a custom resource's metadata into ObjectMeta (the first
    struct is the definition's Go type)."""
    d = schema.definitions().get(definition)
    if d is None:
        return None
    return _walk(v, d, definition, definition.rpartition(".")[2])


def _walk(v: dict[str, Any], node: dict[str, Any], definition: str, kind: str) -> WireErrors | None:
    """What decoding ``v`` against schema ``node`` (of Go type ``definition``) reports: the
    first type error wins over everything, a fatal error over unknown fields."""
    w = _Walker()
    try:
        w.obj(v, node, definition, "", "", kind)
    except _Abort as e:
        return WireErrors(fatal="" if e.cause else e.message, type_error=e.cause)
    out = w.out
    if out.type_error is not None:
        out.fatal, out.unknown = "", []
    elif out.fatal:
        out.unknown = []
    return out if (out.fatal or out.type_error or out.unknown) else None
