"""The `parley` command: the command line of `app.cli.main`, with the window as what `parley` alone does."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from app.cli.main import main as command_line
from app.cli.main import welcome
from app.config.settings import Settings

NO_DISPLAY = (
    "Parley's window needs a desktop session (no DISPLAY or WAYLAND_DISPLAY is set); "
    "on the command line, try `parley listen` or `parley chats --help`."
)


def has_display() -> bool:
    """Whether a window can open. Without a display Qt aborts the process, so ask first."""
    if sys.platform in ("darwin", "win32"):
        return True
    return any(os.environ.get(name) for name in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"))


def window(settings: Settings, *, hidden: bool = False) -> int:
    if not has_display():
        print(NO_DISPLAY)
        return welcome(settings)
    from ui.app import run_window  # Qt loads only when a window is wanted

    return run_window(settings, hidden=hidden)


def main(argv: Sequence[str] | None = None) -> int:
    return command_line(argv, default=window)


if __name__ == "__main__":
    sys.exit(main())
