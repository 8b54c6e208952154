"""`parley` at the edges a user meets by mistake: every one gets one line saying what to do, never a
traceback, and nothing written over or lost."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.app.conftest import Parley


@pytest.mark.parametrize("what", ["chats", "memories"])
def test_an_export_into_a_folder_or_a_missing_folder_says_what_to_do(parley: Parley, what: str) -> None:
    parley.json("chats", "new", "--title", "Groceries")
    folder = parley.data_dir.parent
    assert parley(what, "export", "--out", str(folder)) == (1, "")
    assert parley.err == (
        f"parley: --out {folder} is a folder: give a file name in it, such as {folder / 'export.json'}\n"
    )
    missing = folder / "missing" / "export.json"
    assert parley(what, "export", "--out", str(missing)) == (1, "")
    assert parley.err == f"parley: --out {missing}: the folder {missing.parent} does not exist; make it first\n"
    assert not missing.parent.exists()


@pytest.mark.parametrize("what", ["chats", "memories"])
def test_an_export_never_overwrites_a_file_unless_forced(parley: Parley, what: str) -> None:
    parley.json("chats", "new", "--title", "Groceries")
    out = parley.data_dir.parent / "export.json"
    out.write_text("my notes\n", encoding="utf-8")
    assert parley(what, "export", "--out", str(out)) == (1, "")
    assert parley.err == f"parley: --out {out} already exists: add --force to replace it, or choose another file\n"
    assert out.read_text(encoding="utf-8") == "my notes\n"
    code, _ = parley(what, "export", "--out", str(out), "--force")
    assert code == 0, parley.err
    exported = json.loads(out.read_text(encoding="utf-8"))
    assert exported["format"].startswith(f"parley.{what}/")
    assert [p.name for p in out.parent.iterdir() if p.name.startswith(".export")] == []  # no temporary left


@pytest.mark.parametrize("threshold", ["7", "1", "0", "-0.5"])
def test_a_wake_threshold_outside_0_to_1_is_refused_at_load(
    parley: Parley, threshold: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PARLEY_WAKE_THRESHOLD", threshold)
    assert parley("doctor") == (1, "")
    assert parley.err == (
        f"parley: environment variable PARLEY_WAKE_THRESHOLD must be between 0 and 1, such as 0.5 (got {threshold!r})\n"
    )
    monkeypatch.delenv("PARLEY_WAKE_THRESHOLD")
    config = parley.data_dir.parent / "config.toml"
    config.write_text(f"wake_threshold = {threshold}\n", encoding="utf-8")
    assert parley("listen") == (1, "")
    assert parley.err == (
        f"parley: {config}: setting 'wake_threshold' must be between 0 and 1, such as 0.5 (got {threshold!r})\n"
    )


def test_a_data_folder_that_is_a_file_is_named_as_such(parley: Parley) -> None:
    parley.data_dir.write_text("not a folder\n", encoding="utf-8")
    assert parley("chats", "list") == (1, "")
    assert parley.err == (
        f"parley: the data folder {parley.data_dir} is a file, not a folder: choose another with "
        "PARLEY_DATA_DIR or --data-dir\n"
    )


WITHOUT_ROOTS_PASS = ["setpriv", "--bounding-set=-dac_override,-dac_read_search", "--"]
"""Root writes through any file mode; without these two capabilities it meets modes as their owner does."""


@pytest.fixture
def read_only_after(tmp_path: Path) -> Iterator[Path]:
    """A folder made read-only by the test; writable again at the end, for pytest to remove."""
    yield tmp_path
    for path in [tmp_path, *tmp_path.rglob("*")]:
        path.chmod(stat.S_IMODE(path.stat().st_mode) | stat.S_IWUSR)


def _parley(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    as_user = WITHOUT_ROOTS_PASS if os.geteuid() == 0 else []
    return subprocess.run(
        [*as_user, sys.executable, "-m", "app.cli.main", "--data-dir", str(folder / "data"), *args],
        capture_output=True,
        text=True,
        env={"PARLEY_CONFIG": str(folder / "config.toml"), "PATH": "/usr/bin:/bin", "HOME": str(folder)},
        cwd=Path(__file__).resolve().parents[2],
        check=False,
    )


def test_a_read_only_data_folder_is_read_and_exported_and_refuses_changes(read_only_after: Path) -> None:
    folder = read_only_after
    (folder / "config.toml").write_text("", encoding="utf-8")
    made = _parley(folder, "chats", "new", "--title", "Groceries")
    assert made.returncode == 0, made.stderr
    chat_id = made.stdout.strip()
    data = folder / "data"
    for path in [data, *data.rglob("*")]:
        path.chmod(stat.S_IMODE(path.stat().st_mode) & ~0o222)
    assert not (data / "chats.sqlite3-wal").exists()  # a clean close leaves no WAL: read without a -shm

    listed = _parley(folder, "chats", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    assert "log file" not in listed.stderr  # not on every command: the doctor says it (below)
    assert [chat["id"] for chat in json.loads(listed.stdout)] == [chat_id]
    shown = _parley(folder, "chats", "show", chat_id, "--json")
    assert json.loads(shown.stdout)["title"] == "Groceries", shown.stderr
    out = folder / "export.json"
    exported = _parley(folder, "chats", "export", "--out", str(out))
    assert exported.returncode == 0, exported.stderr
    assert [chat["title"] for chat in json.loads(out.read_text(encoding="utf-8"))["chats"]] == ["Groceries"]

    renamed = _parley(folder, "chats", "rename", chat_id, "Weekly groceries")
    assert renamed.returncode == 1
    assert renamed.stderr.splitlines()[-1] == (
        f"parley: the chat database {data / 'chats.sqlite3'} is read-only here (its folder or file cannot be"
        " written): it can be listed, shown and exported, not changed; make it writable to change it"
    )
    doctor = _parley(folder, "doctor")
    assert "Traceback" not in doctor.stderr
    assert "read-only here: they can be read and exported, not changed, and no log file is written" in doctor.stdout
    assert (
        f"PROBLEM  listening    cannot write in the data folder {data} (Permission denied): Parley needs it writable"
        in doctor.stdout
    )
    assert sorted(p.name for p in data.iterdir()) == [
        "chats.sqlite3",
        "chats.sqlite3-checked",
        "installation-id",
        "logs",
    ]


HELLO = [{"role": "user", "parts": [{"text": "Hello there, Parley."}]}]


def test_an_import_keeps_to_the_rules_of_titles_folders_and_turns(parley: Parley) -> None:
    for data, said in (
        ({"title": "x" * 5000, "full_history": HELLO}, "a chat's 'title' is at most 120 characters, not 5000"),
        ([], "the list of turns is empty: there is nothing to import"),
        ({"title": "Nothing", "full_history": []}, "the chat's 'full_history' is empty: there is nothing to import"),
        (
            {"format": "parley.chats/2", "folders": [{"name": "Work\nHome"}], "chats": []},
            "folder 1: a folder name is one line, without control characters (it holds '\\n')",
        ),
    ):
        path = parley.write("import.json", data)
        assert parley("chats", "import", path) == (1, "")
        assert parley.err == f"parley: {path}: {said}\n"
    assert parley.json("chats", "list") == []
    assert parley.json("chats", "folders") == []


def test_a_folder_name_is_one_line(parley: Parley) -> None:
    assert parley("chats", "folder-new", "Work\nHome") == (1, "")
    assert parley.err == "parley: a folder name is one line, without control characters (it holds '\\n')\n"
    folder = parley.json("chats", "folder-new", "Work")["id"]
    assert parley("chats", "folder-rename", folder, "Work\tHome") == (1, "")
    assert [f["name"] for f in parley.json("chats", "folders")] == ["Work"]


def test_an_import_with_a_byte_order_mark_is_read(parley: Parley) -> None:
    path = parley.data_dir.parent / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(HELLO).encode("utf-8"))
    assert parley.json("chats", "import", str(path))[0]["turns"] == 1
    [chat] = parley.json("chats", "list")
    assert parley.json("chats", "show", chat["id"])["full_history"][0]["parts"] == [{"text": "Hello there, Parley."}]


def test_an_import_nested_too_deep_or_too_long_is_refused_at_once(parley: Parley) -> None:
    deep = parley.data_dir.parent / "deep.json"
    deep.write_text("[" * 30_000 + "]" * 30_000, encoding="utf-8")  # 60 KB: once 39 s and 4.5 GB
    assert parley("chats", "import", str(deep)) == (1, "")
    assert parley.err == f"parley: {deep} nests more than 64 levels deep, which no chat does: it is not an import\n"
    assert parley("memories", "import", str(deep)) == (1, "")
    assert parley.err == f"parley: {deep} nests too deep to be a memories export\n"
    long = parley.write("long.json", [{"role": "user", "parts": [{"text": "a" * 1_000_001}]}])
    assert parley("chats", "import", long) == (1, "")
    assert parley.err == (
        f"parley: {long} holds a text of 1,000,001 characters; an import's texts are at most 1,000,000\n"
    )
    assert parley.json("chats", "list") == []


def test_a_list_of_turns_is_dated_by_its_messages(parley: Parley) -> None:
    said = [
        ("user", "Shall we paint the kitchen green?", "2024-03-01T09:00:00+00:00"),
        ("model", "Sage green suits oak.", "2024-03-01T09:00:05+00:00"),
        ("user", "Sage it is.", "2024-03-02T18:30:00+00:00"),
    ]
    turns = [{"role": role, "parts": [{"text": text}], "at": at} for role, text, at in said]
    path = parley.write("kitchen.json", turns)
    [report] = parley.json("chats", "import", path)
    assert (report["turns"], report["added"], report["new"]) == (3, 3, True)
    [chat] = parley.json("chats", "list")
    assert (chat["created_at"], chat["last_activity_at"]) == ("2024-03-01T09:00:00+00:00", "2024-03-02T18:30:00+00:00")
    shown = parley.json("chats", "show", chat["id"])
    assert [turn["parts"][0]["text"] for turn in shown["full_history"]] == [text for _, text, _ in said]
    assert parley.json("chats", "import", path)[0] == {**report, "added": 0, "new": False}  # again: no change
    assert len(parley.json("chats", "show", chat["id"])["full_history"]) == 3


def test_config_shows_the_values_in_force_where_they_come_from_and_no_secret(
    parley: Parley, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = parley.data_dir.parent / "config.toml"
    config.write_text("idle_seconds = 4\nwake_word = 'alexa'\n", encoding="utf-8")
    monkeypatch.setenv("PARLEY_WAKE_WORD", "hey_mycroft")
    monkeypatch.setenv("GEMINI_API_KEY", "a-secret-gemini-key")
    code, out = parley("--embedder", "local", "config")
    assert code == 0, parley.err
    shown = {line.split()[0]: line.split()[1:] for line in out.split("\n\n")[1].splitlines()}
    assert shown["idle_seconds"] == ["4.0", "config", "file"]
    assert shown["wake_word"] == ["hey_mycroft", "environment", "PARLEY_WAKE_WORD"]
    assert shown["embedder"] == ["local", "command", "line"]
    assert shown["wake_threshold"] == ["0.5", "default"]
    assert shown["gemini_api_key"] == ["(set)", "environment"]
    assert shown["openai_api_key"] == ["-", "not", "set"]
    assert "a-secret-gemini-key" not in out


@pytest.mark.parametrize(("said", "kept"), [("I'm vegan", "User is vegan"), ("I am vegan", "User is vegan")])
def test_a_short_diet_is_kept_in_the_third_person_as_a_preloaded_preference(
    parley: Parley, said: str, kept: str
) -> None:
    added = parley.json("memories", "add", said)
    assert (added["content"], added["category"]) == (kept, "preference")
    [listed] = parley.json("memories", "list")
    assert (listed["content"], listed["category"], listed["importance"]) == (kept, "preference", 9)
    assert parley("memories", "add", "I'm 5") == (1, "")  # "User is 5": still too short once rewritten
    assert parley.err == "parley: Content too short (minimum 10 characters)\n"
