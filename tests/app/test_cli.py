"""`parley` as a user runs it: every chats command, its JSON, and its answers to bad input."""

from __future__ import annotations

import json
import os
import pty
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.app.conftest import Parley
from tests.fakes.openai_server import FAKE_API_KEY, FakeOpenAIServer


def kitchen_turns(exchanges: int) -> list[dict[str, Any]]:
    turns = []
    for i in range(exchanges):
        turns.append({"role": "user", "parts": [{"text": f"Kitchen renovation, step {i}: oak or walnut cabinets?"}]})
        turns.append({"role": "model", "parts": [{"text": f"For step {i}, Marco suggests oak; budget 18,500 euros."}]})
    return turns


JAPAN = [
    {"role": "user", "parts": [{"text": "I'm planning a two-week holiday in Japan next April."}]},
    {"role": "model", "parts": [{"text": "Kyoto in spring is lovely."}]},
    {"role": "user", "parts": [{"text": "Should I spend more days in Kyoto or Tokyo?"}]},
    {"role": "model", "parts": [{"text": "Split it evenly."}]},
]


def test_new_list_rename_show_delete(parley: Parley) -> None:
    chat_id = parley.json("chats", "new", "--title", "Groceries")["id"]
    [listed] = parley.json("chats", "list")
    assert (listed["id"], listed["title"], listed["turns"]) == (chat_id, "Groceries", 0)
    assert parley("chats", "rename", chat_id, "Weekly groceries")[0] == 0
    shown = parley.json("chats", "show", chat_id)
    assert shown["title"] == "Weekly groceries"
    assert shown["full_history"] == shown["assistant_history"] == []
    assert shown["summary_text"] is None and shown["summary_embedding"] is None
    assert parley("chats", "delete", chat_id)[0] == 0
    assert parley.json("chats", "list") == []


def test_folders_new_rename_move_list_delete(parley: Parley) -> None:
    work = parley.json("chats", "folder-new", "  Work ")
    assert (work["name"], work["chats"]) == ("Work", 0)
    code, home_id = parley("chats", "folder-new", "Home")
    home_id = home_id.strip()
    assert code == 0
    renamed = parley.json("chats", "folder-rename", home_id, "House")
    assert (renamed["id"], renamed["name"]) == (home_id, "House")
    report = parley.json("chats", "new", "--title", "Quarterly report")["id"]
    lunch = parley.json("chats", "new", "--title", "Lunch")["id"]
    assert parley.json("chats", "move", report, work["id"]) == {"id": report, "project_id": work["id"]}
    assert [(f["name"], f["chats"]) for f in parley.json("chats", "folders")] == [("House", 0), ("Work", 1)]
    assert [c["id"] for c in parley.json("chats", "list", "--folder", work["id"])] == [report]
    assert [c["id"] for c in parley.json("chats", "list", "--no-folder")] == [lunch]
    code, out = parley("chats", "folders")
    assert code == 0 and out == f"{home_id}     0 chats  House\n{work['id']}     1 chat  Work\n"
    assert parley("chats", "move", report, "--no-folder") == (0, f"Moved {report} out of its folder.\n")
    assert parley.json("chats", "list", "--folder", work["id"]) == []
    parley.json("chats", "move", lunch, home_id)
    assert parley.json("chats", "folder-delete", home_id) == {"id": home_id, "deleted": True}
    assert [f["id"] for f in parley.json("chats", "folders")] == [work["id"]]
    assert {c["id"] for c in parley.json("chats", "list", "--no-folder")} == {report, lunch}


def test_a_folder_name_twice_or_a_missing_folder_is_refused(parley: Parley) -> None:
    parley.json("chats", "folder-new", "Work")
    chat = parley.json("chats", "new")["id"]
    assert parley("chats", "folder-new", "WORK") == (1, "")
    assert parley.err == "parley: a folder named 'WORK' already exists\n"
    assert parley("chats", "move", chat, "missing") == (1, "")
    assert parley.err == "parley: no folder with id missing\n"
    assert parley.json("chats", "list", "--no-folder")[0]["id"] == chat


def test_import_compacts_a_long_chat(parley: Parley) -> None:
    turns = kitchen_turns(40)
    [report] = parley.json("chats", "import", parley.write("turns.json", turns))
    assert (report["turns"], report["compactions"]) == (80, 1)
    shown = parley.json("chats", "show", report["id"])
    assert shown["full_history"] == turns
    assert len(shown["assistant_history"]) == 13
    assert shown["assistant_history"][0]["summary"] is True
    assert shown["assistant_history"][1:] == turns[-12:]
    assert shown["summary_text"] == shown["assistant_history"][0]["parts"][0]["text"]
    assert "18,500" in shown["summary_text"]
    assert shown["summary_embedding_model"] == "all-MiniLM-L6-v2"
    assert len(shown["summary_embedding"]) == 384
    assert shown["title"]


