from __future__ import annotations

from pathlib import Path

import pytest

from ui.launcher import NO_DISPLAY, has_display, main


def test_without_a_display_parley_says_so_and_shows_where_the_chats_are(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM", "PARLEY_DATA_DIR"):
        monkeypatch.delenv(name, raising=False)
    config = tmp_path / "config.toml"
    config.write_text("", encoding="utf-8")
    monkeypatch.setenv("PARLEY_CONFIG", str(config))
    assert not has_display()
    assert main(["--data-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == NO_DISPLAY
    assert out[1] == f"Parley keeps 0 chats in {tmp_path / 'chats.sqlite3'}."


def test_subcommands_still_run_through_the_launcher(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "config.toml"
    config.write_text("", encoding="utf-8")
    monkeypatch.setenv("PARLEY_CONFIG", str(config))
    assert main(["--data-dir", str(tmp_path), "chats", "list", "--json"]) == 0
    assert capsys.readouterr().out.strip() == "[]"


@pytest.mark.parametrize("name", ["DISPLAY", "WAYLAND_DISPLAY"])
def test_a_desktop_session_has_a_display(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    for other in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"):
        monkeypatch.delenv(other, raising=False)
    monkeypatch.setenv(name, ":0")
    assert has_display()
