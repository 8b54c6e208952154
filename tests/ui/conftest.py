"""Fixtures of the window tests: an offscreen Qt, a runtime thread, a temporary store and a bridge on it."""

from __future__ import annotations

import asyncio
import functools
import os
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from app.config.settings import Settings, load_settings
from app.controller import ChatController
from app.runtime import Runtime
from app.wiring import open_chat_services
from tests.app import MemoryKeyring, using_keyring
from tests.fakes.fed_microphone import FedMicrophone
from tests.fakes.gemini_live_server import IDLE_SECONDS, FakeGeminiLiveServer
from tests.fakes.live_tls import make_live_tls
from ui.bridge import ChatBridge
from ui.main_window import MainWindow
from ui.voice.window_voice import WindowVoice
from voice.audio.chunks import MODEL_VOICE_FORMAT
from voice.audio.null_sink import NullSink

# Qt picks its platform when the QApplication is built (pytest-qt's `qapp` fixture), after this runs:
# no display here, and tests never pop windows up.
os.environ["QT_QPA_PLATFORM"] = "offscreen"

TIMEOUT_MS = 20_000
"""Generous: the first search loads the embedding model, on a 2-core machine."""


@pytest.fixture
def settings(tmp_path: Path) -> Iterator[Settings]:
    """Settings on a temporary data folder, an empty config file and an empty keyring: the local
    embedder and the offline text model, whatever the machine has configured. Voice is Gemini's (so,
    without a key, off): the window tests do not load the offline voice's models."""
    config = tmp_path / "config.toml"
    config.write_text('voice_model = "gemini"\n', encoding="utf-8")
    with using_keyring(MemoryKeyring()):
        yield load_settings({"data_dir": str(tmp_path / "data"), "config_file": str(config)}, env={})


Seed = Callable[[Callable[[ChatController], Awaitable[object]]], object]


@pytest.fixture
def seed(settings: Settings) -> Seed:
    """Run `fill(controller)` against the store, opened and closed around it, before the window opens it."""

    def run(fill: Callable[[ChatController], Awaitable[object]]) -> object:
        async def go() -> object:
            async with open_chat_services(settings) as services:
                return await fill(ChatController(services))

        return asyncio.run(go())

    return run


@pytest.fixture
def runtime(qtbot: QtBot) -> Iterator[Runtime]:
    """Depends on `qtbot` so that it stops before qtbot closes the widgets."""
    with Runtime() as running:
        yield running
    assert not running.thread.is_alive()


@pytest.fixture
def bridge(runtime: Runtime, settings: Settings) -> ChatBridge:
    """A bridge on the temporary store, not opened yet: tests seed first, then call `open()`."""
    return ChatBridge(runtime, functools.partial(open_chat_services, settings))


@pytest.fixture
def live_server() -> Iterator[FakeGeminiLiveServer]:
    """The fake Gemini Live server on a thread of its own: a Qt test holds the test's event loop."""
    with Runtime(name="fake-gemini-live") as server_thread:
        yield server_thread.enter(FakeGeminiLiveServer(make_live_tls())).result(timeout=30)


MakeSettings = Callable[[str], Settings]


@pytest.fixture
def parley(
    tmp_path: Path, live_server: FakeGeminiLiveServer, monkeypatch: pytest.MonkeyPatch
) -> Iterator[MakeSettings]:
    """Settings on the fake Live server from a config file's text, in an environment the Settings window
    reads too (it reloads what is saved), with an empty keyring."""
    ca_file = tmp_path / "ca.pem"
    ca_file.write_bytes(live_server.ca_pem)
    for name, value in {
        "GEMINI_API_KEY": live_server.api_key,
        "PARLEY_GEMINI_BASE_URL": live_server.base_url,
        "PARLEY_CA_FILE": str(ca_file),
        "PARLEY_EMBEDDER": "local",
    }.items():
        monkeypatch.setenv(name, value)
    for name in ("PARLEY_WAKE_THRESHOLD", "PARLEY_IDLE_SECONDS", "PARLEY_LANGUAGE", "PARLEY_INPUT_DEVICE"):
        monkeypatch.delenv(name, raising=False)

    def make(config: str) -> Settings:
        (tmp_path / "config.toml").write_text(config, encoding="utf-8")
        return load_settings({"data_dir": str(tmp_path / "data"), "config_file": str(tmp_path / "config.toml")})

    with using_keyring(MemoryKeyring()):
        yield make


def settings_on_live_server(tmp_path: Path, server: FakeGeminiLiveServer, env: dict[str, str]) -> Iterator[Settings]:
    """Settings on a temporary data folder that reach `server` (its CA trusted), plus `env`."""
    config = tmp_path / "config.toml"
    config.write_text("", encoding="utf-8")
    ca_file = tmp_path / "ca.pem"
    ca_file.write_bytes(server.ca_pem)
    # The Live fake serves no embeddings: local vectors, as before a Gemini key chose Gemini's.
    live = {"PARLEY_GEMINI_BASE_URL": server.base_url, "PARLEY_CA_FILE": str(ca_file), "PARLEY_EMBEDDER": "local"}
    with using_keyring(MemoryKeyring()):
        yield load_settings({"data_dir": str(tmp_path / "data"), "config_file": str(config)}, env=live | env)


@pytest.fixture
def voice_settings(tmp_path: Path, live_server: FakeGeminiLiveServer) -> Iterator[Settings]:
    """Settings on the fake Live server with its key, and a short idle wait (a test's own fixture overrides it)."""
    env = {"GEMINI_API_KEY": live_server.api_key, "PARLEY_IDLE_SECONDS": IDLE_SECONDS}
    yield from settings_on_live_server(tmp_path, live_server, env)


def open_voice_window(qtbot: QtBot, runtime: Runtime, settings: Settings) -> tuple[ChatBridge, MainWindow, WindowVoice]:
    """The window shown, its voice loop on a microphone that hears nothing (the tests type) with its controls,
    timers and confirmations bound; once the loop has chosen its chat. Keep the `WindowVoice`: the window's
    signals reach the loop through it."""
    bridge = ChatBridge(runtime, functools.partial(open_chat_services, settings))
    main = MainWindow(bridge)
    qtbot.addWidget(main)
    main.show()
    bridge.open()
    voice = WindowVoice(bridge, runtime, settings, lambda: (FedMicrophone(), NullSink(MODEL_VOICE_FORMAT)))
    voice.bind(main.voice)
    voice.bind_timers(main.timers, main.confirmations)
    voice.start()
    qtbot.waitUntil(lambda: bridge.current_chat_id is not None, timeout=TIMEOUT_MS)
    return bridge, main, voice
