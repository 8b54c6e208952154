"""The terminal: what came from an import, a memory, a reminder or a model never acts on it (clears the screen,
retitles the window, plants a link, turns a name around); titles and folder names refuse control characters,
an import's are cleaned; the JSON output keeps the text exact."""

from __future__ import annotations

import json
from pathlib import Path

from app.cli.terminal import for_terminal
from tests.hostile.around import raw_controls
from tests.hostile.conftest import User

ESCAPES = "\x1b[2J\x1b]0;owned\x07\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\"
"""Clear the screen, retitle the window, plant a link."""
OVERRIDE = "invoice\u202eexe.pdf"
"""A right-to-left override: shown raw, "invoice" then "fdp.exe" reversed."""


def test_for_terminal_shows_every_control_as_its_escape_and_keeps_text() -> None:
    assert for_terminal("a\tb\nc") == "a\tb\nc"
    assert for_terminal("\x1b[2J") == "\\u001b[2J"
    assert for_terminal(OVERRIDE) == "invoice\\u202eexe.pdf"
    assert for_terminal("\x9b\x7f\r\u2066") == "\\u009b\\u007f\\u000d\\u2066"
    assert for_terminal("caffè, 東京, 😀") == "caffè, 東京, 😀"


def test_an_imported_chat_and_a_memory_never_act_on_the_terminal(user: User) -> None:
    turns = [
        {"role": "user", "text": f"kitchen tiles {ESCAPES} {OVERRIDE}"},
        {"role": "model", "text": f"Tiles {ESCAPES}"},
    ]
    path = user.write("import.json", {"title": f"Tiles {ESCAPES}", "full_history": turns})
    assert user("chats", "import", path)[0] == 0, user.err
    assert user("memories", "add", f"I like tiles {OVERRIDE} {ESCAPES}")[0] == 0, user.err
    chat = user.json("chats", "list")[0]["id"]
    for command in (
        ("chats", "list"),
        ("chats", "show", chat),
        ("chats", "search", "kitchen tiles"),
        ("memories", "list"),
        ("memories", "search", "tiles"),
    ):
        assert "tiles" in user.looked_at(*command).lower(), command  # `user` checks no control is printed raw


def test_json_output_keeps_an_imported_turn_exact_and_the_title_is_cleaned(user: User) -> None:
    said = f"kitchen {ESCAPES} {OVERRIDE}"
    turns = [{"role": "user", "text": said}, {"role": "model", "text": "Noted."}]
    path = user.write("import.json", {"title": f"Tiles{ESCAPES} {OVERRIDE}", "full_history": turns})
    assert user("chats", "import", path)[0] == 0, user.err
    chat = user.json("chats", "list")[0]
    assert chat["title"] == "Tiles[2J]0;owned]8;;https://evil.example\\click]8;;\\ invoiceexe.pdf"
    out = user.looked_at("chats", "show", chat["id"], "--json")
    assert json.loads(out)["full_history"][0]["parts"][0]["text"] == said


def test_a_title_or_folder_name_with_a_control_character_is_refused_in_one_line(user: User) -> None:
    chat = user.json("chats", "new", "--title", "Groceries")["id"]
    refusal = "a chat title is one line, without control characters (it holds '{}')"
    user.refused("chats", "rename", chat, f"Shopping{OVERRIDE}", line=refusal.format("\\u202e"))
    user.refused("chats", "new", "--title", "A\x1b[2J", line=refusal.format("\\x1b"))
    code, out = user("chats", "folder-new", f"Work{OVERRIDE}")
    assert (code, out) == (1, "") and user.err.count("\n") == 1
    assert [c["title"] for c in user.json("chats", "list")] == ["Groceries"]
    assert user.json("chats", "folders") == []


def test_an_imported_title_of_control_characters_alone_comes_untitled(user: User) -> None:
    path = user.write("import.json", {"title": "\x1b\u202e\x07", "full_history": [{"role": "user", "text": "Hi"}]})
    assert user("chats", "import", path)[0] == 0, user.err
    assert [chat["title"] for chat in user.json("chats", "list")] == [None]


def test_an_ask_reply_shows_a_reminder_s_escape_escaped(offline: Path, user: User) -> None:
    code, out = user("ask", f"Remind me in 10 minutes to call mum{ESCAPES}")
    assert code == 0, user.err
    assert "call mum\\u001b[2J" in out  # said back, shown escaped (`user` checks nothing is printed raw)
    code, out = user("timers", "--json")
    assert code == 0 and raw_controls(out) == []
    [reminder] = json.loads(out)
    assert reminder["label"].startswith("call mum\x1b[2J")  # kept as said
