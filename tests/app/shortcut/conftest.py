"""Fixtures of the shortcut tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.app.shortcut.x_session import virtual_display


@pytest.fixture
def x_display() -> Iterator[str]:
    """A virtual X session of its own (Xvfb), by display name."""
    with virtual_display() as name:
        yield name
