"""Settings as the loader builds them: defaults, the layers (defaults < file < environment < command line),
paths, command-line overrides, secrets, numbers and flags. Bad config files: test_settings_bad_files.py; the
reference table: test_settings_table.py."""

from __future__ import annotations

from pathlib import Path

import platformdirs
import pytest

from app.config.config_file import SettingsError
from app.config.desktop_language import desktop_language
from app.config.paths import default_config_file, default_data_dir
from app.config.secrets import KEYRING_SERVICE
from app.config.settings import Settings, load_settings
from tests.app import MemoryKeyring
from tests.app.settings_files import GEMINI_KEY, OPENAI_KEY, load

pytestmark = pytest.mark.usefixtures("memory_keyring")
"""Every test here gets an empty in-memory keyring (tests/app/conftest.py): the real one is never read."""


# Defaults


def test_defaults(config: Path) -> None:
    settings = load(config)
    # The desktop's language, from the process's locale here: the test's environment names none.
    assert settings == Settings(data_dir=default_data_dir(), config_file=config, language=desktop_language({}))
    assert settings.data_dir == platformdirs.user_data_path("parley")
    assert settings.user_id == "local"
    assert settings.embedder == "auto"
    assert settings.text_model == "auto"
    assert settings.gemini_text_model == "gemini-3.5-flash-lite"
    assert settings.gemini_live_model == "gemini-3.8-live"
    assert settings.gemini_base_url is None
    assert settings.openai_base_url is None
    assert settings.openai_embedding_model == "text-embedding-3-small"
    assert settings.gemini_embedding_model == "gemini-embedding-2"
    assert settings.log_level == "INFO"
    assert settings.gemini_api_key is None
    assert settings.openai_api_key is None


