"""How soon Ctrl-C or SIGTERM ends a `parley` command while an MCP server it started never answers:
`python -m bench.signals [--runs N] [--out FILE]`.

The server (`SILENT`) answers nothing, ignores its stdin closing and SIGTERM, and dies only killed: the worst
a tool server can do. `parley tools list` and `parley doctor` (which checks everything else at the same time)
start it and wait on it; once the server has written its pid,
SIGINT or SIGTERM is sent, and the seconds from the signal to Parley's exit are timed, with whether the
server was left running. Goal (issue 34): every command ends within 2 s of Ctrl-C or SIGTERM. Writes
bench/results/signals.json (with the machine's load) and prints a summary.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results"
SILENT = """\
import os, signal, sys, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
with open(sys.argv[1], "w") as started:
    started.write(str(os.getpid()))
sys.stdin.read()  # every request, unanswered, until its stdin closes: then it stays anyway
time.sleep(3600)
"""
"""A server that writes its pid to the file named by its argument, then answers nothing and dies only killed."""
START_WAIT_S = 120.0


def alive(pid: int) -> bool:
    """Whether process `pid` runs (a zombie no one has reaped is dead)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8").rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"


COMMANDS = (("tools", "list"), ("doctor",))
"""The commands that start every server in `mcp.json` and wait on them (`parley ask` with Gemini does too:
tests/hostile/test_tool_servers.py ends it by both signals against the fake Live service)."""


def one_run(folder: Path, command: tuple[str, ...], stop: signal.Signals) -> dict[str, Any]:
    pid_file = folder / "silent.pid"
    pid_file.unlink(missing_ok=True)
    (folder / "silent.py").write_text(SILENT, encoding="utf-8")
    servers = {"silent": {"command": sys.executable, "args": [str(folder / "silent.py"), str(pid_file)]}}
    (folder / "mcp.json").write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")
    (folder / "config.toml").write_text("", encoding="utf-8")
    env = {**os.environ, "PARLEY_CONFIG": str(folder / "config.toml"), "PARLEY_DATA_DIR": str(folder / "data")}
    child = subprocess.Popen(
        [sys.executable, "-m", "app.cli.main", *command],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + START_WAIT_S
    while not (pid_file.exists() and pid_file.read_text(encoding="utf-8")):
        if child.poll() is not None or time.monotonic() > deadline:
            raise SystemExit("parley ended, or never started the server")
        time.sleep(0.02)
    child.send_signal(stop)
    signalled = time.monotonic()
    child.wait(timeout=60)
    took = time.monotonic() - signalled
    server = int(pid_file.read_text(encoding="utf-8"))
    left = alive(server)
    if left:
        os.kill(server, signal.SIGKILL)
    return {"seconds": round(took, 3), "server_left_running": left, "exit": child.returncode}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--out", type=Path, default=RESULTS / "signals.json")
    args = parser.parse_args()
    load = os.getloadavg()[0]
    results: dict[str, Any] = {"load_1min_before": round(load, 2), "goal_s": 2.0}
    with tempfile.TemporaryDirectory() as scratch:
        for command in COMMANDS:
            name = " ".join(command)
            for stop in (signal.SIGINT, signal.SIGTERM):
                runs = [one_run(Path(scratch), command, stop) for _ in range(args.runs)]
                seconds = [run["seconds"] for run in runs]
                left = sum(run["server_left_running"] for run in runs)
                results.setdefault(name, {})[stop.name] = {
                    "p50_s": round(statistics.median(seconds), 3),
                    "max_s": max(seconds),
                    "servers_left_running": left,
                    "runs": runs,
                }
                print(
                    f"parley {name}, {stop.name}: p50 {statistics.median(seconds):.2f} s, max {max(seconds):.2f} s"
                    f" (goal 2 s), servers left running {left}"
                )
    results["load_1min_after"] = round(os.getloadavg()[0], 2)
    args.out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
