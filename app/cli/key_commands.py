"""`parley keys ...`: put API keys in the OS keyring, never in a file."""

from __future__ import annotations

import argparse
import getpass
import sys

from app.config.secrets import SECRET_NAMES, delete_secret, secret_source, set_secret
from app.config.settings import Settings


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    keys = commands.add_parser("keys", help="store API keys in the OS keyring")
    sub = keys.add_subparsers(dest="keys_command", metavar="ACTION", required=True)
    setter = sub.add_parser("set", help="store a key (read from the terminal, or one line of stdin)")
    setter.add_argument("name", choices=SECRET_NAMES)
    setter.set_defaults(handler=_set)
    remover = sub.add_parser("delete", help="remove a key from the keyring")
    remover.add_argument("name", choices=SECRET_NAMES)
    remover.set_defaults(handler=_delete)
    sub.add_parser("status", help="which keys are set, and where").set_defaults(handler=_status)


def _set(settings: Settings, args: argparse.Namespace) -> int:
    # A key typed on the command line would land in shell history; read it instead.
    try:
        value = getpass.getpass(f"{args.name} API key: ") if sys.stdin.isatty() else sys.stdin.readline()
    except EOFError:  # Ctrl-D at the prompt: no key given, as an empty line
        print(file=sys.stderr)  # end the prompt's line
        value = ""
    set_secret(args.name, value.strip())
    print(f"The {args.name} key is stored in the OS keyring.")
    return 0


def _delete(settings: Settings, args: argparse.Namespace) -> int:
    removed = delete_secret(args.name)
    print(f"The {args.name} key was {'removed from' if removed else 'not in'} the OS keyring.")
    return 0


def _status(settings: Settings, args: argparse.Namespace) -> int:
    for name in SECRET_NAMES:
        source = secret_source(name)
        print(f"{name:8} {'set in the ' + source if source else 'not set'}")
    return 0
