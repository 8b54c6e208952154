"""Fixtures of the shortcut tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.app.shortcut.x_session import SIZE
from tests.fakes.virtual_screen import virtual_screen


@pytest.fixture
def x_display() -> Iterator[str]:
    """A virtual X session of its own (Xvfb), by display name."""
    with virtual_screen(SIZE) as name:
        yield name
