"""What Parley holds while it waits: `python -m bench.footprint [--asleep-s 60] [--release-s 20] [--out FILE]`.

Issue 35 items 1 and 4. The window as `ui/app.py` opens it (`open_window`), offscreen, in a fresh process on
a fresh data folder: no key (the offline voice, the local embedder and text model), the first-start guide
marked done, a microphone that hears silence in real time (a laptop in a quiet room: the wake word model
reads every frame behind its quiet gate), a null speaker. This process samples the child's process tree
(the window's process, the local models' child and any other) every half second:

1. asleep: `--asleep-s` seconds (60) after the window first shows, and the CPU the tree used over the last
   half of that wait (percent of one core);
2. answer: a question typed into the window as a person types it (`TYPING_S` from its first character to
   Enter), answered by the offline voice as a first answer is: the seconds from Enter to the answer's turn in
   the window, and the peak from the first character on;
3. released: once the conversation is over (Parley asleep again), `--release-s` seconds for the models to go
   (the `models_release_s` setting, set short for the bench: its default is ten minutes), then 60 s more,
   as the goal reads ("back to at most 300 MB within a minute of the release");
4. bare Qt: a `QMainWindow` shown offscreen in a process of its own, measured the same way: what the
   toolkit costs by itself.

Memory is summed over the tree as PSS (proportional set size: a page shared by two processes counts half in
each, so the sum is what the tree costs), with RSS (shared pages counted in every process) and USS (pages
no other process holds) beside. Goal: PSS at most 300 MB asleep and after the release. Results in
`bench/results/footprint.json`, with the machine's load (`os.getloadavg()`), and a summary on stdout;
`bench/results/footprint_before.json` is the run before issue 35 (commit b31381a: every model loaded at start
and kept; its question was sent whole, without the typing).
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import psutil

if TYPE_CHECKING:
    from app.config.settings import Settings

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results" / "footprint.json"
GOAL_MB = 300.0
SAMPLE_S = 0.5
AFTER_RELEASE_S = 60.0
QUESTION = "What is a good name for a cat?"
TYPING_S = 6.0
"""From the question's first character to Enter: 31 characters at about five a second. The models start loading
at the first character (`VoiceControls.typing_started`)."""
WAIT_S = 300.0
MB = 1024 * 1024


@dataclass(frozen=True, slots=True)
class Footprint:
    """The memory of a process tree at one moment, in megabytes."""

    pss_mb: float
    rss_mb: float
    uss_mb: float
    processes: int


def footprint(root: psutil.Process) -> Footprint:
    """`root` and its descendants, summed (a process that ends meanwhile is left out)."""
    pss = rss = uss = 0
    count = 0
    for process in [root, *root.children(recursive=True)]:
        try:
            info = process.memory_full_info()
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
        pss, rss, uss, count = pss + info.pss, rss + info.rss, uss + info.uss, count + 1
    return Footprint(round(pss / MB, 1), round(rss / MB, 1), round(uss / MB, 1), count)


def per_process(root: psutil.Process) -> list[dict[str, Any]]:
    """Each process of the tree: its command line's end and its PSS (what holds the memory)."""
    rows = []
    for process in [root, *root.children(recursive=True)]:
        try:
            rows.append(
                {"command": " ".join(process.cmdline()[-3:]), "pss_mb": round(process.memory_full_info().pss / MB, 1)}
            )
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
    return rows


def cpu_seconds(root: psutil.Process) -> float:
    """User and system CPU seconds of `root` and its descendants (ended children that were waited for count too)."""
    total = 0.0
    for process in [root, *root.children(recursive=True)]:
        try:
            times = process.cpu_times()
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
        total += times.user + times.system + times.children_user + times.children_system
    return total


# -- the child: the window -----------------------------------------------------------------------------


