"""Screenshots of each page of the window, offscreen: `python -m bench.window_screenshots [--tag NAME]`.

Seeds a temporary store with the chats `tests/ui/test_screenshots.py` shows (a long kitchen chat in a
folder, a short trip chat) and a few memories, opens the window as `ui/app.py` composes it (no Gemini key:
the voice is off and its banner shows), and grabs the chat page, the Memory page and the settings dialog
with `QWidget.grab()` to `bench/results/screenshots/<page>-<tag>.png` (ignored by git), for a person to
look at. Waits poll the Qt event loop against a deadline; nothing sleeps for timing.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QDeadlineTimer, QEventLoop, QTimer
from PySide6.QtWidgets import QApplication, QWidget

from app.config.settings import load_settings
from app.controller import ChatController
from app.runtime import Runtime
from app.wiring import open_chat_services
from chats.transfer import parse_import
from tests.app import MemoryKeyring, using_keyring
from tests.ui.test_screenshots import KITCHEN, TRIP, as_export
from ui.app import open_window

OUT = Path(__file__).resolve().parent / "results" / "screenshots"
MEMORIES = [
    ("User is vegetarian.", "preference"),
    ("User's daughter is called Mia.", "relationship"),
    ("User lives in Lyon.", "identity"),
]


def wait_until(check: Callable[[], bool], what: str, seconds: float = 120.0) -> None:
    deadline = QDeadlineTimer(int(seconds * 1000))
    while not check():
        if deadline.hasExpired():
            raise SystemExit(f"timed out waiting for {what}")
        loop = QEventLoop()
        QTimer.singleShot(20, loop.quit)
        loop.exec()


def grab(app: QApplication, widget: QWidget, name: str) -> Path:
    app.sendPostedEvents()
    app.processEvents()
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / f"{name}.png"
    if not widget.grab().save(str(path)):
        raise SystemExit(f"saving the screenshot of {name} failed")
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tag", default="after")
    tag = parser.parse_args().tag
    with tempfile.TemporaryDirectory() as folder, using_keyring(MemoryKeyring()):
        config = Path(folder) / "config.toml"
        config.write_text('voice_model = "gemini"\n', encoding="utf-8")
        settings = load_settings({"data_dir": str(Path(folder) / "data"), "config_file": str(config)}, env={})

        async def seed() -> list[object]:
            async with open_chat_services(settings) as services:
                controller = ChatController(services)
                chats = [as_export("Kitchen renovation", KITCHEN, 3), as_export("Japan in April", TRIP, 5)]
                reports = await controller.import_chats(parse_import({"chats": chats}))
                home = await controller.create_folder("Home")
                await controller.move_chat(reports[0].chat_id, home.id)
                for text, category in MEMORIES:
                    await services.memory.add(text, project_id=None, category=category)
                return [report.chat_id for report in reports]

        long_id = asyncio.run(seed())[0]
        app = QApplication(sys.argv[:1])
        app.setApplicationName("Parley")
        with Runtime() as runtime:
            opened = open_window(settings, runtime, tray_available=False)
            window = opened.main
            wait_until(lambda: window.chats.rowCount() == 2, "the chat list")
            row = window.chats.row_of(long_id)  # type: ignore[arg-type]
            assert row is not None
            window.chat_list.setCurrentIndex(window.chats.index(row))
            shown = window.transcript
            wait_until(lambda: shown.chat is not None and shown.chat.id == long_id, "the transcript")
            wait_until(window.banner_row.isVisible, "the banner")
            print(grab(app, window, f"chat-{tag}"))
            window.pages.setCurrentWidget(window.memory_page)
            wait_until(lambda: window.memory_page.table.rowCount() >= len(MEMORIES), "the memories")
            print(grab(app, window, f"memory-{tag}"))
            window.open_settings()
            assert window.settings_dialog is not None
            print(grab(app, window.settings_dialog, f"settings-{tag}"))
            window.settings_dialog.reject()
            window.close()


if __name__ == "__main__":
    main()
