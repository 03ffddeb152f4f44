"""Same-origin checks for the pages' forms (target C16): Fetch metadata, Origin, a token.

Three tests, any one failing refuses the POST with 403:

1. ``Sec-Fetch-Site``, when the browser sends it, must say ``same-origin``
   (or ``none``: typed by the user);
2. ``Origin``, when it names an origin, must be this request's own
   (scheme and host). Every response carries ``Referrer-Policy: no-referrer``,
   and with it browsers send ``Origin: null`` on same-origin form posts, so
   ``null`` is not proof of anything and the third test decides;
3. for the feedback form, a random token in a ``SameSite=Strict`` cookie must
   equal the form's ``csrf`` field (double submit), compared in constant time.
"""

from __future__ import annotations

import hmac
import secrets

from starlette.requests import Request
from starlette.responses import Response

CSRF_COOKIE = "errkb_csrf"
_SAFE_SITES = ("same-origin", "none")


def cross_origin(request: Request) -> bool:
    """True when the browser says this POST came from another site (tests 1 and 2)."""
    site = request.headers.get("sec-fetch-site")
    if site is not None and site not in _SAFE_SITES:
        return True
    origin = request.headers.get("origin")
    if origin is None or origin == "null":
        return False
    own = f"{request.url.scheme}://{request.headers.get('host', '')}"
    return origin.rstrip("/").lower() != own.lower()


def csrf_token(request: Request) -> str:
    """The token of this browser: the cookie's, or a new one the response must set."""
    given = request.cookies.get(CSRF_COOKIE, "")
    return given if 20 <= len(given) <= 64 and given.isascii() else secrets.token_urlsafe(24)


def set_csrf_cookie(request: Request, response: Response, token: str) -> None:
    """Set (or refresh) the token cookie; ``Secure`` when the page came over HTTPS."""
    secure = request.url.scheme == "https"
    response.set_cookie(
        CSRF_COOKIE, token, httponly=True, samesite="strict", secure=secure, path="/"
    )


def token_matches(request: Request, field: str | None) -> bool:
    """Test 3: the form's token equals the cookie's."""
    cookie = request.cookies.get(CSRF_COOKIE)
    if not cookie or not field:
        return False
    return hmac.compare_digest(cookie.encode(), field.encode())
