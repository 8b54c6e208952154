"""A stand-in for Supabase Auth (GoTrue), for the real `supabase` client to sign in against.

It serves what the client sends for email and password sign-in:
`POST /auth/v1/token?grant_type=password`, `POST /auth/v1/token?grant_type=refresh_token` (refresh tokens
rotate: each is good once), `POST /auth/v1/signup` (auto-confirmed), `GET /auth/v1/user` and
`POST /auth/v1/logout`. Access tokens are HS256 JWTs with Supabase's claims (`sub`, `role`,
`aud: authenticated`, `exp`, `session_id`, ...), signed with the secret the PostgREST double checks.

Users live where GoTrue keeps them, in `auth.users` of the same database, so the chats tables' foreign
keys to it hold. Error bodies follow API version 2024-01-01 (`{"code": ..., "message": ...}`).
"""

from __future__ import annotations

import hashlib
import json
import secrets
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import jwt
import psycopg

from tests.fakes.supabase_http import Reply, Request, json_reply

API_VERSION = {"X-Supabase-Api-Version": "2024-01-01"}


@dataclass(frozen=True, slots=True)
class IssuedToken:
    user_id: str
    session_id: str
    grant: str
    """`password`, `refresh_token` or `signup`."""
    access_token: str


@dataclass(slots=True)
class _RefreshToken:
    user_id: str
    session_id: str
    used: bool = False


def anon_key(secret: str, *, now: float | None = None) -> str:
    """A project's anon key: a long-lived JWT with role `anon`."""
    issued = int(now if now is not None else time.time())
    return jwt.encode(
        {"iss": "supabase", "ref": "parley-test", "role": "anon", "iat": issued, "exp": issued + 10 * 365 * 86400},
        secret,
        algorithm="HS256",
    )


def _password_hash(password: str, salt: bytes) -> str:
    # A test double: few iterations keep sign-in fast; real GoTrue uses bcrypt.
    return salt.hex() + "$" + hashlib.pbkdf2_hmac("sha256", password.encode(), salt, 1000).hex()


