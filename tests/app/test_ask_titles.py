"""A chat `parley ask` spoke in has its title when the command ends: every list shows it by name, not as
"New chat" until a window or `parley listen` maintains it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.cli.main import main


def parley(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_a_chat_made_by_ask_is_titled_when_the_command_ends(offline: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = parley(capsys, "ask", "Which tiles suit a small bathroom wall?", "--new-chat", "--json")
    assert code == 0, err
    chat_id = json.loads(out)["chat_id"]
    code, out, err = parley(capsys, "chats", "list", "--json")
    assert code == 0, err
    [listed] = json.loads(out)
    assert listed["id"] == chat_id
    assert listed["title"], listed  # the offline title maker's words, made before `ask` exited
