"""The `parley` command line."""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import signal
import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Protocol

from app.cli import (
    ask_command,
    autostart_command,
    chat_commands,
    doctor_command,
    key_commands,
    listen_command,
    memory_commands,
    setup_command,
    supabase_commands,
    sync_command,
    timer_commands,
    tools_command,
    wake_command,
)
from app.cli.command_runner import UsageError
from app.cli.logs import configure_logging
from app.cli.terminal import escaped_output
from app.config.config_file import SettingsError
from app.config.desktop_entry import HIDDEN_FLAG
from app.config.private_files import keep_private
from app.config.secrets import SecretsError
from app.config.setting_origins import setting_origins
from app.config.settings import Settings, load_settings
from app.config.settings_table import settings_in_force, settings_table
from chats.errors import ChatsError
from voice.errors import VoiceError

log = logging.getLogger("parley")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="parley", description="A hands-free voice assistant with persistent chats and long-term memory."
    )
    parser.add_argument("--data-dir", help="folder of the chat store and logs (also PARLEY_DATA_DIR)")
    parser.add_argument("--config", help="config file to read (also PARLEY_CONFIG)")
    parser.add_argument("--embedder", choices=["auto", "local", "openai", "gemini"], help="embedding model")
    parser.add_argument("--text-model", choices=["auto", "offline", "gemini"], help="summaries and titles")
    parser.add_argument("--log-level", choices=["DEBUG", "INFO", "WARNING", "ERROR"], help="log detail")
    parser.add_argument(HIDDEN_FLAG, action="store_true", help="open the window hidden in the tray (as at login)")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    chat_commands.add_parser(commands)
    memory_commands.add_parser(commands)
    key_commands.add_parser(commands)
    listen_command.add_parser(commands)
    ask_command.add_parser(commands)
    doctor_command.add_parser(commands)
    supabase_commands.add_parser(commands)
    sync_command.add_parser(commands)
    wake_command.add_parser(commands)
    setup_command.add_parser(commands)
    autostart_command.add_parser(commands)
    tools_command.add_parser(commands)
    timer_commands.add_parser(commands)
    config = commands.add_parser("config", help="show the settings in force and where each can be set")
    config.set_defaults(handler=show_config)
    return parser


def show_config(settings: Settings, args: argparse.Namespace) -> int:
    """The value in force of every setting and where it comes from (keys only as set or not), then where
    each can be set."""
    print(f"config file: {settings.config_file}")
    print(f"data folder: {settings.data_dir}")
    print(f"embedder:    {settings.effective_embedder}  text model: {settings.effective_text_model}")
    print()
    for row in settings_in_force(settings, setting_origins(_overrides(args))):
        print(f"  {row.setting:24} {row.value:40} {row.origin}")
    print()
    print("where each is set (a command-line option, else the environment, else the config file, else the default):")
    for ref in settings_table():
        print(f"  {ref.setting:24} env {ref.env_var:32} config {ref.config_key:24} default {ref.default}")
    return 0


class Opening(Protocol):
    """What `parley` alone does: the window (started by the `ui` package), else `welcome`. `hidden`: in the
    tray only, as at login (`--hidden`)."""

    def __call__(self, settings: Settings, *, hidden: bool) -> int: ...


def welcome(settings: Settings, *, hidden: bool = False) -> int:
    """`parley` with no command, where no window can open: where the chats are, and what to try."""
    return asyncio.run(chat_commands.welcome(settings))


SIGPIPE_EXIT = 128 + 13
"""The exit status of a command whose reader went away, as a shell reports one ended by SIGPIPE (13; a
literal, since Windows' `signal` has no SIGPIPE)."""


def main(argv: Sequence[str] | None = None, *, default: Opening = welcome) -> int:
    """Run one command; with none, `default` (the window, when the `ui` package starts Parley)."""
    try:
        try:
            with escaped_output():
                return _command(argv, default)
        finally:
            sys.stdout.flush()  # here, not at exit: a reader gone is met where it can still be handled
    except BrokenPipeError:
        # `parley chats list | head`: the reader has what it wanted. Quietly stop; what is left unwritten goes
        # nowhere, so the interpreter's last flush at exit meets no closed pipe either.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return SIGPIPE_EXIT


def _overrides(args: argparse.Namespace) -> dict[str, str | None]:
    """The settings given on the command line (None: not given)."""
    return {
        "data_dir": args.data_dir,
        "config_file": args.config,
        "embedder": args.embedder,
        "text_model": args.text_model,
        "log_level": args.log_level,
    }


def _command(argv: Sequence[str] | None, default: Opening) -> int:
    args = build_parser().parse_args(argv)
    try:
        settings = load_settings(_overrides(args))
        keep_private(settings.data_dir)  # before the first file in it is written: the log's
        configure_logging(settings, stderr_level=args.log_level or "WARNING")
        handler = getattr(args, "handler", None)
        if handler is None:
            settings.api_keys.read_all()  # the window refuses a key it cannot use before it opens
            return default(settings, hidden=args.hidden)
        with _terminated_as_interrupted():
            result: int = handler(settings, args)
        return result
    except (ChatsError, VoiceError, SettingsError, SecretsError, UsageError) as error:
        print(f"parley: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


@contextmanager
def _terminated_as_interrupted() -> Iterator[None]:
    """SIGTERM ends a command as Ctrl-C does (`KeyboardInterrupt`), so that what it started is stopped on
    the way out (an MCP server that ignores its stdin closing is killed) instead of left behind by the
    default action, which ends Parley at once. Only the main thread may set a signal's handler: a command run
    on another (as tests do) keeps the one in place."""

    def interrupt(_number: int, _frame: object) -> None:
        raise KeyboardInterrupt

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, before)


if __name__ == "__main__":
    sys.exit(main())
