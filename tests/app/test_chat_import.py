"""`parley chats import` as a user runs it on large and odd files: atomic per chat, no copies on a retry,
progress only on a terminal, and text Python cannot encode repaired with one line."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import signal
import sqlite3
import struct
import subprocess
import sys
import termios
from pathlib import Path
from typing import Any

import pytest

from app.chat_import import MAINTAINED_INLINE, MODEL_VIEW_TURNS, model_view
from chats.models import Turn
from tests.app.conftest import Parley
from tests.app.test_cli import JAPAN, kitchen_turns

BIG_CHAT_TURNS = 30_000


def _export(*histories: list[dict[str, Any]]) -> dict[str, Any]:
    return {"format": "parley.chats/1", "chats": [{"title": None, "full_history": h} for h in histories]}


def _turn_counts(database: Path) -> list[int]:
    with sqlite3.connect(database) as db:
        return sorted(n for (n,) in db.execute("SELECT (SELECT count(*) FROM turns WHERE chat_id = c.id) FROM chats c"))


def test_a_killed_import_leaves_no_partial_chat_and_a_retry_makes_no_copy(tmp_path: Path) -> None:
    small, big = kitchen_turns(5), kitchen_turns(BIG_CHAT_TURNS // 2)
    source = tmp_path / "export.json"
    source.write_text(json.dumps(_export(small, big)), encoding="utf-8")
    (tmp_path / "config.toml").write_text("", encoding="utf-8")
    env = {"PARLEY_CONFIG": str(tmp_path / "config.toml"), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    command = [
        sys.executable,
        "-m",
        "app.cli.main",
        "--data-dir",
        str(tmp_path / "data"),
        "chats",
        "import",
        str(source),
    ]
    terminal, stderr = pty.openpty()  # a terminal, so the progress bar shows what is being done
    fcntl.ioctl(stderr, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))  # a terminal's size
    child = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=stderr)
    os.close(stderr)
    shown = b""
    while b"saving chat 2/2" not in shown:  # the big chat's transaction has begun: stop the import there
        shown += os.read(terminal, 4096)
    child.send_signal(signal.SIGKILL)
    child.wait()
    os.close(terminal)
    assert b"importing" in shown
    database = tmp_path / "data" / "chats.sqlite3"
    assert _turn_counts(database) == [len(small)]  # the small chat whole, nothing of the big one

    retry = subprocess.run([*command, "--json"], env=env, capture_output=True, text=True, check=False)
    assert (retry.returncode, retry.stderr) == (0, "")  # no terminal: no progress bar
    reports = json.loads(retry.stdout)
    assert [(r["turns"], r["new"]) for r in reports] == [(len(small), False), (len(big), True)]
    assert _turn_counts(database) == [len(small), len(big)]


def test_a_long_chat_is_compacted_from_what_the_model_sees(parley: Parley) -> None:
    turns = kitchen_turns(2_500)
    [report] = parley.json("chats", "import", parley.write("long.json", turns))
    assert (report["turns"], report["compactions"], report["new"]) == (5_000, 1, True)
    shown = parley.json("chats", "show", report["id"])
    assert shown["full_history"] == turns
    assert shown["assistant_history"][1:] == turns[-12:]
    assert shown["summary_text"] == shown["assistant_history"][0]["parts"][0]["text"]
    steps = [int(step) for step in re.findall(r"step (\d+)", shown["summary_text"])]
    assert steps and min(steps) >= 2_440  # from the 108 turns before the tail, not from every turn
    with sqlite3.connect(parley.data_dir / "chats.sqlite3") as db:  # recall vectors: left to the backfill
        assert db.execute("SELECT count(*) FROM turn_vectors").fetchone() == (0,)
    assert parley.json("chats", "import", parley.write("long.json", turns))[0]["new"] is False
    assert len(parley.json("chats", "list")) == 1


def test_the_model_view_starts_at_the_last_summary() -> None:
    turns = [Turn(role="user", text=f"turn {i}") for i in range(300)]
    summary = Turn(role="model", text="what came before", summary=True)
    assert model_view(turns[:100]) == tuple(turns[:100])  # a few windows: summarised whole
    assert model_view(turns) == tuple(turns[-MODEL_VIEW_TURNS:])
    assert model_view([*turns, summary, *turns[:5]]) == (summary, *turns[:5])
    assert model_view([*turns[:50], summary, *turns]) == (summary, *turns[-MODEL_VIEW_TURNS:])


def test_a_lone_surrogate_is_repaired_with_one_line(parley: Parley) -> None:
    path = parley.data_dir.parent / "surrogate.json"
    path.write_text(
        '[{"role": "user", "parts": [{"text": "caf\\ud800 au lait"}]},'
        ' {"role": "model", "parts": [{"text": "a smile \\ud83d\\ude00"}]}]',
        encoding="utf-8",
    )
    code, out = parley("chats", "import", str(path), "--json")
    assert code == 0
    assert parley.err == (
        f"parley: {path}: 1 text(s) held lone surrogates, which are not Unicode text;"
        " each was imported with U+FFFD in its place\n"
    )
    [report] = json.loads(out)
    history = parley.json("chats", "show", report["id"])["full_history"]
    assert [turn["parts"][0]["text"] for turn in history] == ["caf\ufffd au lait", "a smile \U0001f600"]
    assert len(parley.json("chats", "list")) == 1


def test_turns_written_with_a_text_field_are_imported_as_the_spec_writes_them(parley: Parley) -> None:
    path = parley.write(
        "handwritten.json",
        [{"role": "user", "text": "Which paint for a bathroom?"}, {"role": "model", "text": "A satin finish."}],
    )
    code, out = parley("chats", "import", path, "--json")
    assert code == 0, parley.err
    [report] = json.loads(out)
    history = parley.json("chats", "show", report["id"])["full_history"]
    assert [(t["role"], t["parts"]) for t in history] == [
        ("user", [{"text": "Which paint for a bathroom?"}]),
        ("model", [{"text": "A satin finish."}]),
    ]


def test_a_bad_chat_late_in_an_export_refuses_the_whole_file(parley: Parley) -> None:
    broken = [{"role": "user", "parts": [{"text": "fine"}]}, {"role": "robot", "parts": [{"text": "x"}]}]
    code, _ = parley("chats", "import", parley.write("export.json", _export(JAPAN, broken)))
    assert code == 1
    assert parley.err.endswith("chat 2, turn 2: a turn's role must be 'user' or 'model', not 'robot'\n")
    assert parley.json("chats", "list") == []


def test_a_memory_with_a_lone_surrogate_is_refused_in_one_line(parley: Parley) -> None:
    code, out = parley("memories", "add", "User drinks caf\udce9 au lait every morning")
    assert (code, out) == (1, "")
    assert parley.err == "parley: Content holds a character that is not text (a lone surrogate): save it without it\n"
    assert parley.json("memories", "list") == []
    saved = parley.json("memories", "add", "User sends \ud83d\ude00 to friends")  # a pair split in two: joined
    assert parley.json("memories", "list")[0]["content"] == "User sends \U0001f600 to friends"
    assert saved


def test_an_exported_chat_keeps_what_its_model_saw(parley: Parley) -> None:
    [first] = parley.json("chats", "import", parley.write("long.json", kitchen_turns(200)))
    out = parley.data_dir.parent / "export.json"
    assert parley("chats", "export", "--out", str(out))[0] == 0
    [again] = parley.json("chats", "import", str(out), "--as-new")  # a copy beside it (without: itself, found)
    assert (again["new"], again["compactions"]) == (True, 0)  # its summary is kept, not written again
    original, copy = (parley.json("chats", "show", report["id"]) for report in (first, again))
    for field in ("full_history", "assistant_history", "summary_text", "summary_embedding", "title"):
        assert copy[field] == original[field], field


def test_a_text_model_out_of_reach_leaves_the_offline_writer_to_title_the_chats_and_says_so_once(
    parley: Parley, monkeypatch: pytest.MonkeyPatch, unused_tcp_port: int
) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", "AIzaSyFakeKeyForAnUnreachableService00000")
    monkeypatch.setenv("PARLEY_GEMINI_BASE_URL", f"https://127.0.0.1:{unused_tcp_port}")  # nobody listens there
    monkeypatch.setenv("PARLEY_EMBEDDER", "local")
    [report] = parley.json("chats", "import", parley.write("japan.json", JAPAN))
    assert report["turns"] == len(JAPAN)
    # Degrade, never die: the offline writer titles the chat, and one line says Gemini's part degraded.
    assert parley.err.count("Gemini summaries and titles degraded") == 1 and "AIza" not in parley.err
    assert "without their summary or title" not in parley.err
    [shown] = parley.json("chats", "list")
    assert (shown["id"], shown["turns"]) == (report["id"], len(JAPAN)) and shown["title"]


def test_an_imported_chats_id_is_its_installations_own(
    parley: Parley, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    file = parley.write("japan.json", JAPAN)
    [first] = parley.json("chats", "import", file)
    assert parley.json("chats", "import", file)[0]["id"] == first["id"]  # again here: found, not copied
    elsewhere = Parley(tmp_path / "another-laptop", capsys)
    [other] = elsewhere.json("chats", "import", file)
    # Another installation's import of the same file: a Supabase project both sync into holds both chats.
    assert other["id"] != first["id"]


def test_a_large_import_leaves_titles_and_topics_to_the_background(parley: Parley) -> None:
    count = MAINTAINED_INLINE + 1
    chats = [[*kitchen_turns(1), {"role": "user", "parts": [{"text": f"Chat number {n}."}]}] for n in range(count)]
    code, out = parley("chats", "import", parley.write("many.json", _export(*chats)))
    assert code == 0
    assert out.endswith(f"{count} chat(s) read: {count} new, 0 already here; {3 * count} turn(s) in the file.\n")
    assert parley.err == (
        f"parley: {count} chats imported; their titles, topics and summaries are made in the background while"
        " Parley listens (the window or `parley listen`)\n"
    )
    listed = parley.json("chats", "list", "--limit", str(count + 1))
    assert len(listed) == count and {chat["title"] for chat in listed} == {None}  # made by the backfill, later
