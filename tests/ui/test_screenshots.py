"""Screenshots of the real window and its settings dialog under Xvfb, saved for a human to look at.

The test process runs Qt offscreen (see conftest), so the window is shown by a child process on an X
server of its own, through the xcb platform a user's desktop uses: real fonts, real window mapping.
The PNGs land in pytest's `tmp_path` and in `bench/results/screenshots/` (ignored by git).
Needs the `xvfb` package (`Xvfb` on the PATH).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtGui import QImage

from tests.fakes.virtual_screen import virtual_screen

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "bench" / "results" / "screenshots"
SCREEN = "1280x800x24"
CHILD_TIMEOUT_S = 180.0
"""Seeding embeds summaries with the local model: loading it dominates, on a 2-core machine."""

# The child: seed two chats through the import path, open the window as `ui/app.py` composes it (no
# Gemini key, so the voice part only raises its banner), select the long chat and grab the window; then
# open the settings dialog as Ctrl+, does and grab it.
# Waits poll the Qt event loop against a deadline; nothing sleeps for timing.
WINDOW_SCRIPT = r"""
import asyncio
import json
import sys
from pathlib import Path

from PySide6.QtCore import QDeadlineTimer, QEventLoop, QTimer
from PySide6.QtWidgets import QApplication

from app.controller import ChatController
from app.runtime import Runtime
from app.config.settings import load_settings
from app.wiring import open_chat_services
from chats.transfer import parse_import
from tests.app import MemoryKeyring, using_keyring
from ui.app import open_window

data_dir, config_file, out_dir = sys.argv[1], sys.argv[2], Path(sys.argv[3])
chats = json.loads(sys.argv[4])


def grab(widget, name):
    wait_until(lambda: widget.windowHandle() is not None and widget.windowHandle().isExposed(), f"{name} mapped")
    # `grab()` renders the widgets itself, it does not wait for a paint; but pending layout requests are
    # posted events, delivered here so it sees the final layout.
    app.sendPostedEvents()
    app.processEvents()
    if not widget.grab().save(str(out_dir / f"{name}.png")):
        raise SystemExit(f"saving the screenshot of {name} failed")
    return {"width": widget.width(), "height": widget.height(), "ratio": widget.devicePixelRatio()}


def wait_until(check, what, seconds=60.0):
    deadline = QDeadlineTimer(int(seconds * 1000))
    while not check():
        if deadline.hasExpired():
            raise SystemExit(f"timed out waiting for {what}")
        loop = QEventLoop()
        QTimer.singleShot(20, loop.quit)
        loop.exec()


with using_keyring(MemoryKeyring()):
    settings = load_settings({"data_dir": data_dir, "config_file": config_file}, env={})


async def seed():
    async with open_chat_services(settings) as services:
        reports = await ChatController(services).import_chats(parse_import({"chats": chats}))
        return [report.chat_id for report in reports]


long_id, _short_id = asyncio.run(seed())

app = QApplication(sys.argv[:1])
app.setApplicationName("Parley")
with Runtime() as runtime:
    opened = open_window(settings, runtime)
    window = opened.main
    wait_until(lambda: window.chats.rowCount() == len(chats), "the chat list")
    window.chat_list.setCurrentIndex(window.chats.index(window.chats.row_of(long_id)))
    wait_until(lambda: window.transcript.chat is not None and window.transcript.chat.id == long_id, "the transcript")
    wait_until(lambda: window.banner_row.isVisible() and window.voice.state_label.text().endswith("off"), "the banner")
    sizes = {"main_window": grab(window, "main_window")}
    window.open_settings()
    sizes["settings_dialog"] = grab(window.settings_dialog, "settings_dialog")
    print(json.dumps(sizes))
    window.settings_dialog.reject()
    window.close()
    del window, opened
