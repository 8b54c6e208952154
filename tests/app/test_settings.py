from __future__ import annotations

import dataclasses
from pathlib import Path

import platformdirs
import pytest

from app.config.secrets import KEYRING_SERVICE
from app.config.settings import (
    SETTINGS,
    Override,
    Settings,
    SettingsError,
    SettingSpec,
    default_config_file,
    default_data_dir,
    desktop_language,
    load_settings,
)
from app.config.settings_table import settings_markdown, settings_table
from tests.app import MemoryKeyring

GEMINI_KEY = "AIzaSyTest-gemini-key-0123456789abcdef"
OPENAI_KEY = "sk-test-openai-key-0123456789abcdef"


pytestmark = pytest.mark.usefixtures("memory_keyring")
"""Every test here gets an empty in-memory keyring (tests/app/conftest.py): the real one is never read."""


@pytest.fixture
def config(tmp_path: Path) -> Path:
    """An empty config file in a temporary folder; tests write into it."""
    path = tmp_path / "config" / "config.toml"
    path.parent.mkdir()
    path.write_text("", encoding="utf-8")
    return path


def load(config: Path, env: dict[str, str] | None = None, overrides: dict[str, Override] | None = None) -> Settings:
    return load_settings(overrides, {"PARLEY_CONFIG": str(config), **(env or {})})


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


# Bad files


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


# The reference table is the loader's own table


def test_every_settings_field_has_exactly_one_spec() -> None:
    assert [spec.name for spec in SETTINGS] == [f.name for f in dataclasses.fields(Settings)]


def test_spec_defaults_are_the_dataclass_defaults() -> None:
    for spec, field in zip(SETTINGS, dataclasses.fields(Settings), strict=True):
        missing = field.default is dataclasses.MISSING or field.default is None
        if isinstance(field.default, bool):
            assert spec.default == ("true" if field.default else "false"), spec.name  # as TOML spells it
        else:
            assert spec.default == (None if missing else str(field.default)), spec.name


@pytest.mark.parametrize("spec", [s for s in SETTINGS if s.kind in ("text", "level", "url")], ids=lambda s: s.name)
def test_each_documented_variable_is_read(config: Path, spec: SettingSpec) -> None:
    value = spec.choices[-1] if spec.choices else {"url": "https://x.test", "level": "ERROR"}.get(spec.kind, "v")
    (var,) = spec.env_vars
    assert getattr(load(config, {var: value}), spec.name) == value
    assert spec.config_key is not None
    config.write_text(f'{spec.config_key} = "{value}"\n', encoding="utf-8")
    assert getattr(load(config), spec.name) == value


def test_settings_table_rows() -> None:
    rows = {row.setting: row for row in settings_table()}
    assert list(rows) == [f.name for f in dataclasses.fields(Settings)]
    assert (rows["user_id"].env_var, rows["user_id"].config_key, rows["user_id"].default) == (
        "PARLEY_USER_ID",
        "user_id",
        "local",
    )
    assert rows["gemini_api_key"].env_var == "GEMINI_API_KEY or GOOGLE_API_KEY"
    assert rows["gemini_api_key"].config_key == "-"
    assert "parley keys set gemini" in rows["gemini_api_key"].description
    assert rows["data_dir"].default == str(platformdirs.user_data_path("parley"))
    assert rows["config_file"].default == str(platformdirs.user_config_path("parley") / "config.toml")
    assert rows["gemini_base_url"].default == "-"


def test_settings_markdown_lists_every_variable() -> None:
    markdown = settings_markdown()
    assert markdown.count("\n") == len(SETTINGS) + 1
    for spec in SETTINGS:
        for var in spec.env_vars:
            assert var in markdown
    assert str(Path.home()) not in markdown  # the README must not show the writer's own folders
    assert "| gemini_api_key | GEMINI_API_KEY or GOOGLE_API_KEY | - | - | Gemini API key" in markdown


def test_the_readme_documents_every_setting() -> None:
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    assert settings_markdown() in readme


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