class GoTrueDouble:
    def __init__(
        self,
        admin_conninfo: str,
        jwt_secret: str,
        issuer: str,
        *,
        access_token_seconds: int = 3600,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._conninfo = admin_conninfo
        self._secret = jwt_secret
        self._issuer = issuer
        self.access_token_seconds = access_token_seconds
        """Lifetime of the access tokens issued from now on; a test shortens it to make the client refresh."""
        self._clock = clock
        self._lock = threading.Lock()
        self._refresh_tokens: dict[str, _RefreshToken] = {}
        self.issued: list[IssuedToken] = []
        """Every access token issued, oldest first."""

    # The test's side: users and sessions as data.

    def add_user(self, email: str, password: str) -> str:
        """Create a confirmed user; return their id."""
        user_id = str(uuid.uuid4())
        with psycopg.connect(self._conninfo, autocommit=True) as db:
            db.execute(
                "INSERT INTO auth.users (id, email, encrypted_password, email_confirmed_at) VALUES (%s, %s, %s, now())",
                (user_id, email.lower(), _password_hash(password, secrets.token_bytes(8))),
            )
        return user_id

    def revoke_sessions(self, user_id: str) -> None:
        """What signing out everywhere does: every refresh token of the user stops working."""
        with self._lock:
            for token in self._refresh_tokens.values():
                if token.user_id == user_id:
                    token.used = True

    def forge_access_token(self, user_id: str, *, expires_in: int = 3600, secret: str | None = None) -> str:
        """An access token as this server would issue it, or signed with another `secret` (forged), or
        with a negative `expires_in` (expired)."""
        return self._access_token(user_id, str(uuid.uuid4()), expires_in, secret or self._secret)

    # The client's side.

    def handle(self, request: Request) -> Reply:
        route = (request.method, request.path.removeprefix("/auth/v1"))
        try:
            body = json.loads(request.body or b"{}")
        except json.JSONDecodeError:
            return _error(400, "bad_json", "Could not parse request body as JSON")
        if route == ("POST", "/token"):
            grant = request.query.get("grant_type")
            if grant == "password":
                return self._password_grant(body)
            if grant == "refresh_token":
                return self._refresh_grant(body)
            return _error(400, "validation_failed", "unsupported_grant_type")
        if route == ("POST", "/signup"):
            return self._sign_up(body)
        if route == ("GET", "/user"):
            return self._user_of(request)
        if route == ("POST", "/logout"):
            return self._logout(request)
        return _error(404, "not_found", "no such endpoint")

    def _password_grant(self, body: dict[str, Any]) -> Reply:
        user = self._find_user(str(body.get("email", "")))
        if user is None or _password_hash(str(body.get("password", "")), bytes.fromhex(user["salt"])) != user["hash"]:
            return _error(400, "invalid_credentials", "Invalid login credentials")
        return json_reply(200, self._new_session(user, str(uuid.uuid4()), "password"), API_VERSION)

    def _refresh_grant(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            held = self._refresh_tokens.get(str(body.get("refresh_token", "")))
            if held is None or held.used:
                return _error(400, "refresh_token_not_found", "Invalid Refresh Token: Refresh Token Not Found")
            held.used = True
        user = self._find_user_by_id(held.user_id)
        if user is None:
            return _error(403, "user_not_found", "User from sub claim in JWT does not exist")
        return json_reply(200, self._new_session(user, held.session_id, "refresh_token"), API_VERSION)

    def _sign_up(self, body: dict[str, Any]) -> Reply:
        email, password = str(body.get("email", "")), str(body.get("password", ""))
        if "@" not in email or len(password) < 6:
            return _error(422, "validation_failed", "An email and a password of at least 6 characters are needed")
        if self._find_user(email) is not None:
            return _error(422, "user_already_exists", "User already registered")
        self.add_user(email, password)
        user = self._find_user(email)
        assert user is not None
        return json_reply(200, self._new_session(user, str(uuid.uuid4()), "signup"), API_VERSION)

    def _user_of(self, request: Request) -> Reply:
        claims = self._claims(request)
        user = self._find_user_by_id(str(claims.get("sub"))) if claims else None
        if user is None:
            return _error(401, "bad_jwt", "invalid JWT")
        return json_reply(200, _user_json(user), API_VERSION)

    def _logout(self, request: Request) -> Reply:
        claims = self._claims(request)
        if claims is None:
            return _error(401, "bad_jwt", "invalid JWT")
        with self._lock:
            for token in self._refresh_tokens.values():
                this_session = token.session_id == claims.get("session_id")
                if token.user_id == claims.get("sub") and (this_session or request.query.get("scope") != "local"):
                    token.used = True
        return Reply(204, headers=API_VERSION)

    def _claims(self, request: Request) -> dict[str, Any] | None:
        token = request.bearer_token()
        try:
            return dict(jwt.decode(token or "", self._secret, algorithms=["HS256"], audience="authenticated"))
        except jwt.PyJWTError:
            return None

    def _new_session(self, user: dict[str, Any], session_id: str, grant: str) -> dict[str, Any]:
        lifetime = self.access_token_seconds
        access_token = self._access_token(user["id"], session_id, lifetime, self._secret)
        refresh_token = secrets.token_urlsafe(16)
        with self._lock:
            self._refresh_tokens[refresh_token] = _RefreshToken(user["id"], session_id)
            self.issued.append(IssuedToken(user["id"], session_id, grant, access_token))
        return {
            "access_token": access_token,
            "token_type": "bearer",
            "expires_in": lifetime,
            "expires_at": int(self._clock()) + lifetime,
            "refresh_token": refresh_token,
            "user": _user_json(user),
        }

    def _access_token(self, user_id: str, session_id: str, lifetime: int, secret: str) -> str:
        now = int(self._clock())
        user = self._find_user_by_id(user_id)
        claims = {
            "iss": self._issuer,
            "sub": user_id,
            "aud": "authenticated",
            "exp": now + lifetime,
            "iat": now,
            "email": user["email"] if user else "",
            "phone": "",
            "app_metadata": {"provider": "email", "providers": ["email"]},
            "user_metadata": {},
            "role": "authenticated",
            "aal": "aal1",
            "amr": [{"method": "password", "timestamp": now}],
            "session_id": session_id,
            "is_anonymous": False,
        }
        return jwt.encode(claims, secret, algorithm="HS256")

    def _find_user(self, email: str) -> dict[str, Any] | None:
        return self._select_user("lower(email) = lower(%s)", email)

    def _find_user_by_id(self, user_id: str) -> dict[str, Any] | None:
        try:
            uuid.UUID(user_id)
        except ValueError:
            return None
        return self._select_user("id = %s", user_id)

    def _select_user(self, condition: str, value: str) -> dict[str, Any] | None:
        with psycopg.connect(self._conninfo, autocommit=True) as db:
            row = db.execute(
                f"SELECT id::text, email, encrypted_password, created_at, email_confirmed_at FROM auth.users"
                f" WHERE {condition}",
                (value,),
            ).fetchone()
        if row is None:
            return None
        salt, _, _ = row[2].partition("$")
        return {
            "id": row[0],
            "email": row[1],
            "salt": salt,
            "hash": row[2],
            "created_at": row[3].isoformat(),
            "confirmed_at": row[4].isoformat() if row[4] else None,
        }


def _user_json(user: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": user["id"],
        "aud": "authenticated",
        "role": "authenticated",
        "email": user["email"],
        "email_confirmed_at": user["confirmed_at"],
        "confirmed_at": user["confirmed_at"],
        "phone": "",
        "app_metadata": {"provider": "email", "providers": ["email"]},
        "user_metadata": {},
        "identities": [],
        "created_at": user["created_at"],
        "updated_at": user["created_at"],
        "is_anonymous": False,
    }


def _error(status: int, code: str, message: str) -> Reply:
    return json_reply(status, {"code": code, "message": message}, API_VERSION)