def test_a_missing_file_at_the_default_location_means_defaults(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # platformdirs derives its folders from the home folder (and XDG_* on Linux): point them at tmp_path.
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("USERPROFILE", str(tmp_path))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    assert default_config_file().is_relative_to(tmp_path)  # the real user config is never read

    settings = load_settings(env={})
    assert settings.config_file == platformdirs.user_config_path("parley") / "config.toml"
    assert not settings.config_file.exists()
    assert settings.data_dir == platformdirs.user_data_path("parley")
    assert settings.user_id == "local"


# Layers: defaults < file < environment < command line

LAYERED = [
    # field, file value (TOML), environment variable and value, command-line value
    ("user_id", '"from-file"', ("PARLEY_USER_ID", "from-env"), "from-cli"),
    ("embedder", '"local"', ("PARLEY_EMBEDDER", "openai"), "gemini"),
    ("text_model", '"offline"', ("PARLEY_TEXT_MODEL", "gemini"), "offline"),
    ("gemini_text_model", '"gemini-file"', ("PARLEY_GEMINI_TEXT_MODEL", "gemini-env"), "gemini-cli"),
    ("gemini_base_url", '"https://file.test"', ("PARLEY_GEMINI_BASE_URL", "https://env.test"), "http://cli.test"),
    (
        "openai_base_url",
        '"https://file.test/v1"',
        ("PARLEY_OPENAI_BASE_URL", "https://env.test/v1"),
        "https://cli.test",
    ),
    ("openai_embedding_model", '"m-file"', ("PARLEY_OPENAI_EMBEDDING_MODEL", "m-env"), "m-cli"),
    ("gemini_embedding_model", '"g-file"', ("PARLEY_GEMINI_EMBEDDING_MODEL", "g-env"), "g-cli"),
    ("log_level", '"WARNING"', ("PARLEY_LOG_LEVEL", "ERROR"), "DEBUG"),
]


@pytest.mark.parametrize(("field", "file_value", "env_item", "cli_value"), LAYERED)
def test_each_layer_overrides_the_one_before(
    config: Path, field: str, file_value: str, env_item: tuple[str, str], cli_value: str
) -> None:
    default = getattr(load(config), field)

    config.write_text(f"{field} = {file_value}\n", encoding="utf-8")
    from_file = getattr(load(config), field)
    assert from_file == file_value.strip('"')
    assert from_file != default

    env = dict([env_item])
    assert getattr(load(config, env), field) == env_item[1]

    assert getattr(load(config, env, {field: cli_value}), field) == cli_value
    # None on the command line means "not given": the environment still wins over the file.
    assert getattr(load(config, env, {field: None}), field) == env_item[1]


def test_data_dir_layers(config: Path, tmp_path: Path) -> None:
    config.write_text(f'data_dir = "{tmp_path / "file"}"\n', encoding="utf-8")
    assert load(config).data_dir == tmp_path / "file"
    env = {"PARLEY_DATA_DIR": str(tmp_path / "env")}
    assert load(config, env).data_dir == tmp_path / "env"
    assert load(config, env, {"data_dir": tmp_path / "cli"}).data_dir == tmp_path / "cli"
    assert load(config, env, {"data_dir": str(tmp_path / "cli-str")}).data_dir == tmp_path / "cli-str"


def test_parley_config_chooses_the_file(tmp_path: Path) -> None:
    first = tmp_path / "first.toml"
    first.write_text('user_id = "first"\n', encoding="utf-8")
    second = tmp_path / "second.toml"
    second.write_text('user_id = "second"\n', encoding="utf-8")

    settings = load_settings(env={"PARLEY_CONFIG": str(first)})
    assert (settings.config_file, settings.user_id) == (first, "first")
    # The command line's config_file wins over PARLEY_CONFIG.
    settings = load_settings({"config_file": second}, env={"PARLEY_CONFIG": str(first)})
    assert (settings.config_file, settings.user_id) == (second, "second")


def test_a_named_config_file_must_exist(tmp_path: Path) -> None:
    missing = tmp_path / "nope.toml"
    with pytest.raises(SettingsError, match=f"^{missing}: config file not found$"):
        load_settings(env={"PARLEY_CONFIG": str(missing)})
    with pytest.raises(SettingsError, match="config file not found"):
        load_settings({"config_file": missing}, env={})


def test_an_empty_variable_counts_as_unset(config: Path) -> None:
    config.write_text('user_id = "from-file"\n', encoding="utf-8")
    assert load(config, {"PARLEY_USER_ID": "", "PARLEY_LOG_LEVEL": " "}).user_id == "from-file"


# Paths


def test_tilde_is_expanded_in_every_layer(config: Path) -> None:
    home = Path.home()
    config.write_text('data_dir = "~/parley-file"\n', encoding="utf-8")
    assert load(config).data_dir == home / "parley-file"
    assert load(config, {"PARLEY_DATA_DIR": "~/parley-env"}).data_dir == home / "parley-env"
    assert load(config, overrides={"data_dir": "~/parley-cli"}).data_dir == home / "parley-cli"


def test_tilde_is_expanded_in_parley_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("USERPROFILE", str(tmp_path))
    (tmp_path / "parley.toml").write_text('user_id = "tilde"\n', encoding="utf-8")
    settings = load_settings(env={"PARLEY_CONFIG": "~/parley.toml"})
    assert settings.config_file == tmp_path / "parley.toml"
    assert settings.user_id == "tilde"


def test_a_relative_data_dir_in_the_file_is_relative_to_the_file(config: Path) -> None:
    config.write_text('data_dir = "data"\n', encoding="utf-8")
    assert load(config).data_dir == config.parent / "data"


def test_a_relative_data_dir_in_the_environment_is_made_absolute(config: Path) -> None:
    data_dir = load(config, {"PARLEY_DATA_DIR": "rel"}).data_dir
    assert data_dir.is_absolute()
    assert data_dir == Path.cwd() / "rel"


# Command-line overrides


def test_unknown_command_line_settings_are_refused(config: Path) -> None:
    with pytest.raises(SettingsError, match="unknown command-line setting 'colour'"):
        load(config, overrides={"colour": "red"})
    assert load(config, overrides={"colour": None}).user_id == "local"  # not given: nothing to refuse


def test_secrets_cannot_come_from_the_command_line(config: Path) -> None:
    with pytest.raises(SettingsError, match="cannot be given on the command line"):
        load(config, overrides={"gemini_api_key": GEMINI_KEY})


def test_command_line_errors_name_the_option(config: Path) -> None:
    with pytest.raises(SettingsError, match=r"^command-line option 'embedder' must be one of"):
        load(config, overrides={"embedder": "best"})


# Secrets


def test_secrets_come_from_the_environment(config: Path) -> None:
    settings = load(config, {"GEMINI_API_KEY": GEMINI_KEY, "OPENAI_API_KEY": OPENAI_KEY})
    assert settings.gemini_api_key is not None
    assert settings.gemini_api_key.reveal() == GEMINI_KEY
    assert settings.openai_api_key is not None
    assert settings.openai_api_key.reveal() == OPENAI_KEY
    assert GEMINI_KEY not in repr(settings)
    assert OPENAI_KEY not in repr(settings)


def test_secrets_come_from_the_keyring(config: Path, memory_keyring: MemoryKeyring) -> None:
    memory_keyring.set_password(KEYRING_SERVICE, "gemini_api_key", GEMINI_KEY)
    settings = load(config)
    assert settings.gemini_api_key is not None
    assert settings.gemini_api_key.reveal() == GEMINI_KEY
    assert settings.openai_api_key is None


def test_auto_choices_follow_the_keys(config: Path) -> None:
    without = load(config)
    assert (without.effective_embedder, without.effective_text_model) == ("local", "offline")
    with_keys = load(config, {"GEMINI_API_KEY": GEMINI_KEY, "OPENAI_API_KEY": OPENAI_KEY})
    assert (with_keys.effective_embedder, with_keys.effective_text_model) == ("openai", "gemini")
    explicit = load(config, {"OPENAI_API_KEY": OPENAI_KEY, "PARLEY_EMBEDDER": "local"})
    assert explicit.effective_embedder == "local"


@pytest.mark.parametrize(
    ("keys", "choice", "effective"),
    [
        # auto: the OpenAI key serves embeddings only, so it wins; else the Gemini key; else local
        ({}, "auto", "local"),
        ({"OPENAI_API_KEY": OPENAI_KEY}, "auto", "openai"),
        ({"GEMINI_API_KEY": GEMINI_KEY}, "auto", "gemini"),
        ({"GOOGLE_API_KEY": GEMINI_KEY}, "auto", "gemini"),
        ({"GEMINI_API_KEY": GEMINI_KEY, "OPENAI_API_KEY": OPENAI_KEY}, "auto", "openai"),
        # an explicit choice stays, key or not: wiring says which key is missing
        ({"OPENAI_API_KEY": OPENAI_KEY}, "gemini", "gemini"),
        ({}, "gemini", "gemini"),
        ({"GEMINI_API_KEY": GEMINI_KEY}, "local", "local"),
    ],
)
def test_the_embedder_auto_stands_for(config: Path, keys: dict[str, str], choice: str, effective: str) -> None:
    assert load(config, {**keys, "PARLEY_EMBEDDER": choice}).effective_embedder == effective


def test_a_gemini_key_in_the_keyring_chooses_gemini_embeddings(config: Path, memory_keyring: MemoryKeyring) -> None:
    assert load(config).effective_embedder == "local"
    memory_keyring.set_password(KEYRING_SERVICE, "gemini_api_key", GEMINI_KEY)
    assert load(config).effective_embedder == "gemini"


def test_numbers_come_from_every_layer_and_are_checked(config: Path) -> None:
    assert load(config, {}).wake_threshold == 0.5
    assert load(config, {"PARLEY_WAKE_THRESHOLD": "0.7"}).wake_threshold == 0.7
    config.write_text("idle_seconds = 4\nwake_threshold = 0.6\n", encoding="utf-8")
    loaded = load(config, {})
    assert (loaded.idle_seconds, loaded.wake_threshold) == (4.0, 0.6)
    for bad, message in (("abc", "must be a number"), ("-1", "must be greater than 0"), ("0", "greater than 0")):
        with pytest.raises(SettingsError, match=message):
            load(config, {"PARLEY_IDLE_SECONDS": bad})


def test_flags_come_from_every_layer_and_are_checked(config: Path) -> None:
    assert load(config, {}).close_to_tray is True
    assert load(config, {"PARLEY_CLOSE_TO_TRAY": "no"}).close_to_tray is False
    config.write_text("close_to_tray = false\n", encoding="utf-8")
    assert load(config, {}).close_to_tray is False
    assert load(config, {"PARLEY_CLOSE_TO_TRAY": "On"}).close_to_tray is True
    with pytest.raises(SettingsError, match="PARLEY_CLOSE_TO_TRAY must be true or false"):
        load(config, {"PARLEY_CLOSE_TO_TRAY": "sometimes"})
