"""What the window benchmarks share: constants, a store of many chats, settings on it, a window on it,
and waiting on the GUI thread. Imported before Qt is: it sets the offscreen platform."""

from __future__ import annotations

import os

# Qt chooses its platform when the QApplication is built: every window benchmark imports this module first.
os.environ["QT_QPA_PLATFORM"] = "offscreen"

import functools
import random
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
from PySide6.QtCore import QDeadlineTimer, QEventLoop, QTimer

from app.config.settings import Settings, load_settings
from app.runtime import Runtime
from app.wiring import open_chat_services, store_path
from bench import locomo
from bench.chats import TURNS_PER_CHAT, Clock
from chats.compaction import TAIL_SIZE, summary_turn
from chats.embedders.minilm import MiniLMEmbedder
from chats.models import EmbeddedText, Turn
from chats.sqlite.store import SqliteChatStore
from tests.app import MemoryKeyring, using_keyring
from ui.bridge import ChatBridge
from ui.main_window import MainWindow
from ui.settings.dialog import SettingsDialog
from voice.audio.chunks import MODEL_VOICE_FORMAT

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"
WAKE_RECORDING = ROOT / "assets" / "audio" / "wake_weather.wav"

FIRST_PAINT_RUNS = 5
FIRST_PAINT_GOAL_S = 1.5
SEARCH_QUERIES = 50
SEARCH_P95_GOAL_MS = 100.0
STREAM_TURNS = 20
PACE_BYTES = 1_600
"""50 ms of microphone audio between two paced turns."""
FRAGMENTS_PER_TEXT = 4
AUDIO_CHUNKS_PER_TURN = 4
VOICE_CHUNK = bytes(MODEL_VOICE_FORMAT.bytes_per_second * 40 // 1000)
"""40 ms of model voice, as the service sends it."""
TICK_MS = 10
AFTER_STOP_S = 0.5
"""Ticks are kept this long after the loop stops: the save's reload of the list and transcript lands then."""
STALL_GOAL_MS = 50.0
WAIT_S = 120.0


def percentile(values: Sequence[float], q: float) -> float:
    return float(np.percentile(values, q))


def summarise(ms: Sequence[float]) -> dict[str, float]:
    return {
        "p50_ms": round(percentile(ms, 50), 2),
        "p95_ms": round(percentile(ms, 95), 2),
        "max_ms": round(max(ms), 2),
        "count": len(ms),
    }


# -- a store and settings on it ------------------------------------------------------------------------


def bench_settings(folder: Path, env: dict[str, str] | None = None) -> Settings:
    """Settings on `folder`: no key unless `env` gives one, the local embedder, the offline text model."""
    config = folder / "config.toml"
    config.write_text("", encoding="utf-8")
    with using_keyring(MemoryKeyring()):
        return load_settings({"data_dir": str(folder / "data"), "config_file": str(config)}, env=env or {})


async def build_store(settings: Settings, chats: int, corpus: list[locomo.Conversation]) -> float:
    """`bench.chats`'s scale store, titled, at the window's store path; the seconds it took."""
    rng = random.Random(7)
    texts = [t.text for c in corpus for s in c.sessions for t in s.turns]
    summaries = [s.summary for c in corpus for s in c.sessions]
    embedder = MiniLMEmbedder()
    clock = Clock(datetime(2025, 1, 1, tzinfo=UTC))
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    store = await SqliteChatStore.open(store_path(settings), settings.user_id, clock=clock)
    started = time.perf_counter()
    for _ in range(chats):
        clock.now += timedelta(minutes=7)
        turns = [Turn(role="user" if j % 2 == 0 else "model", text=rng.choice(texts)) for j in range(TURNS_PER_CHAT)]
        text = rng.choice(summaries)
        chat = await store.create(title=" ".join(text.split()[:6]), turns=turns)
        vector = np.asarray([rng.gauss(0, 1) for _ in range(embedder.dimensions)], dtype=np.float32)
        summary = EmbeddedText(text, vector / np.linalg.norm(vector), embedder.model_name)
        await store.replace_assistant_history(
            chat.id,
            expected_version=chat.version,
            assistant_history=[summary_turn(summary.text, clock.now), *turns[-TAIL_SIZE:]],
            summary=summary,
        )
    await store.close()
    return time.perf_counter() - started


# -- waiting on the GUI thread -------------------------------------------------------------------------


def wait_until(check: Callable[[], bool], what: str, seconds: float = WAIT_S) -> None:
    """Run the Qt loop until `check()`; what arrives meanwhile is delivered (and timed) by its slots."""
    deadline = QDeadlineTimer(int(seconds * 1000))
    while not check():
        if deadline.hasExpired():
            raise TimeoutError(f"timed out waiting for {what}")
        loop = QEventLoop()
        QTimer.singleShot(5, loop.quit)
        loop.exec()


@contextmanager
def window_on(settings: Settings) -> Iterator[tuple[MainWindow, ChatBridge, Runtime]]:
    """The window as `ui/app.py` composes it, without the voice loop; its first page loaded."""
    with Runtime() as runtime:
        bridge = ChatBridge(runtime, functools.partial(open_chat_services, settings, local_models_in_child=True))
        window = MainWindow(bridge, settings_dialog=functools.partial(SettingsDialog, settings, runtime))
        window.show()
        bridge.open()
        wait_until(lambda: window.chats.rowCount() > 0, "the first page of chats")
        try:
            yield window, bridge, runtime
        finally:
            window.close()
    # `window` and `bridge` live in this generator's frame until the runtime has stopped: no answer
    # arrives for an object already deleted (as in `ui/app.py`).
