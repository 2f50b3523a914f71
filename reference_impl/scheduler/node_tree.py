"""Models pkg/scheduler/backend/cache/node_tree.go: node names grouped by zone, listed
zone-interleaved (the first node of each zone, then the second of each, ...), so that a
search that stops early still spreads over zones. Zones and the nodes in a zone keep their
order of arrival."""

from __future__ import annotations

from typing import Any, Final

__all__ = ["NodeTree", "zone_key"]

Obj = dict[str, Any]
_ZONE: Final = "topology.kubernetes.io/zone"
_ZONE_BETA: Final = "failure-domain.beta.kubernetes.io/zone"
_REGION: Final = "topology.kubernetes.io/region"
_REGION_BETA: Final = "failure-domain.beta.kubernetes.io/region"


def zone_key(node: Obj) -> str:
    """``utilnode.GetZoneKey``: the node tree's group of a node ("" without zone labels);
    the GA labels win over the deprecated beta ones."""
    labels = node["metadata"].get("labels") or {}
    region = labels[_REGION] if _REGION in labels else labels.get(_REGION_BETA, "")
    zone = labels[_ZONE] if _ZONE in labels else labels.get(_ZONE_BETA, "")
    return f"{region}:\x00:{zone}" if region or zone else ""


class NodeTree:
    """``nodeTree``: ``tree`` maps a zone key to its node names, ``zones`` keeps the keys
    in order of arrival, ``num_nodes`` counts the names."""

    __slots__ = ("num_nodes", "tree", "zones")

    def __init__(self, nodes: list[Obj] | None = None) -> None:
        self.tree: dict[str, list[str]] = {}
        self.zones: list[str] = []
        self.num_nodes = 0
        for n in nodes or ():
            self.add_node(n)

    def add_node(self, node: Obj) -> None:
        """``addNode``: append to its zone (a new zone goes last); a name already in that
        zone is left alone."""
        zone, name = zone_key(node), node["metadata"]["name"]
        names = self.tree.get(zone)
        if names is None:
            self.zones.append(zone)
            self.tree[zone] = [name]
        elif name in names:
            return
        else:
            names.append(name)
        self.num_nodes += 1

    def remove_node(self, node: Obj) -> str:
        """``removeNode``: drop the name from its zone (an emptied zone goes); the error
        when the zone does not hold it, else ""."""
        zone, name = zone_key(node), node["metadata"]["name"]
        names = self.tree.get(zone)
        if names is None or name not in names:
            return f'node "{name}" in group "{zone}" was not found'
        names.remove(name)
        if not names:
            del self.tree[zone]
            self.zones.remove(zone)
        self.num_nodes -= 1
        return ""

    def update_node(self, old: Obj | None, new: Obj) -> None:
        """``updateNode``: a node whose zone changed moves to the end of its new zone."""
        old_zone = zone_key(old) if old is not None else ""
        if old_zone == zone_key(new):
            return
        if old is not None:
            self.remove_node(old)  # upstream ignores whether it was there
        self.add_node(new)

    def list(self) -> tuple[list[str], str]:
        """``list``: round robin over the zones, the i-th node of each in turn; the error
        when every zone runs out before ``num_nodes`` names (a corrupt count)."""
        out: list[str] = []
        if not self.zones:
            return out, ""
        exhausted = 0
        i = 0
        while len(out) < self.num_nodes:
            if exhausted >= len(self.zones):
                return out, "all zones exhausted before reaching count of nodes expected"
            for zone in self.zones:
                names = self.tree[zone]
                if i >= len(names):
                    if i == len(names):  # the first time this zone runs out
                        exhausted += 1
                    continue
                out.append(names[i])
            i += 1
        return out, ""
