"""Looking at the screen (issue 36): `parley ask` end to end under a virtual X screen (Xvfb), the real
google-genai client against the fake Live server, the real tools, SQLite store and journal; the screenshot
portal's answers through a fake portal on a private D-Bus session bus; the status while Parley looks."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path
from typing import Any
from uuid import uuid4

import pytest
from PySide6.QtGui import QImage

from app.cli.main import main
from app.core.events import FrontEvent, StatusChanged
from app.core.status import VoiceStatus
from app.screen.grab import Look, take_screen
from app.screen.toolkit import LOOK_AT_SCREEN, ScreenKit
from languages.registry import table
from tests.fakes.gemini_live_record import pick
from tests.fakes.gemini_live_scenario import (
    AfterSpeech,
    AfterText,
    AfterToolResponse,
    AtOnce,
    Call,
    CallTools,
    Close,
    CompleteTurn,
    InputTranscript,
    NewHandle,
    OutputTranscript,
    script,
)
from tests.fakes.gemini_live_server import FakeGeminiLiveServer
from tests.fakes.screenshot_portal import FakeScreenshotPortal, private_bus
from tests.fakes.virtual_screen import virtual_screen

# Qt takes the first thread that makes one of its objects for its main thread. The picture's JPEG buffer is made
# on a worker thread (`take_screen`): made before the session's QApplication, it made that thread Qt's main
# thread, and a later window test's close event was then delivered late, so the tray could not refuse it
# (tests/ui/test_tray.py failed in every whole run). The application is made first, on the main thread.
pytestmark = pytest.mark.usefixtures("qapp")

ASSETS = Path(__file__).resolve().parents[2] / "assets" / "audio"
SCREEN = "1920x1080x24"
QUESTION = "What does the error on my screen mean?"
ANSWER = "It says the disk is full: free some space."
SAY = table("en")["screen"]
LOOK = Call("s-1", LOOK_AT_SCREEN.name)
LOOKED_AT = (
    (AfterText(), (CallTools((LOOK,)),)),
    (AfterToolResponse("s-1"), (OutputTranscript(ANSWER), CompleteTurn())),
)
"""The model calls the tool for the typed question, then answers once the tool has answered."""


@pytest.fixture
def display(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """An X11 session on a virtual screen, and no Wayland."""
    with virtual_screen(SCREEN) as display:
        monkeypatch.setenv("DISPLAY", display)
        monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
        yield display


@pytest.fixture
def no_display(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)


async def parley(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = await asyncio.to_thread(main, list(args))
    out, err = capsys.readouterr()
    return code, out, err


async def history(capsys: pytest.CaptureFixture[str], chat_id: str) -> list[dict[str, Any]]:
    code, out, err = await parley(capsys, "chats", "show", chat_id, "--json")
    assert code == 0, err
    turns: list[dict[str, Any]] = json.loads(out)["full_history"]
    return turns


def note_of(width: int, height: int, language: str = "en", what: str = "screen") -> re.Pattern[str]:
    """The chat's note of a look at the screen (or the active window: `what`), any minute of the day."""
    template = re.escape(table(language)["screen"]["note"][what])
    for name, value in (("time", r"\d\d:\d\d"), ("width", str(width)), ("height", str(height))):
        template = template.replace(re.escape("{" + name + "}"), value)
    return re.compile(template)


def size_of(jpeg: bytes) -> tuple[int, int]:
    image = QImage.fromData(jpeg, "JPG")  # type: ignore[arg-type]  # a str, as PySide6 takes it (not its stubs' bytes)
    assert not image.isNull(), "not a JPEG"
    return image.width(), image.height()


async def test_a_typed_question_about_the_screen_sends_one_picture_after_the_call_and_keeps_a_note(
    environment: Path, display: str, gemini_live_server: FakeGeminiLiveServer, capsys: pytest.CaptureFixture[str]
) -> None:
    gemini_live_server.script(script(*LOOKED_AT))
    code, out, err = await parley(capsys, "ask", QUESTION, "--json")
    assert code == 0, err
    answer = json.loads(out)
    assert answer["model"] == ANSWER
    sent = await gemini_live_server.connection(0)
    assert LOOK_AT_SCREEN.name in [declaration["name"] for declaration in sent.function_declarations]
    [picture] = sent.video
    assert sent.video_mime_types == ["image/jpeg"]
    assert size_of(picture) == (1280, 720)  # the 1920 x 1080 screen, its longest side cut to 1280
    [at] = sent.index_of("realtime_input", "video")
    assert sent.received_at[at] > sent.sent_at("toolCall")[0]  # after the model's call...
    assert at < sent.frame_kinds.index("tool_response")  # ...and before the tool's answer, which says it was sent
    [response] = sent.tool_responses
    assert pick(response, "response") == {
        "shown": True,
        "looked_at": "screen",  # no window manager in Xvfb: no active window
        "width": 1280,
        "height": 720,
        "jpeg_bytes": len(picture),
    }
    turns = await history(capsys, answer["chat_id"])
    assert [(turn["role"], turn.get("note", False)) for turn in turns] == [
        ("user", False),
        ("model", True),
        ("model", False),
    ]
    assert turns[0]["parts"][0]["text"] == QUESTION
    assert note_of(1280, 720).fullmatch(turns[1]["parts"][0]["text"])  # text only: the picture is not kept
    assert turns[2]["parts"][0]["text"] == ANSWER


