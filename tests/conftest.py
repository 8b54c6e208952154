import os
from collections.abc import Iterator

import pytest

pytest_plugins = [
    "tests.fakes.openai_server",
    "tests.fakes.gemini_server",
    "tests.fakes.gemini_live_server",
    # The local Supabase project (Postgres with pgvector, GoTrue and PostgREST doubles), started once per run.
    "tests.fakes.supabase_stack",
]


@pytest.fixture(autouse=True)
def _same_umask_for_every_test() -> Iterator[None]:
    """`parley` commands run in the test process make its umask private (`app.private_files`): each test
    starts from the umask the run started with, whatever ran before it."""
    umask = os.umask(0o022)
    os.umask(umask)
    yield
    os.umask(umask)
