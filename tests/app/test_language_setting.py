"""The `language` setting (issue 17): the desktop's language by default, `auto`, and one clear line for a
value Parley does not speak; and what the system prompt says of it."""

from __future__ import annotations

import locale
from datetime import UTC, datetime
from pathlib import Path

import pytest

from app.config.config_file import SettingsError
from app.config.desktop_language import desktop_language
from app.config.settings import Settings, load_settings
from app.tools.chat_tools import TOOLS
from app.tools.prompt import system_prompt
from app.wiring import spoken_language

pytestmark = pytest.mark.usefixtures("memory_keyring")
"""Every test here gets an empty in-memory keyring (tests/app/conftest.py): the real one is never read."""


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "config.toml"
    path.write_text("", encoding="utf-8")
    return path


def load(config: Path, **env: str) -> Settings:
    return load_settings(None, {"PARLEY_CONFIG": str(config), **env})


@pytest.mark.parametrize(
    ("env", "language"),
    [
        ({"LANG": "it_IT.UTF-8"}, "it"),
        ({"LANG": "es_ES.UTF-8"}, "es"),
        ({"LANG": "fr_CA.UTF-8"}, "fr"),
        ({"LANG": "de_AT.UTF-8@euro"}, "de"),
        ({"LANG": "en_GB.UTF-8"}, "en"),
        ({"LANG": "it_IT.UTF-8", "LC_ALL": "de_DE.UTF-8"}, "de"),  # LC_ALL wins, as for every program
        ({"LANG": "it_IT.UTF-8", "LC_MESSAGES": "fr_FR.UTF-8"}, "fr"),
        ({"LANGUAGE": "es:en"}, "es"),
        ({"LANG": "ja_JP.UTF-8"}, "en"),  # a language Parley does not speak: English
        ({"LANG": "pt_PT.UTF-8"}, "pt"),
        ({"LANG": "pt_BR.UTF-8"}, "pt"),
        ({"LANG": "C.UTF-8"}, "en"),
    ],
)
def test_the_default_is_the_desktops_language(config: Path, env: dict[str, str], language: str) -> None:
    assert desktop_language(env) == language
    assert load(config, **env).language == language


@pytest.mark.parametrize(
    ("windows", "language"), [("Italian_Italy", "it"), ("German_Germany", "de"), ("Japanese_Japan", "en")]
)
def test_a_windows_locale_is_read_by_its_language_name(
    monkeypatch: pytest.MonkeyPatch, windows: str, language: str
) -> None:
    # Windows sets none of the POSIX variables; `locale.getlocale()` names the language there.
    monkeypatch.setattr(locale, "getlocale", lambda: (windows, "1252"))
    assert desktop_language({}) == language


def test_the_setting_wins_over_the_desktop_and_auto_is_a_choice(config: Path) -> None:
    assert load(config, LANG="it_IT.UTF-8", PARLEY_LANGUAGE="es").language == "es"
    config.write_text('language = "auto"\n', encoding="utf-8")
    settings = load(config, LANG="it_IT.UTF-8")
    assert settings.language == "auto"
    assert spoken_language(settings) is None  # each model finds it in what is said
    assert spoken_language(load(config, PARLEY_LANGUAGE="fr")) == "fr"
    assert spoken_language(load(config, PARLEY_LANGUAGE="pt")) == "pt"


def test_a_language_parley_does_not_speak_is_refused_in_one_line(config: Path) -> None:
    with pytest.raises(SettingsError) as refused:
        load(config, PARLEY_LANGUAGE="klingon")
    message = str(refused.value)
    assert message == "environment variable PARLEY_LANGUAGE must be one of auto, en, it, es, fr, de, pt (got 'klingon')"
    assert "\n" not in message
    config.write_text('language = "Italian"\n', encoding="utf-8")
    with pytest.raises(SettingsError, match=r"setting 'language' must be one of auto, en, it, es, fr, de, pt"):
        load(config)


NOW = datetime(2026, 11, 22, 9, 30, tzinfo=UTC)


@pytest.mark.parametrize(
    ("language", "said"),
    [
        ("it", "The user speaks Italian: speak Italian with them"),
        ("es", "The user speaks Spanish: speak Spanish with them"),
        ("fr", "The user speaks French: speak French with them"),
        ("de", "The user speaks German: speak German with them"),
        ("en", "The user speaks English: speak English with them"),
        ("auto", "Answer in the language the user speaks to you"),
    ],
)
def test_the_system_prompt_says_the_users_language(language: str, said: str) -> None:
    prompt = system_prompt(tools=TOOLS, chat_title=None, now=NOW, language=language)
    assert said in prompt
    assert "spoken aloud" in prompt  # the instructions themselves stay in English
