"""Files written with `--out`: `--force` replaces a regular file only. A named pipe, a device or a socket is
refused in one line and left as it was; a symbolic link is written through to its file, never replaced."""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path

import pytest

from tests.hostile.around import Around
from tests.hostile.conftest import User


@pytest.mark.parametrize("what", ["chats", "memories"])
def test_force_replaces_only_a_regular_file_and_writes_through_a_link(user: User, what: str) -> None:
    user.json("chats", "new", "--title", "Groceries")
    folder = user.data_dir.parent
    pipe = folder / "pipe"
    os.mkfifo(pipe)
    with socket.socket(socket.AF_UNIX) as listening:
        listening.bind(str(folder / "socket"))
        for special, kind in ((pipe, "named pipe"), (Path("/dev/null"), "device"), (folder / "socket", "socket")):
            line = f"--out {special} is a {kind}, not a file: choose a file to write"
            user.refused(what, "export", "--out", str(special), "--force", line=line, around=(special,))
    target = folder / "notes.json"
    target.write_text("old\n", encoding="utf-8")
    link = folder / "latest.json"
    link.symlink_to(target)
    before = Around.of(link)
    assert user(what, "export", "--out", str(link), "--force")[0] == 0, user.err
    before.unchanged(link)  # still the same link
    assert json.loads(target.read_text(encoding="utf-8"))