def test_an_export_imports_back_turn_for_turn(parley: Parley) -> None:
    parley.json("chats", "import", parley.write("japan.json", JAPAN))
    parley.json("chats", "import", parley.write("kitchen.json", kitchen_turns(3)))
    out = parley.data_dir.parent / "export.json"
    assert parley("chats", "export", "--out", str(out))[0] == 0
    exported = json.loads(out.read_text(encoding="utf-8"))
    assert len(exported["chats"]) == 2
    reports = parley.json("chats", "import", str(out))
    assert len(reports) == 2
    histories = sorted(json.dumps(c["full_history"]) for c in exported["chats"])
    copies = sorted(json.dumps(parley.json("chats", "show", r["id"])["full_history"]) for r in reports)
    assert copies == histories


def test_markdown_export_reads_as_a_transcript(parley: Parley) -> None:
    parley.json("chats", "import", parley.write("japan.json", JAPAN))
    code, out = parley("chats", "export", "--format", "markdown")
    assert code == 0
    assert "**You:** I'm planning a two-week holiday in Japan next April." in out
    assert "**Parley:** Kyoto in spring is lovely." in out


def test_search_switches_asks_or_finds_nothing(parley: Parley) -> None:
    [japan] = parley.json("chats", "import", parley.write("japan.json", JAPAN))
    parley.json("chats", "import", parley.write("kitchen.json", kitchen_turns(3)))
    match = parley.json("chats", "search", "the chat about my vacation in Tokyo")
    assert match["outcome"] == "switch"
    assert match["chats"][0]["id"] == japan["id"]
    assert parley.json("chats", "search", "quantum chromodynamics")["outcome"] == "none"
    code, out = parley("chats", "search", "kitchen cabinets")
    assert code == 0 and out.startswith("One chat matches:")


def test_reembed_after_switching_to_openai(
    parley: Parley, openai_server: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    [report] = parley.json("chats", "import", parley.write("turns.json", kitchen_turns(20)))
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_API_KEY)
    monkeypatch.setenv("PARLEY_OPENAI_BASE_URL", openai_server.base_url)
    before = parley.json("chats", "search", "kitchen cabinets")
    assert before["chats"][0]["similarity"] is None  # local vectors are never compared with OpenAI's
    rebuilt = parley.json("chats", "reembed")
    assert rebuilt == {"model": "text-embedding-3-small@384", "vectors": 1, "topics_added": 0, "memories": 0}
    assert parley.json("chats", "show", report["id"])["summary_embedding_model"] == "text-embedding-3-small@384"
    after = parley.json("chats", "search", "kitchen cabinets")
    assert after["chats"][0]["similarity"] is not None
    assert parley.json("chats", "reembed")["vectors"] == 0


def test_welcome_says_where_the_chats_are(parley: Parley) -> None:
    code, out = parley()
    assert code == 0
    assert str(parley.data_dir / "chats.sqlite3") in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["chats", "show", "not-an-id"], "parley: not a chat id: 'not-an-id'\n"),
        (
            ["chats", "show", "00000000-0000-0000-0000-000000000000"],
            "parley: no chat with id 00000000-0000-0000-0000-000000000000\n",
        ),
        (["chats", "delete", "00000000-0000-0000-0000-000000000000"], None),
        (["chats", "import", "MISSING"], None),
        (["chats", "folder-new", "   "], "parley: a folder name cannot be blank\n"),
        (["chats", "folder-rename", "missing", "Name"], "parley: no folder with id missing\n"),
        (["chats", "folder-delete", "missing"], "parley: no folder with id missing\n"),
        (["chats", "list", "--folder", "missing"], "parley: no folder with id missing\n"),
        (["chats", "move", "00000000-0000-0000-0000-000000000000", "--no-folder"], None),
    ],
)
def test_bad_input_gets_one_line_and_changes_nothing(parley: Parley, args: list[str], message: str | None) -> None:
    parley.json("chats", "import", parley.write("japan.json", JAPAN))
    parley.json("chats", "folder-new", "Travel")
    before = parley.json("chats", "list"), parley.json("chats", "folders")
    code, out = parley(*args)
    assert code == 1
    assert out == ""
    assert parley.err.count("\n") == 1 and parley.err.startswith("parley: ")
    if message is not None:
        assert parley.err == message
    assert (parley.json("chats", "list"), parley.json("chats", "folders")) == before


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        ("[{", "is not valid JSON (Incomplete JSON content)"),
        ('[{"role": "robot", "parts": [{"text": "x"}]}]', "role must be 'user' or 'model'"),
        ('{"something": "else"}', "expected a list of turns"),
        ('[{"role": "user", "parts": []}]', "non-empty 'parts'"),
    ],
)
def test_a_bad_import_file_is_refused_whole(parley: Parley, content: str, fragment: str) -> None:
    path = parley.data_dir.parent / "bad.json"
    path.write_text(content, encoding="utf-8")
    code, _ = parley("chats", "import", str(path))
    assert code == 1
    assert fragment in parley.err and parley.err.count("\n") == 1
    assert parley.json("chats", "list") == []


