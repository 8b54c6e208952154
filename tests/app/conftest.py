"""Fixtures shared by the app tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.app import MemoryKeyring, using_keyring
from tests.fakes.gemini_live_server import FakeGeminiLiveServer


@pytest.fixture
def environment(
    tmp_path: Path, gemini_live_server: FakeGeminiLiveServer, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Path]:
    """Parley configured for the fake Live server (its CA trusted through PARLEY_CA_FILE), on a temporary
    data folder, with an in-memory keyring and a short idle time."""
    config = tmp_path / "config.toml"
    config.write_text("", encoding="utf-8")
    ca_file = tmp_path / "ca.pem"
    ca_file.write_bytes(gemini_live_server.ca_pem)
    for name, value in {
        "PARLEY_CONFIG": str(config),
        "PARLEY_DATA_DIR": str(tmp_path / "data"),
        "GEMINI_API_KEY": gemini_live_server.api_key,
        "PARLEY_GEMINI_BASE_URL": gemini_live_server.base_url,
        "PARLEY_CA_FILE": str(ca_file),
        "PARLEY_IDLE_SECONDS": "0.3",
    }.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with using_keyring(MemoryKeyring()):
        yield tmp_path