"""

KITCHEN = [
    ("user", "We're finally redoing the kitchen. The cabinets are from the eighties and the doors sag."),
    ("model", "Exciting. Are you replacing the cabinets entirely, or refacing the boxes with new doors?"),
    ("user", "Replacing them. The boxes are particleboard and one of them got water damage under the sink."),
    ("model", "Then new boxes make sense. Plywood carcasses hold up far better near water than particleboard."),
    ("user", "My budget is about 18,500 euros for everything, including the countertop and the tiling."),
    ("model", "That's workable for a mid-size kitchen if the layout stays the same and the plumbing doesn't move."),
    ("user", "The sink stays where it is. We might move the fridge to the other wall though."),
    ("model", "Moving the fridge is cheap unless it has a water line for an ice maker. Does it?"),
    ("user", "No ice maker, just a plain fridge. It needs a socket on that wall, that's all."),
    ("model", "Then an electrician can add a dedicated circuit there in an afternoon. Budget around 300 euros."),
    ("user", "For the doors we're torn between oak and walnut veneer."),
    ("model", "Oak is lighter and hides scratches; walnut looks richer but shows dust and fingerprints more."),
    ("user", "We have two kids and a dog, so scratches matter more than richness, I think."),
    ("model", "Then oak, perhaps with a matt lacquer. It's forgiving and easy to touch up."),
    ("user", "What about the countertop? Quartz or solid wood?"),
    ("model", "Quartz needs no oiling and resists stains; wood is warmer but wants oil every few months near a sink."),
    ("user", "Quartz then. The showroom had a pale grey one with faint veining that we liked."),
    ("model", "Ask for a sample to take home: showroom lights flatter stone, your kitchen light may not."),
    ("user", "Good idea. Marco, the contractor, says he can start tiling on March 3rd."),
    ("model", "Tiling usually comes after the cabinets and countertop are fitted. Is the order settled with him?"),
    ("user", "He said cabinets go in the last week of February and the countertop template right after."),
    ("model", "Quartz tops often take two weeks from template to install, so tiling on the 3rd may be tight."),
    ("user", "Hmm. So the backsplash tiles would wait for the countertop?"),
    ("model", "Yes: the tiles sit on the countertop's back edge. Tiling first leaves a gap or cuts to redo."),
    ("user", "I'll ask Marco to push tiling to mid-March then."),
    ("model", "That keeps the sequence safe. Would you like a checklist of the order of works?"),
    ("user", "Yes please, short."),
    ("model", "Strip out, electrics, plaster, cabinets, countertop template, countertop, plumbing, tiles, paint."),
    ("user", "Where do the appliances fit in that list?"),
    ("model", "Right after the countertop: the hob needs its cut-out, and the oven slides into its housing."),
    ("user", "We ordered an induction hob. Does it need anything special?"),
    ("model", "Usually a 32-amp circuit of its own. Check the hob's manual and tell the electrician early."),
    ("user", "Noted. And the tiles, we want small white zellige ones."),
    ("model", "Zellige is handmade and uneven, which is its charm; order 15 % extra for breakage and cuts."),
    ("user", "Fifteen percent, okay. How many square metres is a typical backsplash?"),
    ("model", "For a three-metre run at 60 cm high, about 1.8 m², so order a little over 2 m²."),
    ("user", "Perfect. Can you remind me to call Marco tomorrow about the dates?"),
    ("model", "I can't set reminders yet, but this chat keeps the plan: tiling after the countertop, mid-March."),
    ("user", "That's fine, I'll look back here. Thanks!"),
    ("model", "Good luck with the build. Tell me how the quartz sample looks in your own light."),
]

TRIP = [
    ("user", "I'm planning two weeks in Japan next April. Kyoto or Tokyo first?"),
    ("model", "Start in Tokyo: most flights land there, and Kyoto's cherry blossoms usually peak a little later."),
    ("user", "Is a rail pass still worth it?"),
    (
        "model",
        "Since the 2023 price rise, only if you travel a lot between cities. "
        "For Tokyo, Kyoto and Osaka, buy single tickets.",
    ),
]


def as_export(title: str, turns: list[tuple[str, str]], day: int) -> dict[str, object]:
    full_history = [
        {"role": role, "parts": [{"text": text}], "at": f"2026-02-{day:02d}T18:{i:02d}:00+00:00"}
        for i, (role, text) in enumerate(turns)
    ]
    return {"title": title, "full_history": full_history}


@pytest.fixture
def xvfb() -> Iterator[str]:
    """A private X server: yields its DISPLAY, stops it after the test."""
    with virtual_screen(SCREEN) as display:
        yield display


def distinct_colours(image: QImage, step: int = 8) -> int:
    return len({image.pixel(x, y) for x in range(0, image.width(), step) for y in range(0, image.height(), step)})


def test_the_main_window_with_a_long_chat_and_the_settings(xvfb: str, tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('voice_model = "gemini"\n', encoding="utf-8")  # no key: the voice is off, as shown
    chats = [as_export("Kitchen renovation", KITCHEN, 3), as_export("Japan in April", TRIP, 5)]
    env = {**os.environ, "QT_QPA_PLATFORM": "xcb", "DISPLAY": xvfb}
    env.pop("WAYLAND_DISPLAY", None)
    child = subprocess.run(
        [sys.executable, "-c", WINDOW_SCRIPT, str(tmp_path / "data"), str(config), str(tmp_path), json.dumps(chats)],
        cwd=ROOT,
        env=env,
        check=False,  # the assertion below shows the child's errors
        capture_output=True,
        text=True,
        timeout=CHILD_TIMEOUT_S,
    )
    assert child.returncode == 0, child.stderr[-3000:]
    sizes = json.loads(child.stdout.strip().splitlines()[-1])

    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for name, size in sizes.items():
        out = tmp_path / f"{name}.png"
        image = QImage(str(out))
        assert not image.isNull(), name
        assert (image.width(), image.height()) == (
            round(size["width"] * size["ratio"]),
            round(size["height"] * size["ratio"]),
        ), name
        assert distinct_colours(image) >= 8, f"the screenshot of {name} is (nearly) blank"
        shutil.copyfile(out, SCREENSHOTS / out.name)
    assert set(sizes) == {"main_window", "settings_dialog"}
