"""What a new user can make Parley pay (issue 34): `python -m bench.costs [--code DIR] [--label NAME]`.

- A pasted document as a memory search: `parley memories search` with a 130,000-character request, beside
  a three-word one, on a store of a few memories (wall seconds of the whole command; the request is cut to
  `chats.models.QUERY_MAX` characters).
- A long recording: the peak resident memory (`/usr/bin/time -v`) of `parley listen --audio-in FILE --fast`
  on one hour of silence at 16 kHz mono, beside ten seconds of it (the models alone); goal: flat, tens of MB
  above the ten seconds, not GB.

Each command runs in a child process, as a user runs it (`python -m app.cli.main`), offline (no key), on a
fresh data folder, with the code in `--code` (default: this checkout; an export of an older commit measures
it before a change). The figures are added under `--label` to `results/costs.json`, with the load average
of the machine before each case (`os.getloadavg()`): on a shared machine, the wall seconds move with it.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import wave
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results" / "costs.json"
HERE = Path(__file__).resolve().parent.parent
PASTED_CHARS = 130_000
HOUR_SECONDS = 3600
MEMORIES = ("User drinks green tea every morning", "User lives in Lisbon", "User keeps bees on the roof")


def child_env(code: Path, folder: Path) -> dict[str, str]:
    """No key and an empty config (offline, as a new user starts), a data folder in `folder`, `code`'s
    packages imported first."""
    config = folder / "config.toml"
    config.touch()
    keep = {name: value for name, value in os.environ.items() if not name.endswith("_API_KEY")}
    return {**keep, "PARLEY_CONFIG": str(config), "PARLEY_DATA_DIR": str(folder / "data"), "PYTHONPATH": str(code)}


def parley(code: Path, folder: Path, *args: str, wrap: tuple[str, ...] = ()) -> subprocess.CompletedProcess[str]:
    """`parley args` run from `code` (after `wrap`: `/usr/bin/time -v`)."""
    command = [*wrap, sys.executable, "-m", "app.cli.main", *args]
    return subprocess.run(command, cwd=code, env=child_env(code, folder), capture_output=True, text=True, check=False)


def searches(code: Path, folder: Path) -> dict[str, Any]:
    folder.mkdir()
    for memory in MEMORIES:
        parley(code, folder, "memories", "add", memory)
    figures: dict[str, Any] = {}
    for name, request in {
        "three words": "green tea morning",
        f"{PASTED_CHARS:,} characters": ("what does the user drink " * PASTED_CHARS)[:PASTED_CHARS],
    }.items():
        load = os.getloadavg()[0]
        started = time.perf_counter()
        done = parley(code, folder, "memories", "search", request)
        figures[name] = {
            "seconds": round(time.perf_counter() - started, 2),
            "exit": done.returncode,
            "stderr": done.stderr.strip(),
            "load_before": round(load, 2),
        }
    return figures


def silent_wav(path: Path, seconds: int) -> Path:
    """`seconds` of silence at 16 kHz mono PCM16, written a minute at a time."""
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(16_000)
        for start in range(0, seconds, 60):
            out.writeframes(bytes(32_000 * min(60, seconds - start)))
    return path


def listening(code: Path, folder: Path) -> dict[str, Any]:
    folder.mkdir()
    figures: dict[str, Any] = {}
    for name, seconds in {"10 s of silence": 10, "1 hour of silence": HOUR_SECONDS}.items():
        recording = silent_wav(folder / f"silence_{seconds}.wav", seconds)
        load = os.getloadavg()[0]
        args = ["listen", "--audio-in", str(recording), "--fast", "--new-chat"]
        done = parley(code, folder, *args, wrap=("/usr/bin/time", "-v"))
        peak = re.search(r"Maximum resident set size \(kbytes\): (\d+)", done.stderr)
        wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", done.stderr)
        figures[name] = {
            "peak_rss_mb": None if peak is None else round(int(peak.group(1)) / 1024, 1),
            "wall": None if wall is None else wall.group(1),
            "exit": done.returncode,
            "load_before": round(load, 2),
        }
        recording.unlink()
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--code", type=Path, default=HERE, help="the checkout to measure (default: this one)")
    parser.add_argument("--label", default="after", help="the name of these figures in the results")
    args = parser.parse_args()
    results = json.loads(RESULTS.read_text(encoding="utf-8")) if RESULTS.exists() else {}
    with tempfile.TemporaryDirectory(prefix="parley-costs-") as folder:
        results[args.label] = {
            "memory search": searches(args.code.resolve(), Path(folder) / "search"),
            "listen --audio-in --fast": listening(args.code.resolve(), Path(folder) / "listen"),
            "cpus": os.cpu_count(),
        }
    RESULTS.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(results[args.label], indent=2))


if __name__ == "__main__":
    main()