def window_child(folder: Path, release_s: float) -> None:
    """The window on a data folder in `folder`; prints `shown`, takes `ask` on stdin and prints `answered` once the
    model's turn is in the window; `quit` closes it. Runs in its own process (`python -m bench.footprint --window`)."""
    os.environ["QT_QPA_PLATFORM"] = "offscreen"
    from PySide6.QtCore import QSocketNotifier, Qt, QTimer
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication, QLineEdit

    from app.front.first_start import mark_guide_done
    from app.runtime import Runtime
    from ui.app import open_window
    from voice.audio.chunks import MODEL_VOICE_FORMAT, AudioSink, AudioSource
    from voice.audio.null_sink import NullSink
    from voice.audio.pacing import RealTimePacer
    from voice.audio.synthetic import SyntheticSource, silence

    settings = fresh_settings(folder, {"PARLEY_MODELS_RELEASE_S": str(release_s), "PARLEY_IDLE_SECONDS": "3"})
    mark_guide_done(settings)

    def quiet_room(_settings: object) -> tuple[AudioSource, AudioSink]:
        def frames() -> Any:
            at = 0.0
            while True:
                yield silence(80, start_ms=at)
                at += 80

        return SyntheticSource(frames(), pacer=RealTimePacer()), NullSink(MODEL_VOICE_FORMAT)

    def say(line: str) -> None:
        print(line, flush=True)

    def ask(box: QLineEdit) -> None:
        QTest.keyClicks(box, QUESTION[1:])
        say("sent")
        QTest.keyClick(box, Qt.Key.Key_Return)

    app = QApplication([])
    with Runtime() as runtime:
        window = open_window(settings, runtime, tray_available=False, open_devices=quiet_room)
        window.bridge.state_changed.connect(lambda state: say(f"state {state}"))
        window.bridge.turn_spoken.connect(lambda spoken: say("answered") if spoken.role == "model" else None)
        QTimer.singleShot(0, lambda: say("shown"))
        commands = QSocketNotifier(sys.stdin.fileno(), QSocketNotifier.Type.Read)

        def command() -> None:
            line = sys.stdin.readline().strip()
            if line == "ask":  # typed as a person types: the first character, the rest, Enter
                box = window.main.voice.text_box
                QTest.keyClicks(box, QUESTION[0])
                QTimer.singleShot(int(TYPING_S * 1000), lambda: ask(box))
            elif line in ("quit", ""):
                app.quit()

        commands.activated.connect(command)
        app.exec()


def fresh_settings(folder: Path, env: dict[str, str]) -> Settings:
    """Settings on `folder` with an empty config file and no key, as `bench.window_common.bench_settings` makes
    them. Not imported from there: that module brings the other benches' chat stores, and with them MiniLM's
    tokenizer and every offline text model (yake, networkx, lemminflect: 33 MB resident measured here), into
    the window's process, which Parley asleep does not hold."""
    from app.config.settings import load_settings
    from tests.app import MemoryKeyring, using_keyring

    config = folder / "config.toml"
    config.write_text("", encoding="utf-8")
    with using_keyring(MemoryKeyring()):
        return load_settings({"data_dir": str(folder / "data"), "config_file": str(config)}, env=env)


def bare_qt_child() -> None:
    """A `QMainWindow`, shown offscreen: prints `shown`, then waits for its input to close."""
    os.environ["QT_QPA_PLATFORM"] = "offscreen"
    from PySide6.QtCore import QSocketNotifier, QTimer
    from PySide6.QtWidgets import QApplication, QMainWindow

    app = QApplication([])
    window = QMainWindow()
    window.resize(900, 640)
    window.show()
    QTimer.singleShot(0, lambda: print("shown", flush=True))
    commands = QSocketNotifier(sys.stdin.fileno(), QSocketNotifier.Type.Read)
    commands.activated.connect(app.quit)
    app.exec()


# -- this process: the measures ------------------------------------------------------------------------


