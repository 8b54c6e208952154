"""The reference table of settings is the loader's own table: one spec per field with the dataclass's default,
every documented variable read, the table's rows, its Markdown and the guide that shows it."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import platformdirs
import pytest

from app.config.secrets import SECRETS
from app.config.setting_values import SettingSpec
from app.config.settings import SETTINGS, Settings
from app.config.settings_table import settings_markdown, settings_table
from tests.app.settings_files import load

pytestmark = pytest.mark.usefixtures("memory_keyring")
"""Every test here gets an empty in-memory keyring (tests/app/conftest.py): the real one is never read."""


FIELDS = [field for field in dataclasses.fields(Settings) if field.name != "api_keys"]
"""The settings' fields; the API keys are one field (`api_keys`), a setting each."""


def test_every_setting_has_exactly_one_spec() -> None:
    keys = [secret.setting for secret in SECRETS]
    assert [spec.name for spec in SETTINGS] == [field.name for field in FIELDS] + keys
    assert all(hasattr(Settings, key) for key in keys)


def test_spec_defaults_are_the_dataclass_defaults() -> None:
    for spec, field in zip(SETTINGS, FIELDS, strict=False):
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
    assert list(rows) == [spec.name for spec in SETTINGS]
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
    assert str(Path.home()) not in markdown  # the guide must not show the writer's own folders
    assert "| gemini_api_key | GEMINI_API_KEY or GOOGLE_API_KEY | - | - | Gemini API key" in markdown
