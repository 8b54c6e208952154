"""`parley` at the edges a user meets by mistake: every one gets one line saying what to do, never a
traceback, and nothing written over or lost."""

from __future__ import annotations

import json

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
