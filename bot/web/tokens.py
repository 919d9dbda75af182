"""Personal web links: a token that opens one seat of one game for one member, signed by the
server (HMAC-SHA256 with ``WEB_SECRET``).

A token carries the game, the role, the member, its expiry, the key version it was signed
under (``WEB_KEY_VERSION``: raising it revokes every link at once) and the member's
revocation count when it was made (``/game web revoke`` raises it: every link he holds stops
opening). The key is derived per version, so a token signed under an older version does not
verify even before its version is compared. Whether the member still holds the seat is the
page's own check (a seat handed to someone else closes the old holder's link).

Nothing here says why a token failed: the page answers 404 to all of them alike. The links
themselves (:func:`personal_link`, :func:`game_link`) are made here too, without the web
application, so that the Discord front end and the command line can hand them out.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bot.settings import Settings

SIGNATURE_BYTES = 16  # 128 bits of HMAC-SHA256: unforgeable, and a shorter link


@dataclass(frozen=True)
class Grant:
    """What a valid token opens."""

    game_pk: int
    role: str
    user_id: int
    expires: int  # Unix time
    key_version: int
    revoked: int  # the member's revocation count the token was made under


def _key(secret: bytes, key_version: int) -> bytes:
    return hmac.new(secret, f"alcazaba-web-link:v{key_version}".encode(), hashlib.sha256).digest()


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def sign(grant: Grant, secret: bytes) -> str:
    """The token of ``grant`` (URL-safe text)."""
    body = json.dumps([grant.game_pk, grant.role, grant.user_id, grant.expires, grant.key_version, grant.revoked],
                      separators=(",", ":")).encode()
    mac = hmac.new(_key(secret, grant.key_version), body, hashlib.sha256).digest()[:SIGNATURE_BYTES]
    return f"{grant.key_version}.{_b64(body)}.{_b64(mac)}"


def verify(token: str, secret: bytes, key_version: int, now: float | None = None) -> Grant | None:
    """The grant of a well-signed, current token, or None (bad form, bad signature, another
    key version, expired): the caller still checks the revocation count and the seat."""
    try:
        version_text, body_text, mac_text = token.split(".")
        version = int(version_text)
        if version != key_version or len(token) > 400:
            return None
        body, mac = _unb64(body_text), _unb64(mac_text)
        expected = hmac.new(_key(secret, version), body, hashlib.sha256).digest()[:SIGNATURE_BYTES]
        if not hmac.compare_digest(mac, expected):
            return None
        game_pk, role, user_id, expires, signed_version, revoked = json.loads(body)
        grant = Grant(int(game_pk), str(role), int(user_id), int(expires), int(signed_version), int(revoked))
    except (ValueError, TypeError, json.JSONDecodeError):
        return None
    if grant.key_version != key_version or grant.expires <= (time.time() if now is None else now):
        return None
    return grant


def personal_link(settings: Settings, game_pk: int, role: str, user_id: int, revoked: int,
                  now: datetime | None = None) -> str | None:
    """A member's signed link to his seat's page (None without ``WEB_SECRET`` or ``WEB_BASE_URL``)."""
    if settings.web_secret is None or not settings.web_base_url:
        return None
    moment = now or datetime.now(UTC)
    expires = int((moment + timedelta(days=settings.web_link_days)).timestamp())
    grant = Grant(game_pk, role, user_id, expires, settings.web_key_version, revoked)
    token = sign(grant, settings.web_secret.get_secret_value().encode())
    return f"{settings.web_base_url.rstrip('/')}/p/{token}"


def game_link(settings: Settings, public_id: str) -> str | None:
    """A game's public address (None without ``WEB_BASE_URL``)."""
    if not settings.web_base_url:
        return None
    return f"{settings.web_base_url.rstrip('/')}/g/{public_id}"
