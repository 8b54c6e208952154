"""An answer drawn from the web shows its sources under it in the window, as links a click opens in the
browser; the saved chat keeps them. Through the voice loop, the real google-genai client and the fake Live
server sending `groundingMetadata` as the service does."""

from __future__ import annotations

import functools
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from uuid import uuid4

import pytest
from PySide6.QtCore import QObject, QPoint, Qt, QUrl, Slot
from PySide6.QtGui import QDesktopServices, QTextCursor
from PySide6.QtTest import QTest
from pytestqt.qtbot import QtBot

from app.config.settings import Settings
from app.runtime import Runtime
from app.wiring import open_chat_services
from chats.models import Chat, Source, Turn
from tests.fakes.gemini_live_scenario import AfterAudio, CompleteTurn, InputTranscript, OutputTranscript, SearchedWeb
from tests.fakes.gemini_live_scenario import script as live_script
from tests.fakes.gemini_live_server import FakeGeminiLiveServer
from tests.ui.conftest import TIMEOUT_MS
from ui.bridge import ChatBridge
from ui.chat.transcript import TranscriptView
from ui.main_window import MainWindow
from ui.voice.window_voice import WindowVoice
from voice.audio.chunks import MODEL_VOICE_FORMAT
from voice.audio.null_sink import NullSink
from voice.audio.wav import WavFileSource

ASSETS = Path(__file__).resolve().parents[2] / "assets" / "audio"
BBC = Source("bbc.co.uk", "https://vertexaisearch.cloud.google.com/grounding-api-redirect/AbC1")
METEO = Source("ilmeteo.it", "https://vertexaisearch.cloud.google.com/grounding-api-redirect/XyZ2")


class Browser(QObject):
    """Where `QDesktopServices.openUrl` sends http(s) links during a test: it records them."""

    def __init__(self) -> None:
        super().__init__()
        self.opened: list[str] = []

    @Slot(QUrl)
    def open(self, url: QUrl) -> None:
        self.opened.append(url.toString())


@pytest.fixture
def browser() -> Iterator[Browser]:
    handler = Browser()
    for scheme in ("http", "https"):
        # The stubs say bytes; PySide6 6.12 takes only a str (a method name) here.
        QDesktopServices.setUrlHandler(scheme, handler, "open")  # type: ignore[arg-type]
    yield handler
    for scheme in ("http", "https"):
        QDesktopServices.unsetUrlHandler(scheme)


def click_text(view: TranscriptView, text: str) -> None:
    """A left click on the middle of `text` where the transcript shows it."""
    QTest.qWaitForWindowExposed(view)
    found = view.document().find(text)
    assert not found.isNull(), text
    middle = QTextCursor(found)
    middle.setPosition((found.selectionStart() + found.selectionEnd()) // 2)
    point: QPoint = view.cursorRect(middle).center()
    QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, point)


def test_a_grounded_answer_shows_its_sources_which_open_in_the_browser_and_are_saved(
    qtbot: QtBot, runtime: Runtime, voice_settings: Settings, live_server: FakeGeminiLiveServer, browser: Browser
) -> None:
    answer = (
        InputTranscript("What's the weather like in Rome tomorrow?"),
        OutputTranscript("Sunny and warm, "),
        SearchedWeb(((BBC.title, BBC.uri),), queries=("weather Rome tomorrow",), supported="Sunny and warm"),
        OutputTranscript("24 degrees."),
        SearchedWeb(((BBC.title, BBC.uri), (METEO.title, METEO.uri)), supported="Sunny and warm, 24 degrees."),
        CompleteTurn(),
    )
    live_server.script(live_script((AfterAudio(16_000), answer)))
    bridge = ChatBridge(runtime, functools.partial(open_chat_services, voice_settings))
    main = MainWindow(bridge)
    qtbot.addWidget(main)
    main.show()  # clicked on below
    bridge.open()
    states: list[str] = []
    bridge.state_changed.connect(states.append)
    voice = WindowVoice(
        bridge,
        runtime,
        voice_settings,
        lambda: (WavFileSource(ASSETS / "wake_weather.wav", realtime=False), NullSink(MODEL_VOICE_FORMAT)),
    )
    voice.start()
    transcript = main.transcript
    qtbot.waitUntil(lambda: "Sources: bbc.co.uk · ilmeteo.it" in transcript.toPlainText(), timeout=TIMEOUT_MS)
    text = transcript.toPlainText()
    assert text.index("Sunny and warm, 24 degrees.") < text.index("Sources: bbc.co.uk · ilmeteo.it")
    assert "Searched Google: weather Rome tomorrow" in text
    assert (live_server.connections[0]).searches_google

    click_text(transcript, "ilmeteo.it")
    qtbot.waitUntil(lambda: browser.opened == [METEO.uri], timeout=TIMEOUT_MS)
    click_text(transcript, "weather Rome tomorrow")  # the search, on Google's results page
    google = "https://www.google.com/search?q=weather+Rome+tomorrow"
    qtbot.waitUntil(lambda: browser.opened == [METEO.uri, google], timeout=TIMEOUT_MS)

    qtbot.waitUntil(lambda: "sleeping" in states, timeout=TIMEOUT_MS)  # idle: the conversation is saved

    def saved() -> bool:
        chat = transcript.chat
        answer = chat.full_history[-1] if chat is not None and chat.full_history else None
        return answer is not None and (answer.sources, answer.searches) == ((BBC, METEO), ("weather Rome tomorrow",))

    qtbot.waitUntil(saved, timeout=TIMEOUT_MS)  # the chat as the store gives it back after the save
    assert "Sources: bbc.co.uk · ilmeteo.it" in transcript.toPlainText()


def test_only_web_links_are_shown_and_titles_are_text(qtbot: QtBot, browser: Browser) -> None:
    view = TranscriptView()
    qtbot.addWidget(view)
    view.show()
    now = datetime(2026, 3, 1, 9, 30, tzinfo=UTC)
    sources = (Source("<b>bold</b> & co", "https://example.org/a?b=1&c=2"), Source("run me", "file:///etc/passwd"))
    answer = Turn(role="model", text="Here.", sources=sources)
    view.show_chat(Chat(uuid4(), "local", None, "Links", (answer,), (answer,), None, now, now, 1))
    assert "Sources: <b>bold</b> & co" in view.toPlainText()
    assert "run me" not in view.toPlainText()
    assert 'href="https://example.org/a?b=1&amp;c=2"' in view.toHtml()
    assert "file:" not in view.toHtml()
    click_text(view, "bold")
    qtbot.waitUntil(lambda: browser.opened == ["https://example.org/a?b=1&c=2"], timeout=TIMEOUT_MS)
