"""`save_config`: changes land in the file, and what `load_settings` would refuse never does."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from app.config.config_file import SettingsError
from app.config.config_writer import save_config
from app.config.settings import load_settings
from tests.app import MemoryKeyring, using_keyring


def read_table(path: Path) -> dict[str, object]:
    return tomllib.loads(path.read_text(encoding="utf-8"))


def test_a_missing_file_is_created_with_the_changes(tmp_path: Path) -> None:
    config = tmp_path / "folder" / "config.toml"
    save_config(config, {"wake_word": "alexa", "wake_threshold": 0.7, "input_device": "USB Mic"})
    assert read_table(config) == {"wake_word": "alexa", "wake_threshold": 0.7, "input_device": "USB Mic"}


def test_changes_keep_the_other_keys_and_none_removes_a_key(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('user_id = "ana"\nwake_word = "alexa"\nidle_seconds = 12.5\n', encoding="utf-8")
    save_config(config, {"wake_word": None, "idle_seconds": 30.0, "gemini_live_model": "live-2"})
    assert read_table(config) == {"user_id": "ana", "idle_seconds": 30.0, "gemini_live_model": "live-2"}


def test_removing_a_key_the_file_lacks_is_no_error(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    save_config(config, {"output_device": None})
    assert read_table(config) == {}


def test_load_settings_sees_what_was_saved(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    save_config(
        config,
        {"wake_threshold": 0.35, "idle_seconds": 20.0, "output_device": "Headset", "gemini_live_model": "live-x"},
    )
    with using_keyring(MemoryKeyring()):
        settings = load_settings({"config_file": str(config)}, env={})
    assert settings.wake_threshold == 0.35
    assert settings.idle_seconds == 20.0
    assert settings.output_device == "Headset"
    assert settings.input_device is None
    assert settings.gemini_live_model == "live-x"


@pytest.mark.parametrize("key", ["gemini_api_key", "openai_api_key", "api_key", "proxy_password", "token"])
def test_a_secret_looking_key_is_refused_and_its_value_never_written(tmp_path: Path, key: str) -> None:
    config = tmp_path / "config.toml"
    config.write_text('user_id = "ana"\n', encoding="utf-8")
    before = config.read_bytes()
    with pytest.raises(SettingsError, match="looks like a secret") as raised:
        save_config(config, {key: "sk-very-secret-value"})
    assert "sk-very-secret-value" not in str(raised.value)
    assert config.read_bytes() == before


def test_an_unknown_key_is_refused_with_a_suggestion(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    with pytest.raises(SettingsError, match="unknown setting 'wake_wrod' \\(did you mean 'wake_word'\\?\\)"):
        save_config(config, {"wake_wrod": "alexa"})
    assert not config.exists()


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"idle_seconds": -1.0}, "'idle_seconds' must be greater than 0"),
        ({"embedder": "cloud"}, "'embedder' must be one of auto, local, openai"),
        ({"gemini_base_url": "ftp://example.com"}, "must start with http:// or https://"),
        ({"wake_word": "   "}, "'wake_word' must not be empty"),
    ],
)
def test_a_value_load_settings_would_refuse_is_not_written(
    tmp_path: Path, changes: dict[str, str | float], message: str
) -> None:
    config = tmp_path / "config.toml"
    config.write_text('wake_word = "alexa"\n', encoding="utf-8")
    before = config.read_bytes()
    with pytest.raises(SettingsError, match=message):
        save_config(config, changes)
    assert config.read_bytes() == before


def test_a_broken_file_is_reported_not_overwritten(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text("wake_word = \n", encoding="utf-8")
    with pytest.raises(SettingsError, match="invalid TOML at line 1"):
        save_config(config, {"wake_word": "alexa"})
    assert config.read_text(encoding="utf-8") == "wake_word = \n"


def test_a_file_already_holding_a_secret_is_refused(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('openai_api_key = "sk-old"\n', encoding="utf-8")
    with pytest.raises(SettingsError, match="looks like a secret") as raised:
        save_config(config, {"wake_word": "alexa"})
    assert "sk-old" not in str(raised.value)


def test_no_temporary_file_is_left_behind(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    save_config(config, {"user_id": "ana"})
    save_config(config, {"user_id": "bo"})
    assert [child.name for child in tmp_path.iterdir()] == ["config.toml"]
