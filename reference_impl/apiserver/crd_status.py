"""Models apiextensions-apiserver's CRD status controllers (v0.37.2), which run inside the
apiserver: ``pkg/controller/status/naming_controller.go`` (``NamingConditionController``)
and ``pkg/controller/establish/establishing_controller.go`` (``EstablishingController``).

The naming controller accepts a CRD's requested names unless another CRD of the same group
has already accepted them (plural, singular and short names share one set, kind and list
kind another), writes ``status.acceptedNames`` and the ``NamesAccepted`` condition, and
starts ``Established`` at False. The establishing controller then sets ``Established``
True ("InitialNamesAccepted"), or False ("InvalidCABundle") when the conversion webhook's
CA bundle does not parse. A deleted CRD frees its names: the others of its group are
reconsidered, as is every other CRD of the group after a status write.
"""

from __future__ import annotations

import copy
from typing import Any, Final

from reference_impl.api.meta import set_condition
from reference_impl.apiserver.component import ComponentContext
from reference_impl.apiserver.customresource.crd_finalizer import CRDFinalizer
from reference_impl.apiserver.informers import SharedInformer, WorkQueue
from reference_impl.apiserver.server import ObjectEvent
from reference_impl.apiserver.strategies.apiextensions_spec import ca_bundle_errors
from reference_impl.clock import rfc3339
from reference_impl.errors import Conflict, NotFound

__all__ = ["EstablishingController", "NamingConditionController", "start_crd_controllers"]

Obj = dict[str, Any]
_CRD: Final = ("apiextensions.k8s.io/v1", "CustomResourceDefinition")
NAMES_ACCEPTED: Final = "NamesAccepted"
ESTABLISHED: Final = "Established"
# CustomResourceDefinitionNames: plural and kind are always written, the rest omitempty.
_ALWAYS: Final = ("plural", "kind")


def _names(raw: Any) -> Obj:
    """Names as Go holds them: empty strings and lists are the same as absent."""
    return {k: v for k, v in (raw if isinstance(raw, dict) else {}).items() if v not in ("", [], None)}


def _condition(crd: Obj, kind: str) -> Obj | None:
    for c in (crd.get("status") or {}).get("conditions") or ():
        if isinstance(c, dict) and c.get("type") == kind:
            return c
    return None


def _is_true(crd: Obj, kind: str) -> bool:
    c = _condition(crd, kind)
    return c is not None and c.get("status") == "True"


def _equivalent(a: Obj, b: Obj | None) -> bool:
    """``IsCRDConditionEquivalent``: type, status, reason and message."""
    return b is not None and all(a.get(k) == b.get(k) for k in ("type", "status", "reason", "message"))


def _group_of(name: str) -> str:
    return name.split(".", 1)[1] if "." in name else ""


class _StatusWriter:
    """What both controllers share: the CRD informer, a queue and the status write."""

    def __init__(self, ctx: ComponentContext, queue_name: str) -> None:
        self._ctx = ctx
        self._queue = WorkQueue(ctx.clock, self._sync, name=queue_name)
        self._crds: SharedInformer | None = None

    def start(self) -> None:
        """Watch CRDs; queue every one there is."""
        self._crds = self._ctx.informers.informer(*_CRD)
        self._crds.add_handler(self._on_crd)
        for crd in self._crds.items():
            self._queue.add(crd["metadata"]["name"])

    def _on_crd(self, ev: ObjectEvent) -> None:
        self._queue.add(ev.obj["metadata"]["name"])

    def _sync(self, name: str) -> None:
        raise NotImplementedError

    def _write(self, crd: Obj, conditions: list[Obj], names: Obj | None = None) -> bool:
        """``UpdateStatus`` with ``conditions`` set (``SetCRDCondition``); False when the
        CRD was deleted or changed meanwhile (its next event queues it again)."""
        out = copy.deepcopy(crd)
        status = out.setdefault("status", {})
        if names is not None:
            status["acceptedNames"] = names
        now = rfc3339(self._ctx.clock.now())
        for cond in conditions:
            set_condition(status, cond, now)
        try:
            self._ctx.server.update_status(out)
        except (NotFound, Conflict):
            return False
        return True


