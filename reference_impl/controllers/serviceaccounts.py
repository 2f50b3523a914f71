"""Models pkg/controller/serviceaccount/serviceaccounts_controller.go: the
``serviceaccount-controller`` of kube-controller-manager.

Every Active namespace has the ServiceAccounts to ensure (just ``default``, as
``DefaultServiceAccountsControllerOptions`` has it; ``service_accounts`` sets others): a
namespace is synced when it is added or updated and when one of its service accounts is
deleted, and a missing account is created. A namespace that is not Active (Terminating) is left alone; a create the
apiserver refuses because the namespace is being terminated, or because the account
exists already, is not an error; other refusals do not stop the remaining accounts
(``syncNamespace`` aggregates them) and the namespace is retried.
"""

from __future__ import annotations

from typing import Any, Final

from reference_impl.apiserver.component import ComponentContext
from reference_impl.apiserver.informers import SharedInformer, WorkQueue, object_key
from reference_impl.apiserver.server import ObjectEvent
from reference_impl.apiserver.workqueue_rate import default_controller_rate_limiter
from reference_impl.errors import AlreadyExists, ApiError, Forbidden, NotFound

__all__ = ["SERVICE_ACCOUNTS_TO_ENSURE", "ServiceAccountsController", "terminating"]

Obj = dict[str, Any]
SERVICE_ACCOUNTS_TO_ENSURE: Final = ("default",)


def terminating(exc: Forbidden) -> bool:
    """Whether a create was refused because its namespace is being terminated
    (``apierrors.HasStatusCause(err, v1.NamespaceTerminatingCause)``)."""
    return "because it is being terminated" in str(exc)


class ServiceAccountsController:
    """Creates the ``default`` ServiceAccount in every Active namespace."""

    name: Final = "serviceaccount-controller"

    def __init__(
        self, ctx: ComponentContext, service_accounts: tuple[str, ...] = SERVICE_ACCOUNTS_TO_ENSURE
    ) -> None:
        self._ctx = ctx
        self.service_accounts = service_accounts  # ServiceAccountsControllerOptions
        self._queue = WorkQueue(ctx.clock, self._sync, name="serviceaccount",
                                rate_limiter=default_controller_rate_limiter(ctx.clock.now))
        self._namespaces: SharedInformer | None = None
        self._accounts: SharedInformer | None = None

    def start(self) -> None:
        """Watch namespaces (add, update) and service accounts (delete); queue every
        namespace there is."""
        self._accounts = self._ctx.informers.informer("v1", "ServiceAccount")
        self._namespaces = self._ctx.informers.informer("v1", "Namespace")
        self._accounts.add_handler(self._on_account)
        self._namespaces.add_handler(self._on_namespace)
        for ns in self._namespaces.items():
            self._queue.add(object_key(ns))

    def _on_account(self, ev: ObjectEvent) -> None:
        if ev.type == "DELETED":
            self._queue.add(str(ev.obj["metadata"].get("namespace") or ""))

    def _on_namespace(self, ev: ObjectEvent) -> None:
        if ev.type != "DELETED":
            self._queue.add(object_key(ev.obj))

    def _sync(self, key: str) -> None:
        """``syncNamespace``."""
        assert self._namespaces is not None and self._accounts is not None
        ns = self._namespaces.get(key)
        if ns is None or (ns.get("status") or {}).get("phase") != "Active":
            return
        failures: list[ApiError] = []
        for name in self.service_accounts:
            if self._accounts.get(f"{key}/{name}") is not None:
                continue
            sa = {"apiVersion": "v1", "kind": "ServiceAccount",
                  "metadata": {"name": name, "namespace": key}}  # fmt: skip
            try:
                self._ctx.server.create(sa)
            except (AlreadyExists, NotFound):
                continue  # made meanwhile, or the namespace is gone
            except Forbidden as exc:
                if not terminating(exc):
                    failures.append(exc)  # e.g. a ResourceQuota on serviceaccounts
                continue
            except ApiError as exc:
                failures.append(exc)
                continue
            self._ctx.trace.record(self.name, "create", f"ServiceAccount/{key}/{name}")
        if failures:
            # The other accounts were still tried (upstream aggregates); the queue retries.
            raise failures[0]
