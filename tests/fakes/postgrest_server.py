"""A stand-in for PostgREST that runs each call's SQL on a real Postgres as the caller.

It serves `POST /rest/v1/rpc/<function>` the way PostgREST does: the `apikey` header must be there;
the bearer token (the anon key, or a user's access token) must be an HS256 JWT signed with the
project's secret and not expired (`PGRST301`, `PGRST303`, HTTP 401); the JSON body's keys name the
function's arguments, which are read with `json_to_record` under the function's own argument types
(so a vector may come as a JSON array or as pgvector's text); a set-returning function answers a JSON
array of its rows, any other its value as JSON.

Each call is one transaction that first does what PostgREST does:
`SET LOCAL ROLE <the token's role>` and `set_config('request.jwt.claims', <the verified claims>, true)`,
so `auth.uid()` and row level security decide what the call sees. The connection logs in as
`authenticator`, which may become `anon` or `authenticated` and nothing else.

Errors come back as PostgREST shapes them: `{"code", "message", "details", "hint"}`, with the HTTP status
of PostgREST's table for the SQLSTATE. `fail_next` scripts a failure (e.g. 503) for outage tests, and
every call is recorded.
"""

from __future__ import annotations

import json
import queue
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import jwt
import psycopg
from psycopg import sql

from tests.fakes.supabase_http import Reply, Request, json_reply

ROLES = ("anon", "authenticated")
"""The roles a token may name (what `authenticator` is granted)."""
POOL_SIZE = 12


@dataclass(frozen=True, slots=True)
class RecordedCall:
    function: str
    role: str | None
    """The role the call ran as; None when it was refused before reaching the database."""
    subject: str | None
    """The token's `sub` (the user id), if any."""
    token: str | None
    status: int


@dataclass(frozen=True, slots=True)
class _Function:
    arguments: dict[str, str]
    """Input argument name -> its SQL type, in declaration order."""
    required: frozenset[str]
    """Arguments without a default."""
    returns_set: bool


def status_of(sqlstate: str, *, authenticated: bool) -> int:
    """PostgREST's HTTP status for a SQLSTATE (its documented table, the rows that can happen here)."""
    exact = {
        "23503": 409,
        "23505": 409,
        "25006": 405,
        "42883": 404,
        "42P01": 404,
        "42P17": 500,
        "53400": 500,
        "P0001": 400,
    }
    if sqlstate == "42501":
        return 403 if authenticated else 401
    if sqlstate in exact:
        return exact[sqlstate]
    if sqlstate.startswith("PT") and sqlstate[2:].isdigit():
        return int(sqlstate[2:])
    by_class = {
        "08": 503,
        "09": 500,
        "0L": 403,
        "0P": 403,
        "25": 500,
        "28": 403,
        "2D": 500,
        "38": 500,
        "39": 500,
        "3B": 500,
        "40": 500,
        "53": 503,
        "54": 500,
        "55": 500,
        "57": 500,
        "58": 500,
        "F0": 500,
        "HV": 500,
        "P0": 500,
        "XX": 500,
    }
    return by_class.get(sqlstate[:2], 400)


