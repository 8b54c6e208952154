"""Hostile input driven from the user's side: what came from an import or a memory never acts on the terminal,
and the JSON output keeps it exact."""

from __future__ import annotations

import io
import json
import os
import stat
import sys
from pathlib import Path

import keyring
import pytest

from app.cli.terminal import for_terminal
from chats.models import CONTROLS
from tests.app.conftest import Parley

ESCAPES = "\x1b[2J\x1b]0;owned\x07\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\"
"""Clear the screen, retitle the window, plant a link."""
OVERRIDE = "invoice\u202eexe.pdf"
"""A right-to-left override: shown raw, "invoice" then "fdp.exe" reversed."""


def raw_controls(text: str) -> list[str]:
    """The characters of `text` that would act on a terminal (newlines and tabs are text)."""
    return [c for c in CONTROLS.findall(text) if c not in "\n\t"]


def test_for_terminal_shows_every_control_as_its_escape_and_keeps_text() -> None:
    assert for_terminal("a\tb\nc") == "a\tb\nc"
    assert for_terminal("\x1b[2J") == "\\u001b[2J"
    assert for_terminal(OVERRIDE) == "invoice\\u202eexe.pdf"
    assert for_terminal("\x9b\x7f\r\u2066") == "\\u009b\\u007f\\u000d\\u2066"
    assert for_terminal("caffè, 東京, 😀") == "caffè, 東京, 😀"


def test_an_imported_chat_and_a_memory_never_act_on_the_terminal(parley: Parley) -> None:
    turns = [
        {"role": "user", "text": f"kitchen tiles {ESCAPES} {OVERRIDE}"},
        {"role": "model", "text": f"Tiles {ESCAPES}"},
    ]
    path = parley.write("import.json", {"title": f"Tiles {ESCAPES}", "full_history": turns})
    code, out = parley("chats", "import", path)
    assert code == 0, parley.err
    assert parley("memories", "add", f"I like tiles {OVERRIDE} {ESCAPES}")[0] == 0, parley.err
    chat = parley.json("chats", "list")[0]["id"]
    for command in (
        ("chats", "list"),
        ("chats", "show", chat),
        ("chats", "search", "kitchen tiles"),
        ("memories", "list"),
        ("memories", "search", "tiles"),
    ):
        code, out = parley(*command)
        assert code == 0, (command, parley.err)
        assert "tiles" in out.lower(), command
        assert raw_controls(out + parley.err) == [], command


def test_json_output_keeps_an_imported_turn_exact_and_the_title_is_cleaned(parley: Parley) -> None:
    said = f"kitchen {ESCAPES} {OVERRIDE}"
    turns = [{"role": "user", "text": said}, {"role": "model", "text": "Noted."}]
    path = parley.write("import.json", {"title": f"Tiles{ESCAPES} {OVERRIDE}", "full_history": turns})
    assert parley("chats", "import", path)[0] == 0, parley.err
    chat = parley.json("chats", "list")[0]
    assert chat["title"] == "Tiles[2J]0;owned]8;;https://evil.example\\click]8;;\\ invoiceexe.pdf"
    code, out = parley("chats", "show", chat["id"], "--json")
    assert code == 0 and raw_controls(out) == []
    assert json.loads(out)["full_history"][0]["parts"][0]["text"] == said


def test_a_title_or_folder_name_with_a_control_character_is_refused_in_one_line(parley: Parley) -> None:
    chat = parley.json("chats", "new", "--title", "Groceries")["id"]
    assert parley("chats", "rename", chat, f"Shopping{OVERRIDE}") == (1, "")
    assert parley.err == "parley: a chat title is one line, without control characters (it holds '\\u202e')\n"
    assert parley("chats", "new", "--title", "A\x1b[2J") == (1, "")
    assert parley.err == "parley: a chat title is one line, without control characters (it holds '\\x1b')\n"
    assert parley("chats", "folder-new", f"Work{OVERRIDE}") == (1, "")
    assert [c["title"] for c in parley.json("chats", "list")] == ["Groceries"]
    assert parley.json("chats", "folders") == []


@pytest.mark.parametrize("what", ["chats", "memories"])
def test_force_replaces_only_a_regular_file_and_writes_through_a_link(parley: Parley, what: str) -> None:
    parley.json("chats", "new", "--title", "Groceries")
    folder = parley.data_dir.parent
    pipe = folder / "pipe"
    os.mkfifo(pipe)
    for special, kind in ((pipe, "named pipe"), (Path("/dev/null"), "device")):
        assert parley(what, "export", "--out", str(special), "--force") == (1, "")
        assert parley.err == f"parley: --out {special} is a {kind}, not a file: choose a file to write\n"
    assert stat.S_ISFIFO(pipe.stat().st_mode) and stat.S_ISCHR(Path("/dev/null").stat().st_mode)
    target = folder / "notes.json"
    target.write_text("old\n", encoding="utf-8")
    link = folder / "latest.json"
    link.symlink_to(target)
    assert parley(what, "export", "--out", str(link), "--force")[0] == 0, parley.err
    assert link.is_symlink() and link.resolve() == target
    assert json.loads(target.read_text(encoding="utf-8"))


def test_a_key_with_a_line_break_is_refused_in_one_line_wherever_it_comes_from(
    parley: Parley, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", "AIza-good\r\nX-Injected: 1")
    assert parley("chats", "list") == (1, "")
    assert parley.err == "parley: the gemini key in GEMINI_API_KEY holds a line break: give it again without it\n"
    monkeypatch.delenv("GEMINI_API_KEY")
    monkeypatch.setattr(sys, "stdin", io.StringIO("sk-one two\n"))
    assert parley("keys", "set", "openai") == (1, "")
    assert parley.err == "parley: the openai key given holds a space: give it again without it\n"
    assert parley("keys", "status")[1].count("not set") == 2
    keyring.set_password("parley", "gemini_api_key", "AIza\x1bbad")  # written by another program
    assert parley("chats", "list") == (1, "")
    assert parley.err == (
        "parley: the gemini key in the OS keyring holds the control character U+001B: give it again without it\n"
    )


def test_an_imported_title_of_control_characters_alone_comes_untitled(parley: Parley) -> None:
    path = parley.write("import.json", {"title": "\x1b\u202e\x07", "full_history": [{"role": "user", "text": "Hi"}]})
    assert parley("chats", "import", path)[0] == 0, parley.err
    assert [chat["title"] for chat in parley.json("chats", "list")] == [None]
