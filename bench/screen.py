"""Looking at the screen, timed: `python -m bench.screen [--out FILE]`; writes bench/results/screen.json with the
machine's load and prints a summary.

- take_x11: `app.screen.grab.take_screen` on an Xvfb screen of each size (mss reads it over XCB, QImage scales
  and writes the JPEG): what the user waits between the model's call and the picture leaving, capture
  included. Xvfb's screen is black, so the JPEG's size here says nothing.
- focus_x11: `app.screen.active_window.focus` alone (python-xlib: which window is active, its frame, else the
  pointer), the part of take_x11 that chooses what to take.
- encode: `picture_of_pixels` alone on a synthetic desktop of each size (fixed seed: flat panels and lines
  of "text" noise, which JPEG finds about as hard as a real screen): the time and the bytes sent.
Goal: the screen taken and encoded within 500 ms at p95 on 4K, so the model's answer does not seem to wait.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import time
from pathlib import Path
from typing import Any

import numpy as np

from app.screen.active_window import focus
from app.screen.grab import take_screen
from app.screen.picture import picture_of_pixels
from tests.fakes.virtual_screen import virtual_screen

RESULTS = Path(__file__).resolve().parent / "results"
SIZES = ((1920, 1080), (2560, 1440), (3840, 2160))
RUNS = 15
SEED = 36
GOAL_P95_MS = 500.0


def desktop(width: int, height: int, rng: np.random.Generator) -> bytes:
    """BGRA pixels: a light background, a few flat panels, and rows of dark dashes of random length (text)."""
    image = np.full((height, width, 4), 245, dtype=np.uint8)
    for _ in range(6):
        x, y = int(rng.integers(0, width - 200)), int(rng.integers(0, height - 200))
        image[y : y + int(rng.integers(100, height // 2)), x : x + int(rng.integers(200, width // 2)), :3] = (
            rng.integers(120, 250, 3)
        )
    for row in range(40, height - 20, 22):
        x = 30
        while x < width - 60:
            length = int(rng.integers(8, 60))
            image[row : row + 9, x : x + length, :3] = rng.integers(0, 80)
            x += length + int(rng.integers(6, 14))
    return image.tobytes()


def spread(times_ms: list[float]) -> dict[str, float]:
    ordered = sorted(times_ms)
    return {
        "p50_ms": round(statistics.median(ordered), 1),
        "p95_ms": round(ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))], 1),
        "max_ms": round(ordered[-1], 1),
    }


async def take_x11(width: int, height: int) -> dict[str, Any]:
    times = []
    with virtual_screen(f"{width}x{height}x24") as display:
        for _ in range(RUNS):
            started = time.perf_counter()
            picture = (await take_screen({"DISPLAY": display})).picture
            times.append((time.perf_counter() - started) * 1000)
    return {**spread(times), "runs": RUNS, "sent_px": [picture.width, picture.height]}


def focus_x11(width: int, height: int) -> dict[str, Any]:
    times = []
    with virtual_screen(f"{width}x{height}x24") as display:
        for _ in range(RUNS):
            started = time.perf_counter()
            focus(display)
            times.append((time.perf_counter() - started) * 1000)
    return {**spread(times), "runs": RUNS}


def encode(width: int, height: int, rng: np.random.Generator) -> dict[str, Any]:
    pixels = desktop(width, height, rng)
    times = []
    for _ in range(RUNS):
        started = time.perf_counter()
        picture = picture_of_pixels(pixels, width, height)
        times.append((time.perf_counter() - started) * 1000)
    return {**spread(times), "runs": RUNS, "sent_px": [picture.width, picture.height], "jpeg_bytes": len(picture.jpeg)}


async def measure() -> dict[str, Any]:
    rng = np.random.default_rng(SEED)
    results: dict[str, Any] = {"loadavg": os.getloadavg(), "cpus": os.cpu_count(), "goal_p95_ms": GOAL_P95_MS}
    results["take_x11"] = {f"{w}x{h}": await take_x11(w, h) for w, h in SIZES}
    results["focus_x11"] = {f"{w}x{h}": focus_x11(w, h) for w, h in SIZES[:1]}
    results["encode"] = {f"{w}x{h}": encode(w, h, rng) for w, h in SIZES}
    return results


def report(results: dict[str, Any]) -> None:
    print(f"load average {results['loadavg'][0]:.1f} on {results['cpus']} cores")
    for part in ("take_x11", "focus_x11", "encode"):
        for size, seen in results[part].items():
            verdict = "meets" if seen["p95_ms"] <= results["goal_p95_ms"] else "MISSES"
            sent = f" -> {'x'.join(map(str, seen['sent_px']))}" if "sent_px" in seen else ""
            extra = f", {seen['jpeg_bytes'] // 1024} KB" if "jpeg_bytes" in seen else ""
            print(
                f"{part} {size}: p50 {seen['p50_ms']} ms, p95 {seen['p95_ms']} ms{sent}{extra} "
                f"({verdict} the goal p95 <= {results['goal_p95_ms']:.0f} ms)"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--out", type=Path, default=RESULTS / "screen.json")
    args = parser.parse_args()
    results = asyncio.run(measure())
    args.out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    report(results)


if __name__ == "__main__":
    main()