class PostgrestDouble:
    def __init__(self, authenticator_conninfo: str, jwt_secret: str) -> None:
        self._conninfo = authenticator_conninfo
        self._secret = jwt_secret
        self._pool: queue.LifoQueue[psycopg.Connection[Any]] = queue.LifoQueue()
        self._opened = 0
        self._lock = threading.Lock()
        self._failures: list[tuple[int, dict[str, Any]]] = []
        self.calls: list[RecordedCall] = []

    def fail_next(self, status: int, code: str = "PGRST000", message: str = "Database client error") -> None:
        """Answer the next call with this error instead of running it (503 PGRST000: the database is down)."""
        with self._lock:
            self._failures.append((status, {"code": code, "message": message, "details": None, "hint": None}))

    def close(self) -> None:
        while not self._pool.empty():
            self._pool.get_nowait().close()

    def handle(self, request: Request) -> Reply:
        function = request.path.removeprefix("/rest/v1/rpc/")
        if request.method != "POST" or not request.path.startswith("/rest/v1/rpc/") or "/" in function:
            return self._refuse(function, None, 404, "PGRST125", "Invalid path specified in request URL")
        if request.header("apikey") is None:
            # Supabase's gateway, before PostgREST.
            return json_reply(401, {"message": "No API key found in request", "hint": None})
        token = request.bearer_token()
        try:
            claims = dict(jwt.decode(token or "", self._secret, algorithms=["HS256"], options={"verify_aud": False}))
        except jwt.ExpiredSignatureError:
            return self._refuse(function, token, 401, "PGRST303", "JWT expired")
        except jwt.PyJWTError as error:
            return self._refuse(function, token, 401, "PGRST301", f"JWSError {type(error).__name__}")
        role = claims.get("role")
        if role not in ROLES:
            return self._refuse(function, token, 401, "PGRST301", f"role {role!r} is not allowed")
        with self._lock:
            failure = self._failures.pop(0) if self._failures else None
        if failure is not None:
            return self._record(function, role, claims, token, json_reply(failure[0], failure[1]))
        try:
            arguments = json.loads(request.body or b"{}")
        except json.JSONDecodeError:
            return self._refuse(function, token, 400, "PGRST102", "Empty or invalid json")
        if not isinstance(arguments, dict):
            return self._refuse(function, token, 400, "PGRST102", "The body must be a JSON object")
        return self._record(function, role, claims, token, self._call(function, arguments, role, claims))

    def _call(self, function: str, arguments: dict[str, Any], role: str, claims: dict[str, Any]) -> Reply:
        try:
            with self._connection() as db:
                signature = _lookup(db, function)
                if signature is None or not (signature.required <= arguments.keys() <= signature.arguments.keys()):
                    names = ", ".join(sorted(arguments))
                    return json_reply(
                        404,
                        {
                            "code": "PGRST202",
                            "message": f"Could not find the function public.{function}({names}) in the schema cache",
                            "details": None,
                            "hint": None,
                        },
                    )
                with db.transaction():
                    db.execute(sql.SQL("SET LOCAL ROLE {}").format(sql.Identifier(role)))
                    db.execute("SELECT set_config('request.jwt.claims', %s, true)", (json.dumps(claims),))
                    query, parameters = _call_query(function, signature, arguments)
                    row = db.execute(query, parameters).fetchone()
        except psycopg.OperationalError as error:
            return json_reply(503, {"code": "PGRST000", "message": str(error), "details": None, "hint": None})
        except psycopg.Error as error:
            state = error.sqlstate or "XX000"
            return json_reply(
                status_of(state, authenticated=role == "authenticated"),
                {
                    "code": state,
                    "message": error.diag.message_primary or str(error),
                    "details": error.diag.message_detail,
                    "hint": error.diag.message_hint,
                },
            )
        text = row[0] if row else "null"
        return Reply(200, (text or "null").encode(), {"Content-Type": "application/json; charset=utf-8"})

    @contextmanager
    def _connection(self) -> Iterator[psycopg.Connection[Any]]:
        try:
            db = self._pool.get_nowait()
        except queue.Empty:
            with self._lock:
                self._opened += 1
                wait = self._opened > POOL_SIZE
            if wait:
                db = self._pool.get(timeout=30)
            else:
                try:
                    db = psycopg.connect(
                        self._conninfo, autocommit=True, options="-c timezone=UTC -c search_path=public,extensions"
                    )
                except BaseException:
                    with self._lock:
                        self._opened -= 1
                    raise
        broken = False
        try:
            yield db
        except psycopg.OperationalError:
            broken = True
            raise
        finally:
            if broken or db.closed:
                db.close()
                with self._lock:
                    self._opened -= 1
            else:
                self._pool.put(db)

    def _refuse(self, function: str, token: str | None, status: int, code: str, message: str) -> Reply:
        reply = json_reply(status, {"code": code, "message": message, "details": None, "hint": None})
        with self._lock:
            self.calls.append(RecordedCall(function, None, None, token, status))
        return reply

    def _record(self, function: str, role: str, claims: dict[str, Any], token: str | None, reply: Reply) -> Reply:
        with self._lock:
            self.calls.append(RecordedCall(function, role, claims.get("sub"), token, reply.status))
        return reply


def _lookup(db: psycopg.Connection[Any], function: str) -> _Function | None:
    """The exposed function's input arguments, as PostgREST's schema cache knows them."""
    row = db.execute(
        """
        SELECT p.proretset, p.pronargdefaults,
               coalesce(array(SELECT format_type(t, NULL) FROM unnest(p.proargtypes) AS t), '{}'),
               coalesce(p.proargnames, '{}'), coalesce(p.proargmodes::text[], '{}')
        FROM pg_proc AS p
        WHERE p.pronamespace = 'public'::regnamespace AND p.proname = %s
        """,
        (function,),
    ).fetchone()
    if row is None:
        return None
    returns_set, defaults, types, names, modes = row
    # proargnames lists every argument (OUT ones too); proargtypes only the input ones.
    input_names = [name for i, name in enumerate(names) if not modes or modes[i] in ("i", "b")]
    arguments = dict(zip(input_names, types, strict=True))
    required = frozenset(input_names[: len(input_names) - defaults])
    return _Function(arguments, required, returns_set)


def _call_query(function: str, signature: _Function, arguments: dict[str, Any]) -> tuple[sql.Composed, tuple[Any, ...]]:
    """PostgREST's shape of the call: `json_to_record` types the arguments, named notation passes them."""
    given = [name for name in signature.arguments if name in arguments]
    call = sql.SQL("public.{}({})").format(
        sql.Identifier(function),
        sql.SQL(", ").join(sql.SQL("{0} := _args.{0}").format(sql.Identifier(name)) for name in given),
    )
    source = sql.SQL("json_to_record(%s::json) AS _args ({})").format(
        sql.SQL(", ").join(
            sql.SQL("{} {}").format(sql.Identifier(name), sql.SQL(signature.arguments[name])) for name in given
        )
    )
    parameters: tuple[Any, ...] = (json.dumps(arguments),) if given else ()
    if signature.returns_set:
        rows = (
            sql.SQL("FROM {} CROSS JOIN LATERAL {} AS _row").format(source, call)
            if given
            else sql.SQL("FROM {} AS _row").format(call)
        )
        return sql.SQL("SELECT coalesce(json_agg(_row), '[]')::text {}").format(rows), parameters
    if given:
        return sql.SQL("SELECT to_json({})::text FROM {}").format(call, source), parameters
    return sql.SQL("SELECT to_json({})::text").format(call), parameters
