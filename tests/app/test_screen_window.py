"""Looking at the active window on X11 (issue 36): a real window on a virtual X screen (Xvfb), named active on
the root window as a window manager would, taken alone; without one, the monitor the user is on."""

from __future__ import annotations

import os
from collections.abc import Iterator
from uuid import uuid4

import pytest
from PySide6.QtGui import QColor, QImage
from Xlib.display import Display

from app.screen.active_window import Focus, Rect, focus
from app.screen.grab import looked_at, take_screen
from app.screen.toolkit import LOOK_AT_SCREEN, ScreenKit
from tests.app.test_screen import SCREEN, note_of, size_of
from tests.fakes.virtual_screen import active_window, virtual_screen

# Qt takes the first thread that makes one of its objects for its main thread. The picture's JPEG buffer is made
# on a worker thread (`take_screen`): made before the session's QApplication, it made that thread Qt's main
# thread, and a later window test's close event was then delivered late, so the tray could not refuse it
# (tests/ui/test_tray.py failed in every whole run). The application is made first, on the main thread.
pytestmark = pytest.mark.usefixtures("qapp")

RED = 0xDC2626
CLOSE = 16
"""How far (0-255, each of R, G, B) a JPEG's pixel may be from the colour it encoded."""


@pytest.fixture
def display() -> Iterator[str]:
    with virtual_screen(SCREEN) as display:
        yield display


@pytest.mark.parametrize(
    ("frame", "properties", "seen"),
    [
        ((300, 200, 800, 500), {}, (800, 500)),
        ((0, 0, 1600, 1000), {}, (1280, 800)),  # larger than 1,280 px: scaled
        ((1600, 900, 640, 400), {}, (320, 180)),  # partly off the screen: the part on it
        ((200, 200, 640, 400), {"_NET_FRAME_EXTENTS": [4, 4, 30, 4]}, (648, 434)),  # with its title bar
        ((200, 200, 640, 400), {"_GTK_FRAME_EXTENTS": [20, 20, 16, 24]}, (600, 360)),  # without its shadow
    ],
)
async def test_the_active_window_is_taken_alone(
    display: str, frame: tuple[int, int, int, int], properties: dict[str, list[int]], seen: tuple[int, int]
) -> None:
    with active_window(display, frame, properties=properties):
        look = await take_screen({"DISPLAY": display})
    assert look.what == "window"
    assert (look.picture.width, look.picture.height) == size_of(look.picture.jpeg) == seen


async def test_the_picture_is_the_windows_pixels_and_nothing_around_it(display: str) -> None:
    with active_window(display, (300, 200, 800, 500), pixel=RED):
        look = await take_screen({"DISPLAY": display})
    image = QImage.fromData(look.picture.jpeg, "JPG")  # type: ignore[arg-type]  # a str, as PySide6 takes it
    red = QColor(RED)
    for x, y in [(1, 1), (798, 1), (1, 498), (798, 498), (400, 250)]:
        pixel = image.pixelColor(x, y)
        assert max(abs(pixel.red() - red.red()), abs(pixel.green() - red.green()), abs(pixel.blue() - red.blue())) < (
            CLOSE
        ), (x, y, pixel.name())


@pytest.mark.parametrize(
    ("frame", "shown", "properties"),
    [
        pytest.param((300, 200, 800, 500), False, {}, id="minimised"),
        pytest.param((2000, 1200, 300, 200), True, {}, id="off the screen"),
        pytest.param((300, 200, 800, 500), True, {"_NET_WM_PID": [os.getpid()]}, id="Parley's own"),
    ],
)
async def test_a_window_not_to_look_at_gives_the_screen(
    display: str, frame: tuple[int, int, int, int], shown: bool, properties: dict[str, list[int]]
) -> None:
    with active_window(display, frame, shown=shown, properties=properties):
        look = await take_screen({"DISPLAY": display})
    assert look.what == "screen"
    assert size_of(look.picture.jpeg) == (1280, 720)  # the 1920 x 1080 screen, scaled


async def test_an_active_window_that_has_closed_gives_the_screen(display: str) -> None:
    with active_window(display, (300, 200, 800, 500)):
        pass  # closed with its connection; the root still names it active
    look = await take_screen({"DISPLAY": display})
    assert (look.what, size_of(look.picture.jpeg)) == ("screen", (1280, 720))


def test_without_an_active_window_the_user_is_where_the_pointer_is(display: str) -> None:
    pointer = Display(display)
    try:
        pointer.screen().root.warp_pointer(1700, 100)
        pointer.sync()
        assert focus(display) == Focus(None, (1700, 100))
    finally:
        pointer.close()


def test_on_parleys_own_window_the_user_is_at_its_centre(display: str) -> None:
    with active_window(display, (100, 100, 200, 100), properties={"_NET_WM_PID": [os.getpid()]}):
        assert focus(display) == Focus(None, (200, 150))


LEFT, RIGHT = Rect(0, 0, 1920, 1080), Rect(1920, 0, 2560, 1440)


@pytest.mark.parametrize(
    ("point", "monitor"),
    [((0, 0), LEFT), ((1919, 1079), LEFT), ((1920, 0), RIGHT), ((3000, 1300), RIGHT), ((100, 1200), None)],
)
def test_the_monitor_that_holds_the_user_is_taken(point: tuple[int, int], monitor: Rect | None) -> None:
    assert looked_at(Focus(None, point), [LEFT, RIGHT]) == (monitor, "screen")


def test_the_active_window_is_taken_across_monitors() -> None:
    window = Rect(1800, 100, 400, 300)
    assert looked_at(Focus(window, window.centre), [LEFT, RIGHT]) == (window, "window")


async def test_the_tool_says_it_looked_at_the_window(display: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DISPLAY", display)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    with active_window(display, (300, 200, 800, 500)):
        reply = await ScreenKit(enabled=True, language="es").call(LOOK_AT_SCREEN.name, {}, uuid4())
    assert reply.result["looked_at"] == "window"
    assert note_of(800, 500, "es", "window").fullmatch(reply.note)
