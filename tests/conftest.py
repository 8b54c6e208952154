import os
from collections.abc import Iterator

import pytest

pytest_plugins = [
    "tests.fakes.openai_server",
    "tests.fakes.gemini_server",
    "tests.fakes.live_tls",
    "tests.fakes.gemini_live_server",
    # The local Supabase project (Postgres with pgvector, GoTrue and PostgREST doubles), started once per run.
    "tests.fakes.supabase_stack",
]


@pytest.fixture(autouse=True)
def _same_umask_for_every_test() -> Iterator[None]:
    """`parley` commands run in the test process make its umask private (`app.config.private_files`): each test
    starts from the umask the run started with, whatever ran before it."""
    umask = os.umask(0o022)
    os.umask(umask)
    yield
    os.umask(umask)


@pytest.fixture(autouse=True)
def _desktop_folders_of_the_test(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """The window puts Parley in the application menu and `parley autostart` writes a login entry, and the
    services keep models ready in the model cache (the language detector's): into folders of the test (the
    cache shared by the session, as the offline models' is), never the home of whoever runs the suite."""
    home = tmp_path_factory.mktemp("desktop")
    monkeypatch.setenv("XDG_DATA_HOME", str(home / "share"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.getbasetemp() / "xdg-cache"))