class Child:
    """A child process whose stdout lines are read on a thread, each with the time it arrived."""

    def __init__(self, *arguments: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "bench.footprint", *arguments],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self.tree = psutil.Process(self.process.pid)
        self._lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self._lines.put(line.strip())
        self._lines.put("")

    def send(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def wait_for(self, wanted: str, peak: list[Footprint] | None = None) -> float:
        """Wait for the line `wanted` (sampling the tree into `peak` meanwhile); the seconds it took."""
        started = time.monotonic()
        while time.monotonic() - started < WAIT_S:
            try:
                line = self._lines.get(timeout=SAMPLE_S)
            except queue.Empty:
                line = None
            if peak is not None:
                peak.append(footprint(self.tree))
            if line == "":
                raise RuntimeError(f"the child ended before {wanted!r}")
            if line == wanted:
                return time.monotonic() - started
        raise TimeoutError(f"no {wanted!r} within {WAIT_S} s")

    def hold(self, seconds: float, peak: list[Footprint] | None = None) -> None:
        """Let `seconds` pass, sampling into `peak`."""
        until = time.monotonic() + seconds
        while (left := until - time.monotonic()) > 0:
            time.sleep(min(SAMPLE_S, left))
            if peak is not None:
                peak.append(footprint(self.tree))

    def close(self) -> None:
        self.send("quit")
        try:
            self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def peak_of(samples: list[Footprint]) -> Footprint:
    return max(samples, key=lambda sample: sample.pss_mb)


def measure_window(asleep_s: float, release_s: float) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="parley-footprint-") as folder:
        child = Child("--window", folder, "--release-s", str(release_s))
        try:
            shown_s = child.wait_for("shown")
            child.hold(asleep_s / 2)
            cpu_from, cpu_wall = cpu_seconds(child.tree), time.monotonic()
            child.hold(asleep_s / 2)
            cpu_asleep = 100 * (cpu_seconds(child.tree) - cpu_from) / (time.monotonic() - cpu_wall)
            asleep, asleep_parts = footprint(child.tree), per_process(child.tree)
            during: list[Footprint] = []
            child.send("ask")
            child.wait_for("sent", during)
            answer_s = child.wait_for("answered", during)
            child.wait_for("state sleeping", during)
            answered_parts = per_process(child.tree)
            child.hold(release_s)
            released_at = footprint(child.tree)
            child.hold(AFTER_RELEASE_S)
            released, released_parts = footprint(child.tree), per_process(child.tree)
        finally:
            child.close()
    return {
        "shown_s": round(shown_s, 2),
        "asleep": asdict(asleep),
        "asleep_processes": asleep_parts,
        "cpu_asleep_percent_of_a_core": round(cpu_asleep, 2),
        "answer_s": round(answer_s, 2),
        "answer_peak": asdict(peak_of(during)),
        "after_answer_processes": answered_parts,
        "at_release": asdict(released_at),
        "released": asdict(released),
        "released_processes": released_parts,
    }


def measure_bare_qt(seconds: float) -> dict[str, Any]:
    child = Child("--bare-qt")
    try:
        child.wait_for("shown")
        child.hold(seconds)
        return asdict(footprint(child.tree))
    finally:
        child.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--asleep-s", type=float, default=60.0)
    parser.add_argument("--release-s", type=float, default=20.0, help="models_release_s for the run")
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--window", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--bare-qt", action="store_true", help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.window is not None:
        window_child(arguments.window, arguments.release_s)
        return
    if arguments.bare_qt:
        bare_qt_child()
        return
    load_before = os.getloadavg()
    results = {
        "loadavg_at_start": load_before,
        "asleep_s": arguments.asleep_s,
        "models_release_s": arguments.release_s,
        "goal_mb": GOAL_MB,
        "window": measure_window(arguments.asleep_s, arguments.release_s),
        "bare_qt": measure_bare_qt(5.0),
        "loadavg_at_end": os.getloadavg(),
    }
    arguments.out.parent.mkdir(parents=True, exist_ok=True)
    arguments.out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    window = results["window"]
    print(f"load {load_before[0]:.2f} -> {results['loadavg_at_end'][0]:.2f}")
    print(
        f"asleep {arguments.asleep_s:.0f} s after the window shows: PSS {window['asleep']['pss_mb']} MB "
        f"(RSS {window['asleep']['rss_mb']}, {window['asleep']['processes']} processes; goal <= {GOAL_MB:.0f}); "
        f"CPU {window['cpu_asleep_percent_of_a_core']}% of a core"
    )
    for part in window["asleep_processes"]:
        print(f"  {part['pss_mb']:7.1f} MB  {part['command']}")
    print(f"answer: {window['answer_s']} s, peak PSS {window['answer_peak']['pss_mb']} MB")
    print(
        f"released ({arguments.release_s:.0f} s setting) + {AFTER_RELEASE_S:.0f} s: "
        f"PSS {window['released']['pss_mb']} MB"
    )
    print(f"bare Qt window: PSS {results['bare_qt']['pss_mb']} MB (RSS {results['bare_qt']['rss_mb']})")
    print(f"written to {arguments.out}")


if __name__ == "__main__":
    main()
