"""Fixtures shared by the app tests."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.cli.main import main
from tests.app import MemoryKeyring, using_keyring
from tests.fakes.gemini_live_server import IDLE_SECONDS, FakeGeminiLiveServer
from tests.voice.offline.models import prepared_models, xdg_cache


@pytest.fixture
def environment(
    tmp_path: Path, gemini_live_server: FakeGeminiLiveServer, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Path]:
    """Parley configured for the fake Live server (its CA trusted through PARLEY_CA_FILE), on a temporary
    data folder, with an in-memory keyring and a short idle time (`IDLE_SECONDS`)."""
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
        "PARLEY_IDLE_SECONDS": IDLE_SECONDS,
        # The Live fake serves no embeddings, and these tests are about the voice: local vectors, as
        # before a Gemini key chose Gemini's (tests/chats/test_gemini_embedder.py covers those).
        "PARLEY_EMBEDDER": "local",
    }.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with using_keyring(MemoryKeyring()):
        yield tmp_path


@pytest.fixture
def config(tmp_path: Path) -> Path:
    """An empty config file in a temporary folder; the settings tests write into it."""
    path = tmp_path / "config" / "config.toml"
    path.parent.mkdir()
    path.write_text("", encoding="utf-8")
    return path


@pytest.fixture
def memory_keyring() -> Iterator[MemoryKeyring]:
    """An empty in-memory keyring: the real one is never read."""
    with using_keyring(MemoryKeyring()) as backend:
        assert isinstance(backend, MemoryKeyring)
        yield backend


@pytest.fixture(scope="session")
def model_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The offline models prepared once per test session, where the app looks for them (XDG cache)."""
    prepared_models(tmp_path_factory)
    return xdg_cache(tmp_path_factory)


@pytest.fixture
def offline(tmp_path: Path, model_cache: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Parley with no key at all (so the offline voice), on a temporary data folder, with a short idle time."""
    config = tmp_path / "config.toml"
    config.write_text("", encoding="utf-8")
    for name, value in {
        "PARLEY_CONFIG": str(config),
        "PARLEY_DATA_DIR": str(tmp_path / "data"),
        "XDG_CACHE_HOME": str(model_cache),
        "PARLEY_IDLE_SECONDS": "1",
    }.items():
        monkeypatch.setenv(name, value)
    for name in ("GEMINI_API_KEY", "GOOGLE_API_KEY", "OPENAI_API_KEY", "PARLEY_VOICE_MODEL", "PARLEY_EMBEDDER"):
        monkeypatch.delenv(name, raising=False)
    with using_keyring(MemoryKeyring()):
        yield tmp_path


class Parley:
    """Runs `parley` in this process on an isolated data folder and config file."""

    def __init__(self, data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
        self.data_dir = data_dir
        self._capsys = capsys
        self.err = ""

    def __call__(self, *args: str) -> tuple[int, str]:
        self._capsys.readouterr()
        code = main(["--data-dir", str(self.data_dir), *args])
        captured = self._capsys.readouterr()
        self.err = captured.err
        return code, captured.out

    def json(self, *args: str) -> Any:
        code, out = self(*args, "--json")
        assert code == 0, self.err
        return json.loads(out)

    def write(self, name: str, data: object) -> str:
        path = self.data_dir.parent / name
        path.write_text(json.dumps(data), encoding="utf-8")
        return str(path)


@pytest.fixture
def parley(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Iterator[Parley]:
    config = tmp_path / "config.toml"
    config.write_text("", encoding="utf-8")
    monkeypatch.setenv("PARLEY_CONFIG", str(config))
    for name in ("GEMINI_API_KEY", "GOOGLE_API_KEY", "OPENAI_API_KEY", "PARLEY_DATA_DIR", "PARLEY_EMBEDDER"):
        monkeypatch.delenv(name, raising=False)
    with using_keyring(MemoryKeyring()):
        yield Parley(tmp_path / "data", capsys)
