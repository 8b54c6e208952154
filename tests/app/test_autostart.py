"""`parley autostart on|off|status` and Parley in the application menu: the freedesktop.org files written,
checked by Debian's `desktop-file-validate`, and removed again."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from app.config.desktop_entry import DesktopPaths, desktop_entry, install_menu_entry, parley_command
from tests.app.conftest import Parley


def validate(entry: Path) -> None:
    checked = subprocess.run(["desktop-file-validate", str(entry)], capture_output=True, text=True, check=False)
    assert (checked.returncode, checked.stdout + checked.stderr) == (0, ""), entry.read_text()


def test_on_starts_parley_hidden_at_login_and_off_removes_it(parley: Parley) -> None:
    paths = DesktopPaths.of_user()
    code, out = parley("autostart", "on")
    login = paths.autostart / "parley.desktop"
    assert code == 0 and str(login) in out
    validate(login)
    assert f"Exec={' '.join(parley_command())} --hidden\n" in login.read_text()
    # It is in the menu too, with its icon in the user's icon theme.
    validate(paths.applications / "parley.desktop")
    assert (paths.icons / "parley.svg").read_bytes().startswith(b"<?xml")
    assert parley("autostart", "status") == (0, out)
    code, out = parley("autostart", "off")
    assert (code, out) == (0, "Parley does not start when you log in.\n")
    assert not login.exists()
    assert (paths.applications / "parley.desktop").exists()  # still in the menu


@pytest.mark.parametrize(
    ("command", "exec_line"),
    [
        (["/opt/my apps/parley"], 'Exec="/opt/my apps/parley" --hidden'),
        (["/usr/bin/python3", "-m", "ui.launcher"], "Exec=/usr/bin/python3 -m ui.launcher --hidden"),
        (["/x/100%/parley"], "Exec=/x/100%%/parley --hidden"),
    ],
)
def test_the_exec_line_survives_spaces_and_percent_signs(tmp_path: Path, command: list[str], exec_line: str) -> None:
    entry = tmp_path / "parley.desktop"
    entry.write_text(desktop_entry(command, at_login=True), encoding="utf-8")
    validate(entry)
    assert exec_line in entry.read_text().splitlines()


def test_the_menu_entry_is_written_once_and_refreshed_when_parley_moves() -> None:
    paths = DesktopPaths.of_user(os.environ)
    assert install_menu_entry(paths, ["/old/parley"])
    assert not install_menu_entry(paths, ["/old/parley"])  # already as it should be: untouched
    assert install_menu_entry(paths, ["/new/parley"])
    assert "Exec=/new/parley\n" in (paths.applications / "parley.desktop").read_text()