async def test_the_answer_is_printed(
    environment: Path, display: str, gemini_live_server: FakeGeminiLiveServer, capsys: pytest.CaptureFixture[str]
) -> None:
    gemini_live_server.script(script(*LOOKED_AT))
    code, out, err = await parley(capsys, "ask", QUESTION)
    assert (code, out) == (0, ANSWER + "\n"), err


async def test_parley_listen_prints_looking_as_a_state_between_the_call_and_its_answer(
    environment: Path, display: str, gemini_live_server: FakeGeminiLiveServer, capsys: pytest.CaptureFixture[str]
) -> None:
    gemini_live_server.script(
        script(
            (AfterSpeech(), (InputTranscript(QUESTION), CallTools((LOOK,)))),
            (AfterToolResponse("s-1"), (OutputTranscript(ANSWER), CompleteTurn())),
        )
    )
    wav = str(ASSETS / "wake_weather.wav")
    code, out, err = await parley(capsys, "listen", "--fast", "--events", "--audio-in", wav)
    assert code == 0, err
    events = [json.loads(line) for line in out.splitlines()]
    states = [(e["old"], e["new"]) for e in events if e["event"] == "state"]
    assert all(old == new for (_, old), (new, _) in pairwise(states)), states  # unbroken
    [looking] = [at for at, (_, new) in enumerate(states) if new == VoiceStatus.LOOKING]
    assert states[looking : looking + 2] == [
        (VoiceStatus.THINKING, VoiceStatus.LOOKING),
        (VoiceStatus.LOOKING, VoiceStatus.THINKING),
    ]
    kinds = [e["event"] if e["event"] != "state" else e["new"] for e in events]
    assert kinds.index(VoiceStatus.LOOKING) < kinds.index("tool_call")
    [tool] = [e for e in events if e["event"] == "tool_call"]
    assert tool["result"]["shown"] is True


async def test_with_screen_looking_off_the_tool_is_not_declared(
    environment: Path, display: str, gemini_live_server: FakeGeminiLiveServer, capsys: pytest.CaptureFixture[str]
) -> None:
    (environment / "config.toml").write_text("look_at_screen = false\n", encoding="utf-8")
    gemini_live_server.script(script((AfterText(), (OutputTranscript("I can't see it."), CompleteTurn()))))
    code, out, err = await parley(capsys, "ask", QUESTION)
    assert (code, out) == (0, "I can't see it.\n"), err
    sent = await gemini_live_server.connection(0)
    names = [declaration["name"] for declaration in sent.function_declarations]
    assert LOOK_AT_SCREEN.name not in names and "end_conversation" in names
    assert sent.video == []


async def test_without_a_display_the_model_is_given_one_sentence_and_the_conversation_goes_on(
    environment: Path, no_display: None, gemini_live_server: FakeGeminiLiveServer, capsys: pytest.CaptureFixture[str]
) -> None:
    gemini_live_server.script(script(*LOOKED_AT))
    code, out, err = await parley(capsys, "ask", QUESTION, "--json")
    assert code == 0, err
    answer = json.loads(out)
    assert answer["model"] == ANSWER
    assert answer["tool_calls"][0]["result"] == {"shown": False, "say": SAY["no_display"]}
    sent = await gemini_live_server.connection(0)
    assert sent.video == []
    turns = await history(capsys, answer["chat_id"])
    assert [turn["role"] for turn in turns] == ["user", "model"]  # no note: the screen was not looked at


async def test_a_picture_that_cannot_be_sent_is_told_and_the_conversation_goes_on(
    environment: Path, display: str, gemini_live_server: FakeGeminiLiveServer, capsys: pytest.CaptureFixture[str]
) -> None:
    again = "Sorry, I lost the connection: could you ask me again?"
    gemini_live_server.script(
        # The service closes the connection right after the call: the picture meets a closed connection.
        script((AfterText(), (NewHandle("h-1"), CallTools((LOOK,)), Close(1011, "Internal error encountered.")))),
        script((AtOnce(), (OutputTranscript(again), CompleteTurn()))),
    )
    code, out, err = await parley(capsys, "ask", QUESTION, "--json")
    assert code == 0, err
    answer = json.loads(out)
    assert answer["tool_calls"] == [
        {"name": LOOK_AT_SCREEN.name, "args": {}, "result": {"shown": False, "say": SAY["not_sent"]}}
    ]
    assert answer["model"] == again  # the session resumed on a new connection, and the model spoke on
    first, second = gemini_live_server.connections
    assert first.video == second.video == []
    assert pick(second.session_resumption or {}, "handle") == "h-1"
    turns = await history(capsys, answer["chat_id"])
    assert [turn.get("note", False) for turn in turns] == [False, False]  # nothing was looked at


