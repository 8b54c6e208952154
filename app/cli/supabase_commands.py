"""`parley supabase ...`: set up the user's Supabase project, sign in and out, and say where things stand."""

from __future__ import annotations

import argparse
import asyncio
import getpass
import json
import sys
from typing import TYPE_CHECKING, Any

from app.cli.command_runner import UsageError
from app.config.config_file import SettingsError
from app.config.config_writer import save_config
from app.config.settings import Settings
from chats.errors import StoreUnavailable

# The Supabase and Postgres clients are imported when an action runs: they take most of a second to import,
# which every other `parley` command would pay.
if TYPE_CHECKING:
    from app.account.supabase_account import SupabaseProject


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    supabase = commands.add_parser("supabase", help="keep chats and memories in your own Supabase project")
    sub = supabase.add_subparsers(dest="supabase_command", metavar="ACTION", required=True)
    setup = sub.add_parser(
        "setup", help="choose the project (--url, --anon-key) and print its SQL migration, or apply it (--db-url)"
    )
    setup.add_argument("--url", help="the project's URL, https://<ref>.supabase.co")
    setup.add_argument("--anon-key", help="the project's anon (public) key; never the service-role key")
    setup.add_argument(
        "--db-url",
        metavar="URL",
        help="apply the migration with this Postgres connection string ('-': read it from stdin)",
    )
    setup.set_defaults(handler=_setup)
    signin = sub.add_parser("signin", help="sign in with email and password (the password is read, never an option)")
    signin.add_argument("--email", help="your email address (asked for when not given)")
    signin.set_defaults(handler=_signin)
    sub.add_parser("signout", help="end the session and forget it").set_defaults(handler=_signout)
    status = sub.add_parser("status", help="the project, who is signed in, and its schema")
    status.add_argument("--json", action="store_true", help="print JSON instead of text")
    status.set_defaults(handler=_status)


def _setup(settings: Settings, args: argparse.Namespace) -> int:
    from app.account.supabase_account import SIGN_IN
    from chats.supabase.database import apply_migrations
    from chats.supabase.migrations import SCHEMA_VERSION, migration_script

    if args.url is not None or args.anon_key is not None:
        if not (args.url and args.anon_key):
            raise UsageError("give both --url and --anon-key")
        save_config(
            settings.config_file,
            {"storage": "supabase", "supabase_url": args.url.strip(), "supabase_anon_key": args.anon_key.strip()},
        )
        print(
            f"Parley keeps chats in {args.url.strip()} from now on (saved in {settings.config_file}).", file=sys.stderr
        )
    if args.db_url is None:
        sys.stdout.write(migration_script())
        print(
            "Run this SQL in the project's SQL editor, or give its connection string: "
            "parley supabase setup --db-url - (then paste it)",
            file=sys.stderr,
        )
    else:
        db_url = sys.stdin.readline().strip() if args.db_url == "-" else args.db_url
        applied = apply_migrations(db_url)
        done = ", ".join(migration.name for migration in applied)
        print(f"Applied {done}." if applied else "Nothing to apply.", end=" ")
        print(f"The project has Parley schema {SCHEMA_VERSION}.")
    if args.url is not None:
        print(f"Next: `{SIGN_IN}`.", file=sys.stderr)
    return 0


def _signin(settings: Settings, args: argparse.Namespace) -> int:
    from app.account.supabase_account import sign_in_and_check, supabase_project

    project = supabase_project(settings)
    interactive = sys.stdin.isatty()
    email = args.email or (input("Email: ") if interactive else "")
    if not email.strip():
        raise UsageError("give --email (or run it in a terminal to be asked)")
    # On the command line a password would land in shell history and `ps`; it is read instead.
    password = getpass.getpass("Password: ") if interactive else sys.stdin.readline().rstrip("\r\n")
    if not password:
        raise UsageError("no password was given; nothing changed")
    schema = asyncio.run(sign_in_and_check(project, email.strip(), password))
    print(f"Signed in to {project.url} as {email.strip()}; the session is kept in the OS keyring.")
    if schema is not None:
        print(f"But the project is not ready: {schema}", file=sys.stderr)
    return 0


def _signout(settings: Settings, args: argparse.Namespace) -> int:
    from app.account.supabase_account import supabase_project

    project = supabase_project(settings)
    print(asyncio.run(_sign_out(project)))
    return 0


async def _sign_out(project: SupabaseProject) -> str:
    """End the session on the server when it can be reached; forget it here in any case."""
    from app.account.supabase_account import resume
    from chats.supabase.errors import SignInRequired

    try:
        connection = await resume(project)
        try:
            await connection.sign_out()
        finally:
            await connection.close()
    except SignInRequired:
        await project.sessions.clear()  # a session Supabase refuses is of no use either
        return f"Not signed in to {project.url}."
    except StoreUnavailable:
        await project.sessions.clear()
        return f"Signed out on this computer; {project.url} could not be reached to end the session there."
    return f"Signed out of {project.url}."


def _status(settings: Settings, args: argparse.Namespace) -> int:
    from chats.supabase.migrations import SCHEMA_VERSION

    report = asyncio.run(_report(settings))
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"storage:   {report['storage']}")
    print(f"project:   {report['project'] or 'not set'}")
    if report["project"]:
        who = report["email"] or report["user_id"]
        print(f"signed in: {'as ' + who if report['signed_in'] else 'no'}")
        schema = report["schema_version"]
        print(f"schema:    {schema if schema is not None else 'unknown'} (Parley needs {SCHEMA_VERSION})")
    if report["problem"]:
        print(f"problem:   {report['problem']}")
    return 0


async def _report(settings: Settings) -> dict[str, Any]:
    from app.account.supabase_account import resume, supabase_project
    from chats.supabase.migrations import require_schema

    report: dict[str, Any] = {
        "storage": settings.storage,
        "project": settings.supabase_url,
        "signed_in": False,
        "email": None,
        "user_id": None,
        "schema_version": None,
        "problem": None,
    }
    try:
        project = supabase_project(settings)
        connection = await resume(project)
    except (SettingsError, StoreUnavailable) as error:
        report["problem"] = str(error)
        return report
    report |= {"signed_in": True, "email": connection.email, "user_id": connection.user_id}
    try:
        report["schema_version"] = await require_schema(connection.call)
    except StoreUnavailable as error:
        report["problem"] = str(error)
    finally:
        await connection.close()
    return report
