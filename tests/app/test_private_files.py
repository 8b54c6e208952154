"""The data folder is the user's alone: 0700, its files 0600, from the first command on."""

from __future__ import annotations

import stat
from pathlib import Path

from tests.app.conftest import Parley


def modes(folder: Path) -> dict[str, int]:
    """Each path under `folder` (and itself, as "."), with its permission bits."""
    found = {".": stat.S_IMODE(folder.stat().st_mode)}
    for path in folder.rglob("*"):
        found[str(path.relative_to(folder))] = stat.S_IMODE(path.stat().st_mode)
    return found


def test_what_parley_writes_is_readable_by_its_user_only(parley: Parley) -> None:
    chat_id = parley.json("chats", "new", "--title", "Kitchen")["id"]
    assert parley("memories", "add", "User's kitchen tiles are white zellige.")[0] == 0
    assert parley("chats", "show", chat_id)[0] == 0
    found = modes(parley.data_dir)
    assert {"chats.sqlite3", "logs/parley.log"} <= found.keys()
    for name, mode in found.items():
        expected = 0o700 if (parley.data_dir / name).is_dir() else 0o600
        assert mode == expected, f"{name} is {mode:o}"


def test_a_data_folder_left_open_by_an_older_parley_is_made_private(parley: Parley) -> None:
    logs = parley.data_dir / "logs"
    logs.mkdir(parents=True)
    old = logs / "parley.log.1"
    old.write_text("an older log\n", encoding="utf-8")
    parley.data_dir.chmod(0o755)
    logs.chmod(0o775)
    old.chmod(0o644)
    assert parley("chats", "list")[0] == 0
    assert modes(parley.data_dir)["."] == 0o700
    assert (modes(parley.data_dir)["logs"], modes(parley.data_dir)["logs/parley.log.1"]) == (0o700, 0o600)


def test_a_data_folder_that_cannot_be_made_is_one_line(parley: Parley, tmp_path: Path) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("", encoding="utf-8")
    code, _ = parley("--data-dir", str(blocked / "data"), "chats", "list")
    assert code == 1
    folder = blocked / "data"
    hint = "choose another with PARLEY_DATA_DIR or --data-dir"
    assert parley.err == f"parley: cannot use the data folder {folder}: Not a directory; {hint}\n"
