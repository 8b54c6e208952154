"""The suite's fixtures: the app tests' (`parley` and the environments of `ask`) and the window tests' (an
offscreen Qt, a runtime, a store), shared rather than copied; and `user`, who runs `parley` and checks what
every hostile case must keep."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.app.conftest import Parley, environment, model_cache, offline, parley
from tests.hostile.around import Around, raw_controls
from tests.ui.conftest import bridge, live_server, runtime, settings
from tests.voice.offline.conftest import model_folders

SHARED = (bridge, environment, live_server, model_cache, model_folders, offline, parley, runtime, settings)
"""Imported to be this folder's fixtures too (named here so that no checker calls them unused)."""


class User(Parley):
    """`parley` run as the user runs it, each time checking that nothing it printed acts on the terminal."""

    def __call__(self, *args: str) -> tuple[int, str]:
        code, out = super().__call__(*args)
        assert raw_controls(out + self.err) == [], (args, out, self.err)
        return code, out

    def refused(self, *args: str, line: str, around: tuple[Path, ...] = ()) -> None:
        """`parley *args` ends with code 1 and one `line` on standard error, and changes nothing: neither the
        store, the config, the files beside them, nor the paths `around`."""
        places = (self.data_dir.parent, *around)
        before = Around.of(*places)
        assert self(*args) == (1, ""), self.err
        assert self.err == f"parley: {line}\n"
        before.unchanged(*places)

    def looked_at(self, *args: str) -> str:
        """What `parley *args` printed; it succeeded and changed nothing around."""
        before = Around.of(self.data_dir.parent)
        code, out = self(*args)
        assert code == 0, (args, self.err)
        before.unchanged(self.data_dir.parent)
        return out


@pytest.fixture
def user(parley: Parley, capsys: pytest.CaptureFixture[str]) -> User:
    return User(parley.data_dir, capsys)