def test_a_corrupt_database_is_reported_and_kept(parley: Parley) -> None:
    parley.data_dir.mkdir(parents=True)
    database = parley.data_dir / "chats.sqlite3"
    database.write_bytes(b"\x00garbage" * 512)
    code, _ = parley("chats", "list")
    assert code == 1
    assert parley.err.startswith(f"parley: the chat database {database} is damaged (file is not a database)")
    assert parley.err.count("\n") == 1 and "`parley chats repair`" in parley.err
    assert database.read_bytes() == b"\x00garbage" * 512


def test_keys_never_land_on_disk(parley: Parley, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", _Stdin("sk-test-secret-value-123456\n"))
    assert parley("keys", "set", "openai")[0] == 0
    code, out = parley("keys", "status")
    assert code == 0
    assert "openai   set in the keyring" in out
    on_disk = b"".join(p.read_bytes() for p in parley.data_dir.rglob("*") if p.is_file())
    assert b"sk-test-secret-value" not in on_disk


class _Stdin:
    def __init__(self, text: str) -> None:
        self._text = text

    def isatty(self) -> bool:
        return False

    def readline(self) -> str:
        return self._text


def test_the_installed_command_exits_1_with_one_line(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text("", encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "app.cli.main", "--data-dir", str(tmp_path), "chats", "show", "nope"],
        capture_output=True,
        text=True,
        env={"PARLEY_CONFIG": str(config), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
        check=False,
    )
    assert (result.returncode, result.stdout, result.stderr) == (1, "", "parley: not a chat id: 'nope'\n")
    with sqlite3.connect(tmp_path / "chats.sqlite3") as db:
        assert db.execute("SELECT count(*) FROM chats").fetchone() == (0,)


def test_memory_is_switched_per_chat(parley: Parley) -> None:
    chat = parley.json("chats", "new", "--title", "Private")["id"]
    assert parley.json("chats", "memory", chat, "off") == {"id": chat, "memory_enabled": False}
    assert parley("chats", "memory", chat, "on") == (0, f"Memory is on in {chat}.\n")
    code, out = parley("chats", "memory", "00000000-0000-0000-0000-000000000000", "off")
    assert (code, out) == (1, "")
    assert "no chat" in parley.err.lower()


def test_ctrl_d_at_the_key_prompt_stores_nothing_and_says_so(tmp_path: Path) -> None:
    # At a real terminal: getpass reads the controlling terminal, which only a pseudo-terminal gives.
    (tmp_path / "c.toml").write_text("", encoding="utf-8")
    pid, terminal = pty.fork()
    if pid == 0:  # the child: run `parley keys set gemini` with the pseudo-terminal as its terminal
        try:
            os.environ.update({"PARLEY_DATA_DIR": str(tmp_path / "data"), "PARLEY_CONFIG": str(tmp_path / "c.toml")})
            os.execv(sys.executable, [sys.executable, "-m", "app.cli.main", "keys", "set", "gemini"])
        finally:
            os._exit(127)  # never run the rest of the test session in the child
    said = _read_until(terminal, b"gemini API key: ")
    os.write(terminal, b"\x04")  # Ctrl-D
    said += _read_until(terminal, b"")
    _, status = os.waitpid(pid, 0)
    os.close(terminal)
    text = said.decode()
    assert os.waitstatus_to_exitcode(status) == 1
    assert "parley: the gemini key is empty; nothing was stored" in text
    assert "Traceback" not in text and "EOFError" not in text


def _read_until(terminal: int, marker: bytes) -> bytes:
    """What the terminal shows until `marker` (b"": until the child closes it)."""
    said = b""
    while not marker or marker not in said:
        try:
            chunk = os.read(terminal, 1024)
        except OSError:  # EIO: the child has exited and closed its side
            break
        if not chunk:
            break
        said += chunk
    return said


@pytest.mark.parametrize("command", [["chats", "list"], ["chats", "list", "--json"], ["memories", "list"]])
def test_a_reader_that_goes_away_ends_the_command_quietly(parley: Parley, command: list[str]) -> None:
    for i in range(3):
        parley.json("chats", "new", "--title", f"Chat {i}")
    environment = {**os.environ, "PARLEY_DATA_DIR": str(parley.data_dir)}
    child = subprocess.Popen(
        [sys.executable, "-m", "app.cli.main", *command],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=environment,
    )
    assert child.stdout is not None and child.stderr is not None
    child.stdout.close()  # `| head` that has read enough: every write from here on meets a closed pipe
    err = child.stderr.read().decode()
    assert child.wait() == 141
    assert err == ""


def test_a_chat_title_must_say_something_and_fit_a_line(parley: Parley) -> None:
    chat_id = parley.json("chats", "new", "--title", "Groceries")["id"]
    for title, said in (
        ("   ", "parley: a chat title cannot be blank\n"),
        ("x" * 10_000, "parley: a chat title is at most 120 characters, not 10000\n"),
    ):
        assert parley("chats", "rename", chat_id, title) == (1, "")
        assert parley.err == said
        assert parley("chats", "new", "--title", title) == (1, "")
    assert [chat["title"] for chat in parley.json("chats", "list")] == ["Groceries"]
    assert parley.json("chats", "rename", chat_id, "  Weekly\n   groceries ")["title"] == "Weekly groceries"
