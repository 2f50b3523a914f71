"""Which fields of the CEL ``device`` variable an expression reads.

Most device classes select by driver alone (``device.driver == "gpu.example.com"``). Such
a verdict depends on nothing else, so it can be cached per driver instead of per device
content, and no device's activation (its attributes and capacities as CEL values) needs
building for it. The analysis is conservative: any use of the name ``device`` other than
``device.<field>`` (indexing, passing it whole, a macro variable of that name, a field
named ``device``) makes the answer None, and the caller evaluates with the full device.
"""

from __future__ import annotations

from typing import Any, Final

from lark import Token, Tree

__all__ = ["SHALLOW_FIELDS", "device_fields"]

# The fields whose values are plain scalars of the device, known without an activation.
SHALLOW_FIELDS: Final = frozenset({"driver", "allowMultipleAllocations"})
_DEVICE: Final = "device"


def _is_device(member: Any) -> bool:
    # member -> primary -> ident "device": the bare variable as an operand.
    if not (isinstance(member, Tree) and member.data == "member" and len(member.children) == 1):
        return False
    primary = member.children[0]
    if not (isinstance(primary, Tree) and primary.data == "primary" and len(primary.children) == 1):
        return False
    ident = primary.children[0]
    return isinstance(ident, Tree) and ident.data == "ident" and ident.children == [_DEVICE]


def device_fields(tree: Tree[Token]) -> frozenset[str] | None:
    """The ``device.<field>`` names ``tree`` reads, or None when it uses ``device`` otherwise."""
    mentions = sum(1 for t in tree.scan_values(lambda v: isinstance(v, Token)) if t == _DEVICE)
    fields: list[str] = []
    for node in tree.iter_subtrees():
        if node.data == "member_dot" and len(node.children) == 2 and _is_device(node.children[0]):
            fields.append(str(node.children[1]))
    return frozenset(fields) if len(fields) == mentions else None