class NamingConditionController(_StatusWriter):
    """``NamingConditionController``: accepted names and the NamesAccepted condition."""

    name: Final = "crd_naming_condition_controller"

    def __init__(self, ctx: ComponentContext) -> None:
        super().__init__(ctx, "crd_naming_condition_controller")

    def _on_crd(self, ev: ObjectEvent) -> None:
        self._queue.add(ev.obj["metadata"]["name"])
        if ev.type == "DELETED":  # its names are free now
            self._requeue_group(ev.obj["metadata"]["name"])

    def _requeue_group(self, name: str) -> None:
        """``requeueAllOtherGroupCRDs``."""
        assert self._crds is not None
        group = _group_of(name)
        for crd in self._crds.items():
            other = crd["metadata"]["name"]
            if other != name and (crd.get("spec") or {}).get("group") == group:
                self._queue.add(other)

    def _used(self, group: str) -> tuple[set[str], set[str]]:
        """``getAcceptedNamesForGroup``: resource names and kinds accepted in ``group``."""
        assert self._crds is not None
        resources: set[str] = set()
        kinds: set[str] = set()
        for crd in self._crds.items():
            if (crd.get("spec") or {}).get("group") != group:
                continue
            acc = (crd.get("status") or {}).get("acceptedNames") or {}
            resources |= {str(acc.get("plural") or ""), str(acc.get("singular") or "")}
            resources |= {str(s) for s in acc.get("shortNames") or ()}
            kinds |= {str(acc.get("kind") or ""), str(acc.get("listKind") or "")}
        return resources, kinds

    def calculate(self, crd: Obj) -> tuple[Obj, Obj, Obj]:
        """``calculateNamesAndConditions``: the accepted names, NamesAccepted, Established."""
        spec = crd.get("spec") or {}
        resources, kinds = self._used(str(spec.get("group") or ""))
        requested = spec.get("names") or {}
        accepted = (crd.get("status") or {}).get("acceptedNames") or {}
        names = dict(accepted)
        cond: Obj = {"type": NAMES_ACCEPTED, "status": "Unknown"}

        def fresh(field: str, used: set[str], reason: str) -> None:
            want, have = str(requested.get(field) or ""), str(accepted.get(field) or "")
            if want != have and want in used:
                cond.update(status="False", reason=reason, message=f'"{want}" is already in use')
            else:
                names[field] = want

        fresh("plural", resources, "PluralConflict")
        fresh("singular", resources, "SingularConflict")
        want_short = [str(s) for s in requested.get("shortNames") or ()]
        have_short = [str(s) for s in accepted.get("shortNames") or ()]
        if want_short != have_short:
            taken = [s for s in want_short if s not in have_short and s in resources]
            if taken:  # utilerrors.NewAggregate: one message, or a bracketed list
                msgs = [f'"{s}" is already in use' for s in taken]
                msg = msgs[0] if len(msgs) == 1 else f"[{', '.join(msgs)}]"
                cond.update(status="False", reason="ShortNamesConflict", message=msg)
            else:
                names["shortNames"] = want_short
        fresh("kind", kinds, "KindConflict")
        fresh("listKind", kinds, "ListKindConflict")
        names["categories"] = list(requested.get("categories") or ())
        if cond["status"] == "Unknown":
            cond.update(status="True", reason="NoConflicts", message="no conflicts found")
        established = _condition(crd, ESTABLISHED) or {
            "type": ESTABLISHED, "status": "False", "reason": "NotAccepted",
            "message": "not all names are accepted",
        }  # fmt: skip
        if established.get("status") != "True" and cond["status"] == "True":
            established = {
                "type": ESTABLISHED, "status": "False", "reason": "Installing",
                "message": "the initial names have been accepted",
            }  # fmt: skip
        out = {k: v for k, v in names.items() if k in _ALWAYS or v not in ("", [], None)}
        return out, cond, {k: established[k] for k in ("type", "status", "reason", "message") if k in established}

    def _sync(self, name: str) -> None:
        assert self._crds is not None
        crd = self._crds.get(name)
        if crd is None:  # deleted: it freed its names
            self._requeue_group(name)
            return
        status = crd.get("status") or {}
        if _names((crd.get("spec") or {}).get("names")) == _names(status.get("acceptedNames")):
            return
        names, cond, established = self.calculate(crd)
        if _names(status.get("acceptedNames")) == _names(names) and _equivalent(
            cond, _condition(crd, NAMES_ACCEPTED)
        ):
            return
        if self._write(crd, [cond, established], names):
            self._requeue_group(name)  # it may have released a name


class EstablishingController(_StatusWriter):
    """``EstablishingController``: Established once the names are accepted."""

    name: Final = "crd_establishing_controller"

    def __init__(self, ctx: ComponentContext) -> None:
        super().__init__(ctx, "crdEstablishing")

    def _sync(self, name: str) -> None:
        assert self._crds is not None
        crd = self._crds.get(name)
        if crd is None or not _is_true(crd, NAMES_ACCEPTED) or _is_true(crd, ESTABLISHED):
            return
        hook = ((crd.get("spec") or {}).get("conversion") or {}).get("webhook") or {}
        bundle = str((hook.get("clientConfig") or {}).get("caBundle") or "")
        if bundle and ca_bundle_errors(bundle):
            cond = {"type": ESTABLISHED, "status": "False", "reason": "InvalidCABundle",
                    "message": "The conversion webhook CABundle is invalid"}  # fmt: skip
        else:
            cond = {"type": ESTABLISHED, "status": "True", "reason": "InitialNamesAccepted",
                    "message": "the initial names have been accepted"}  # fmt: skip
        self._write(crd, [cond])


def start_crd_controllers(ctx: ComponentContext) -> list[_StatusWriter | CRDFinalizer]:
    """Start them, as the apiextensions apiserver does beside kube-apiserver."""
    out: list[_StatusWriter | CRDFinalizer] = [
        NamingConditionController(ctx), EstablishingController(ctx), CRDFinalizer(ctx)
    ]
    for c in out:
        c.start()
    return out
