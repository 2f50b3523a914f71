"""DELETE on a collection (``deletecollection``), after apiserver
``pkg/endpoints/handlers/delete.go`` ``DeleteCollection`` and
``pkg/registry/generic/registry/store.go`` ``Store.DeleteCollection``.

The handler validates the DeleteOptions (``ValidateDeleteOptions``) and converts the
selectors; the store lists with them, page by page (``deleteCollectionPageSize``), and
deletes each listed item with the same options through ``Store.Delete`` (admission runs
per item, as a DELETE with the request's empty name), going on past NotFound and stopping
at the first other error (one worker: kube-apiserver's ``--delete-collection-workers``
default). The reply is the list as listed, not the items as the deletes left them.

Routes: a namespaced kind serves it only inside a namespace (installer.go registers no
all-namespaces DELETE; a CRD's handler passes that request on, a 404); namespaces'
REST (pkg/registry/core/namespace/storage) implements no ``DeleteCollection``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final

from reference_impl.apiserver import deletion, keys, list_options
from reference_impl.apiserver.customresource.info import CustomResourceInfo
from reference_impl.apiserver.delete_options import validate_delete_options
from reference_impl.apiserver.field_selectors import field_filter
from reference_impl.apiserver.warnings.delete import delete_warnings
from reference_impl.errors import MethodNotAllowed, NotFound

if TYPE_CHECKING:
    from reference_impl.apiserver.server import APIServer

__all__ = ["DELETE_COLLECTION_PAGE_SIZE", "delete_collection", "validate_delete_options"]

Obj = dict[str, Any]

# store.go's deleteCollectionPageSize (a var upstream's tests lower; so may ours).
DELETE_COLLECTION_PAGE_SIZE = 10_000
_NO_ROUTE: Final = "the server does not allow this method on the requested resource"


def _check_route(srv: APIServer, api_version: str, kind: str, namespace: str | None) -> None:
    """The routes installer.go (or the CRD handler) serves a deletecollection on."""
    info = srv.resource(api_version, kind)
    if info.virtual or (info.kind == "Namespace" and info.group == ""):
        raise MethodNotAllowed(_NO_ROUTE)
    if info.namespaced and not namespace:
        if isinstance(info, CustomResourceInfo):
            raise NotFound("the server could not find the requested resource")
        raise MethodNotAllowed(_NO_ROUTE)


def delete_collection(
    srv: APIServer,
    api_version: str,
    kind: str,
    namespace: str | None,
    label_selector: str,
    field_selector: str,
    propagation_policy: str | None,
    grace_period_seconds: int | None,
    limit: int = 0,
    warned: list[str] | None = None,
) -> Obj:
    """``APIServer.delete_collection`` (the dry-run flag is the server's): the
    ``<Kind>List`` of the items listed for deletion. ``warned`` collects the warnings:
    the route's and the Job REST's (``warnings.delete``), then each item's admission's."""
    _check_route(srv, api_version, kind, namespace)
    warned = [] if warned is None else warned
    warned += delete_warnings(api_version, kind, propagation_policy)
    info = srv.resource(api_version, kind)
    fields = field_filter(info, field_selector)  # the handler's Transform: BadRequest
    validate_delete_options(propagation_policy)
    ns = keys.namespace_for(info, namespace)
    has_limit = limit > 0
    opts = list_options.ListOptions(limit=limit if has_limit else DELETE_COLLECTION_PAGE_SIZE)
    first: Obj | None = None
    items: list[Obj] = []
    while True:
        page = srv.list_page(api_version, kind, ns, label_selector, fields, options=opts)
        listed: list[Obj] = page["items"]
        items += listed
        for item in listed:
            _delete_one(srv, api_version, kind, item, grace_period_seconds, propagation_policy,
                        warned.append)  # fmt: skip
        if has_limit:
            return page  # the one page asked for, its continue token kept
        first = first or page
        token = page["metadata"].get("continue")
        if not token:
            first["items"] = items
            return first
        opts = list_options.ListOptions(limit=opts.limit, continue_=token)


def _delete_one(
    srv: APIServer,
    api_version: str,
    kind: str,
    item: Obj,
    grace_period_seconds: int | None,
    propagation_policy: str | None,
    warn: Callable[[str], None],
) -> None:
    """``Store.Delete`` of one listed item; NotFound (gone meanwhile) is no error."""
    meta = item["metadata"]
    try:
        deletion.delete(srv, api_version, kind, str(meta["name"]), meta.get("namespace"),
                        grace_period_seconds, propagation_policy, None, warn,
                        request_name="")  # fmt: skip
    except NotFound:
        pass
