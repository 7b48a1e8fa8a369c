"""The merchant portal's framework: what every portal page of every app wears (docs/portal.md).

- `portal_view`: a portal page. Signed in as a portal user (else the sign-in page), the
  session's idle timer restarted (PORTAL_SESSION_SECONDS), `request.merchant` and
  `request.portal_user` set; a user still on a one-time password is sent to the password page.
- `portal_view(roles=...)`: a page only some roles reach (403 for the others).
- `page_methods`: the page answers its methods only (405 with `Allow` otherwise), before the
  CSRF check and before the sign-in redirect; its forms are still CSRF-protected.
- `list_page` paginates a query into a template; `list_operations` documents such a page in
  the OpenAPI document.

Core holds no business data: the app that keeps portal users (merchants) registers, when it is
ready, how a signed-in user's membership is found (`register_member_finder`): from the user's
id to the membership (the merchant the user sees, whether a one-time password must still be
changed), or None for anyone else (bank staff too), who gets 404. The sign-in and password
pages are that app's; `LOGIN` and `PASSWORD` are their URL names in the portal's namespace.
"""

from collections.abc import Callable
from functools import wraps
from typing import Any, Protocol

from django.conf import settings
from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBase, HttpResponseNotAllowed
from django.shortcuts import redirect, render
from django.urls import reverse_lazy
from django.views.decorators.csrf import csrf_exempt, csrf_protect

LOGIN, PASSWORD = "portal:login", "portal:password"


class Member(Protocol):
    """A signed-in user's portal membership (merchants.PortalUser)."""

    @property
    def merchant(self) -> Any: ...

    @property
    def must_change_password(self) -> bool: ...

    @property
    def role(self) -> str: ...


MemberFinder = Callable[[int], Member | None]
_finders: list[MemberFinder] = []


def register_member_finder(finder: MemberFinder) -> None:
    """Called by the app that keeps portal users, when it is ready."""
    if finder not in _finders:
        _finders.append(finder)


def portal_member(request: HttpRequest) -> Member:
    """The signed-in user's membership, with its merchant (404 for anyone else)."""
    user_id = getattr(request.user, "pk", None) or 0
    for finder in _finders:
        member = finder(user_id)
        if member is not None:
            return member
    raise Http404("not a portal user")


def portal_view(
    view: Callable[..., HttpResponseBase] | None = None,
    *,
    password_page: bool = False,
    roles: tuple[str, ...] = (),
) -> Any:
    """A portal page (see the module's note). `password_page`: the page where a user on a
    one-time password chooses one, the only page such a user reaches. `roles`: only members of
    these roles reach it (403 for the others); every role when empty. As `@portal_view` or
    `@portal_view(roles=...)`."""
    if view is None:
        return lambda page: portal_view(page, password_page=password_page, roles=roles)

    @wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        if not request.user.is_authenticated:
            return redirect(f"{reverse_lazy(LOGIN)}?next={request.path}")
        member = portal_member(request)
        request.merchant = member.merchant  # type: ignore[attr-defined]
        request.portal_user = member  # type: ignore[attr-defined]
        request.session.set_expiry(settings.PORTAL_SESSION_SECONDS)
        if member.must_change_password and not password_page:
            messages.info(request, "You signed in with a one-time password: choose your own.")
            return redirect(PASSWORD)
        if roles and member.role not in roles:
            raise PermissionDenied("your role does not allow this page")
        return view(request, *args, **kwargs)

    return wrapped


def page_methods(*methods: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """A portal page answers `methods` only, others 405 with `Allow`, before the CSRF check (a
    QUERY or TRACE is no form to protect) and before the sign-in redirect; its forms are still
    CSRF-protected."""

    def decorate(view: Callable[..., Any]) -> Callable[..., Any]:
        protected = csrf_protect(view)

        @csrf_exempt
        @wraps(view)
        def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
            if request.method not in methods:
                return HttpResponseNotAllowed(methods)
            return protected(request, *args, **kwargs)  # type: ignore[no-any-return]

        return wrapped

    return decorate


def list_operations(operation_id: str, summary: str, what: str) -> Any:
    """The OpenAPI operations of a portal list page (GET, `page` in the query)."""

    def operations() -> dict[str, dict[str, Any]]:
        # The schema's helpers when the schema is made (they bring drf-spectacular): the
        # framework is also loaded by processes that serve no page (merchants' ready()).
        from .schema.pages import html, portal_page

        parameters = [
            {"name": "page", "in": "query", "required": False, "schema": {"type": "string"}}
        ]
        return {
            "get": portal_page(operation_id, summary, {"200": html(what)}, parameters=parameters)
        }

    return operations


def list_page(
    request: HttpRequest,
    queryset: Any,
    template: str,
    title: str,
    per_page: int = 50,
    extra: dict[str, Any] | None = None,
) -> HttpResponse:
    page = Paginator(queryset, per_page).get_page(request.GET.get("page"))
    return render(request, template, {"title": title, "page": page, **(extra or {})})