async def test_the_status_says_looking_while_the_screen_is_taken_and_thinking_after(display: str) -> None:
    posted: list[FrontEvent] = []
    while_taking: list[FrontEvent] = []

    async def take() -> Look:
        while_taking.extend(posted)
        return await take_screen()

    kit = ScreenKit(enabled=True, language=None, post=posted.append, take=take)
    reply = await kit.call(LOOK_AT_SCREEN.name, {}, uuid4())
    assert reply.picture is not None
    assert while_taking == [StatusChanged(VoiceStatus.LOOKING)]
    assert posted == [StatusChanged(VoiceStatus.LOOKING), StatusChanged(VoiceStatus.THINKING)]


async def test_the_status_goes_back_to_thinking_when_the_screen_cannot_be_taken(no_display: None) -> None:
    posted: list[FrontEvent] = []
    kit = ScreenKit(enabled=True, language="de", post=posted.append)
    reply = await kit.call(LOOK_AT_SCREEN.name, {}, uuid4())
    assert reply.result == {"shown": False, "say": table("de")["screen"]["no_display"]}
    assert (reply.picture, reply.note) == (None, "")
    assert posted == [StatusChanged(VoiceStatus.LOOKING), StatusChanged(VoiceStatus.THINKING)]


async def test_an_x11_display_that_cannot_be_reached_is_no_display(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    with virtual_screen(SCREEN) as display:
        pass  # stopped: its number is free again, and nothing answers on it
    monkeypatch.setenv("DISPLAY", display)
    reply = await ScreenKit(enabled=True, language="fr").call(LOOK_AT_SCREEN.name, {}, uuid4())
    assert reply.result == {"shown": False, "say": table("fr")["screen"]["no_display"]}


async def test_off_the_kit_offers_and_handles_nothing() -> None:
    kit = ScreenKit(enabled=False, language=None)
    assert await kit.declarations() == ()
    assert not kit.handles(LOOK_AT_SCREEN.name)
    assert await ScreenKit(enabled=True, language=None).declarations() == (LOOK_AT_SCREEN,)


@pytest.fixture
async def wayland(monkeypatch: pytest.MonkeyPatch) -> Any:
    """A Wayland session (with XWayland's DISPLAY too, which must not be used) on a private session bus."""
    async with private_bus() as address:
        monkeypatch.setenv("WAYLAND_DISPLAY", "wayland-test")
        monkeypatch.setenv("DISPLAY", ":no-such-display")
        monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", address)
        yield address


@pytest.mark.parametrize("code", [1, 2])
async def test_a_screenshot_the_portal_refuses_is_told_in_one_sentence(wayland: str, code: int) -> None:
    async with FakeScreenshotPortal(code).serving(wayland) as portal:
        reply = await ScreenKit(enabled=True, language="it").call(LOOK_AT_SCREEN.name, {}, uuid4())
    assert reply.result == {"shown": False, "say": table("it")["screen"]["refused"]}
    assert reply.picture is None
    [options] = portal.calls
    assert options["interactive"] is False


async def test_without_a_screenshot_portal_the_screen_cannot_be_seen(wayland: str) -> None:
    reply = await ScreenKit(enabled=True, language=None).call(LOOK_AT_SCREEN.name, {}, uuid4())
    assert reply.result == {"shown": False, "say": SAY["no_display"]}


async def test_the_portals_screenshot_is_sent_scaled_and_its_file_removed(wayland: str, tmp_path: Path) -> None:
    shot = QImage(2560, 1600, QImage.Format.Format_RGB32)
    shot.fill(0xFF2563EB)
    source = tmp_path / "screen.png"
    assert shot.save(str(source))
    async with FakeScreenshotPortal(0, source).serving(wayland) as portal:
        reply = await ScreenKit(enabled=True, language=None).call(LOOK_AT_SCREEN.name, {}, uuid4())
    assert reply.picture is not None
    assert size_of(reply.picture.jpeg) == (reply.picture.width, reply.picture.height) == (1280, 800)
    assert reply.result["looked_at"] == "screen"
    assert note_of(1280, 800).fullmatch(reply.note)
    [written] = portal.written
    assert not written.exists()  # Parley asked for it only to send it


@pytest.mark.parametrize(("language", "said"), [("en", "Look at my screen."), ("pt", "O que é este erro?")])
async def test_offline_parley_says_it_cannot_see_the_screen(
    offline: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, language: str, said: str
) -> None:
    monkeypatch.setenv("PARLEY_LANGUAGE", language)
    code, out, err = await parley(capsys, "ask", said, "--json")
    assert code == 0, err
    answer = json.loads(out)
    assert answer["model"] == table(language)["screen"]["offline"]
    assert answer["tool_calls"] == []
