"""Parley on the desktop: its entry in the application menu, with its icon, and its start at login.

On Linux these are freedesktop.org files in the user's own folders: a desktop entry in
`$XDG_DATA_HOME/applications` (the menu), the icon in the hicolor theme under `$XDG_DATA_HOME/icons`, and a
copy of the entry in `$XDG_CONFIG_HOME/autostart` that starts Parley hidden in the tray at login (the XDG
Autostart specification, which GNOME, KDE, Xfce and the others follow). Nothing needs root, and turning
autostart off removes its file. Other systems have their own mechanisms (a LaunchAgent on macOS, the Run
key on Windows): not done, and `parley autostart` says so there.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

ENTRY_NAME = "parley.desktop"
ICON_NAME = "parley"
"""The icon's name in the icon theme, as the entry's `Icon` key gives it."""
HIDDEN_FLAG = "--hidden"
"""`parley --hidden`: the window starts in the tray, as at login."""
_RESERVED = set(" \t\n\"'\\><~|&;$*?#()`")
"""Characters that make an Exec argument need quotes (Desktop Entry Specification, "The Exec key")."""


class DesktopUnsupported(RuntimeError):
    """This system has no freedesktop.org menu or autostart."""


@dataclass(frozen=True, slots=True)
class DesktopPaths:
    applications: Path
    """Where the menu's entries are: `$XDG_DATA_HOME/applications`."""
    autostart: Path
    """Where login starts programs from: `$XDG_CONFIG_HOME/autostart`."""
    icons: Path
    """The user's scalable icons: `$XDG_DATA_HOME/icons/hicolor/scalable/apps`."""

    @classmethod
    def of_user(cls, environment: Mapping[str, str] = os.environ) -> DesktopPaths:
        if not sys.platform.startswith("linux"):
            raise DesktopUnsupported(
                f"starting at login and the application menu are done for Linux desktops only, not {sys.platform}"
            )
        home = Path(environment.get("HOME") or Path.home())
        data = Path(environment.get("XDG_DATA_HOME") or home / ".local" / "share")
        config = Path(environment.get("XDG_CONFIG_HOME") or home / ".config")
        return cls(data / "applications", config / "autostart", data / "icons" / "hicolor" / "scalable" / "apps")


def icon_file() -> Path:
    """Parley's icon (SVG), shipped in the package: the menu's, the window's and the tray's."""
    return Path(str(resources.files("app").joinpath("icons", f"{ICON_NAME}.svg")))


def parley_command() -> list[str]:
    """How to start this Parley: the `parley` script installed beside this interpreter, else the module."""
    script = Path(sys.executable).with_name("parley")
    if script.is_file() and os.access(script, os.X_OK):
        return [str(script)]
    found = shutil.which("parley")
    return [found] if found else [sys.executable, "-m", "ui.launcher"]


def desktop_entry(command: Sequence[str], *, at_login: bool = False) -> str:
    """The desktop entry starting `command`; `at_login`: the autostart copy, which starts it in the tray."""
    exec_line = " ".join(_exec_argument(argument) for argument in (*command, *([HIDDEN_FLAG] if at_login else [])))
    lines = [
        "[Desktop Entry]",
        "Type=Application",
        "Version=1.4",  # the newest Debian 12's desktop-file-validate knows; 1.5 adds nothing used here
        "Name=Parley",
        "GenericName=Voice assistant",
        "Comment=Talk hands-free; chats you can return to, and a memory of what matters to you",
        f"Exec={exec_line}",
        f"Icon={ICON_NAME}",
        "Terminal=false",
        "Categories=Utility;Accessibility;",
        "Keywords=voice;assistant;speech;chat;",
        "StartupNotify=false",
    ]
    if at_login:
        lines.append("X-GNOME-Autostart-enabled=true")
    return "\n".join(lines) + "\n"


def install_menu_entry(paths: DesktopPaths, command: Sequence[str]) -> bool:
    """Put Parley, with its icon, in the application menu; True when something was written (a menu entry
    already as it should be is left untouched)."""
    wrote = _write_if_changed(paths.icons / f"{ICON_NAME}.svg", icon_file().read_bytes())
    return _write_if_changed(paths.applications / ENTRY_NAME, desktop_entry(command).encode()) or wrote


def set_autostart(paths: DesktopPaths, command: Sequence[str], *, on: bool) -> None:
    """Start Parley in the tray at login, or no more (its file removed). On also puts it in the menu."""
    if on:
        install_menu_entry(paths, command)
        _write_if_changed(paths.autostart / ENTRY_NAME, desktop_entry(command, at_login=True).encode())
    else:
        (paths.autostart / ENTRY_NAME).unlink(missing_ok=True)


def autostart_is_on(paths: DesktopPaths) -> bool:
    return (paths.autostart / ENTRY_NAME).is_file()


def _exec_argument(argument: str) -> str:
    """One argument of an Exec key: quoted when it holds a reserved character, `%` doubled (a field code
    otherwise), and the backslash escaped twice: once for the quoting, once for the string value."""
    argument = argument.replace("%", "%%")
    if not _RESERVED.intersection(argument):
        return argument
    quoted = "".join(f"\\{c}" if c in '"`$\\' else c for c in argument)
    return '"' + quoted.replace("\\", "\\\\") + '"'


def _write_if_changed(path: Path, content: bytes) -> bool:
    if path.is_file() and path.read_bytes() == content:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.tmp")
    temporary.write_bytes(content)
    temporary.chmod(0o644)  # read by the desktop, which runs as the user: private is not needed here
    temporary.replace(path)
    return True
