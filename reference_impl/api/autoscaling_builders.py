"""Builders for autoscaling/v2 HorizontalPodAutoscalers (``make_hpa("h", ns).external(...)``)."""

from __future__ import annotations

from typing import Any, Self

from reference_impl.api.builders import ManifestBuilder

__all__ = ["HPABuilder", "make_hpa"]

Obj = dict[str, Any]


class HPABuilder(ManifestBuilder):
    """An autoscaling/v2 HorizontalPodAutoscaler manifest."""

    def __init__(self, name: str, namespace: str | None, target: str, kind: str) -> None:
        super().__init__("autoscaling/v2", "HorizontalPodAutoscaler", name, namespace)
        self._obj["spec"] = {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": kind, "name": target},
            "maxReplicas": 10,
        }

    @property
    def _spec(self) -> Obj:
        spec: Obj = self._obj["spec"]
        return spec

    def replicas(self, min_replicas: int | None, max_replicas: int) -> Self:
        """Set ``minReplicas`` (None: leave it to the default of 1) and ``maxReplicas``."""
        if min_replicas is not None:
            self._spec["minReplicas"] = min_replicas
        self._spec["maxReplicas"] = max_replicas
        return self

    def _metric(self, metric: Obj) -> Self:
        self._spec.setdefault("metrics", []).append(metric)
        return self

    def external(
        self,
        name: str,
        *,
        value: str | None = None,
        average_value: str | None = None,
        selector: dict[str, str] | None = None,
    ) -> Self:
        """An External metric with a Value (default) or AverageValue target."""
        ident: Obj = {"name": name}
        if selector:
            ident["selector"] = {"matchLabels": dict(selector)}
        return self._metric(
            {
                "type": "External",
                "external": {"metric": ident, "target": _target(value, average_value)},
            }
        )

    def object(
        self,
        name: str,
        described: tuple[str, str, str],
        *,
        value: str | None = None,
        average_value: str | None = None,
    ) -> Self:
        """An Object metric on ``described`` = (apiVersion, kind, name)."""
        api_version, kind, obj_name = described
        ref = {"apiVersion": api_version, "kind": kind, "name": obj_name}
        return self._metric(
            {
                "type": "Object",
                "object": {
                    "describedObject": ref,
                    "metric": {"name": name},
                    "target": _target(value, average_value),
                },
            }
        )

    def pods(self, name: str, average_value: str) -> Self:
        """A Pods metric with an AverageValue target."""
        target = {"type": "AverageValue", "averageValue": average_value}
        return self._metric({"type": "Pods", "pods": {"metric": {"name": name}, "target": target}})

    def cpu(self, utilization: int) -> Self:
        """A Resource metric: average CPU utilization in percent of requests."""
        target = {"type": "Utilization", "averageUtilization": utilization}
        return self._metric({"type": "Resource", "resource": {"name": "cpu", "target": target}})

    def scale_down(
        self, window_seconds: int | None = None, policies: list[Obj] | None = None
    ) -> Self:
        """Set ``behavior.scaleDown`` (stabilization window and policies)."""
        return self._rules("scaleDown", window_seconds, policies)

    def scale_up(
        self, window_seconds: int | None = None, policies: list[Obj] | None = None
    ) -> Self:
        """Set ``behavior.scaleUp`` (stabilization window and policies)."""
        return self._rules("scaleUp", window_seconds, policies)

    def _rules(self, direction: str, window: int | None, policies: list[Obj] | None) -> Self:
        rules: Obj = self._spec.setdefault("behavior", {}).setdefault(direction, {})
        if window is not None:
            rules["stabilizationWindowSeconds"] = window
        if policies is not None:
            rules["policies"] = policies
        return self


def _target(value: str | None, average_value: str | None) -> Obj:
    if average_value is not None:
        return {"type": "AverageValue", "averageValue": average_value}
    return {"type": "Value", "value": value if value is not None else "1"}


def make_hpa(
    name: str, namespace: str | None = None, *, target: str, kind: str = "Deployment"
) -> HPABuilder:
    """An HPA scaling the apps/v1 ``kind`` named ``target`` (maxReplicas 10 until set)."""
    return HPABuilder(name, namespace, target, kind)
