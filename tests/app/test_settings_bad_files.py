"""A config file or variable the loader cannot take: each error names the file and line, the key or the variable,
and never echoes a secret; the values it normalises."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.config.config_file import SettingsError
from app.config.settings import load_settings
from tests.app.settings_files import GEMINI_KEY, OPENAI_KEY, load

pytestmark = pytest.mark.usefixtures("memory_keyring")
"""Every test here gets an empty in-memory keyring (tests/app/conftest.py): the real one is never read."""


def test_toml_syntax_error_names_file_and_line(config: Path) -> None:
    config.write_text('user_id = "ok"\nembedder = \n', encoding="utf-8")
    with pytest.raises(SettingsError, match="invalid TOML") as caught:
        load(config)
    assert str(caught.value).startswith(f"{config}: invalid TOML at line 2, column")
    assert "\n" not in str(caught.value)


def test_unknown_key_names_file_and_key(config: Path) -> None:
    config.write_text('user_id = "ok"\nembeder = "local"\n', encoding="utf-8")
    with pytest.raises(SettingsError) as caught:
        load(config)
    assert str(caught.value) == f"{config}: unknown setting 'embeder' (did you mean 'embedder'?)"


def test_config_file_is_not_a_config_key(config: Path) -> None:
    config.write_text('config_file = "/elsewhere.toml"\n', encoding="utf-8")
    with pytest.raises(SettingsError, match=f"^{config}: unknown setting 'config_file'"):
        load(config)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("user_id = 3", "setting 'user_id' must be a string, not an integer"),
        ("embedder = true", "setting 'embedder' must be a string, not a boolean"),
        ("log_level = [1]", "setting 'log_level' must be a string, not an array"),
        ("data_dir = {path = 'x'}", "setting 'data_dir' must be a string, not a table"),
        ('embedder = "cloud"', "setting 'embedder' must be one of auto, local, openai, gemini (got 'cloud')"),
        ('log_level = "loud"', "setting 'log_level' must be one of DEBUG, INFO, WARNING, ERROR, CRITICAL"),
        ('gemini_base_url = "ftp://x"', "setting 'gemini_base_url' must start with http:// or https://"),
        ('user_id = ""', "setting 'user_id' must not be empty"),
    ],
)
def test_bad_values_name_file_and_key(config: Path, line: str, message: str) -> None:
    config.write_text(line + "\n", encoding="utf-8")
    with pytest.raises(SettingsError) as caught:
        load(config)
    assert str(caught.value).startswith(f"{config}: {message}")


def test_an_unreadable_config_file_is_a_settings_error(tmp_path: Path) -> None:
    with pytest.raises(SettingsError, match=f"^{tmp_path}: cannot read the config file"):
        load_settings(env={"PARLEY_CONFIG": str(tmp_path)})  # a folder, not a file


def test_a_config_file_that_is_not_utf8_is_a_settings_error(config: Path) -> None:
    config.write_bytes(b'user_id = "\xff"\n')
    with pytest.raises(SettingsError, match=f"^{config}: the config file is not UTF-8 text$"):
        load(config)


@pytest.mark.parametrize(
    ("toml", "key", "advice"),
    [
        (f'gemini_api_key = "{GEMINI_KEY}"', "gemini_api_key", "`parley keys set gemini`"),
        (f'openai_api_key = "{OPENAI_KEY}"', "openai_api_key", "`parley keys set openai`"),
        (f'supabase_token = "{GEMINI_KEY}"', "supabase_token", "`parley keys set gemini` or `parley keys set openai`"),
        (f'db_password = "{GEMINI_KEY}"', "db_password", "GEMINI_API_KEY or OPENAI_API_KEY"),
        (f'unknown = 1\n[gemini]\napi_key = "{GEMINI_KEY}"', "api_key", "`parley keys set gemini`"),
    ],
)
def test_a_secret_in_the_file_is_refused_without_echoing_it(config: Path, toml: str, key: str, advice: str) -> None:
    config.write_text(toml + "\n", encoding="utf-8")
    with pytest.raises(SettingsError) as caught:
        load(config)
    message = str(caught.value)
    assert message.startswith(f"{config}: '{key}' looks like a secret")
    assert "OS keyring" in message
    assert "environment" in message
    assert advice in message
    assert GEMINI_KEY not in message
    assert OPENAI_KEY not in message
    assert "\n" not in message


def test_environment_errors_name_the_variable(config: Path) -> None:
    with pytest.raises(SettingsError, match=r"^environment variable PARLEY_TEXT_MODEL must be one of auto"):
        load(config, {"PARLEY_TEXT_MODEL": "gpt"})


def test_log_level_is_normalised(config: Path) -> None:
    assert load(config, {"PARLEY_LOG_LEVEL": "debug"}).log_level == "DEBUG"


def test_an_empty_base_url_in_the_file_means_the_default_endpoint(config: Path) -> None:
    config.write_text('gemini_base_url = ""\n', encoding="utf-8")
    assert load(config).gemini_base_url is None
