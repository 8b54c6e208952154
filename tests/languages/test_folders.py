"""Every registered language's folder holds what `languages/schema.toml` says, and the check names what is wrong."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from languages import registry, schema
from languages.registry import SUPPORTED


@pytest.mark.parametrize("code", SUPPORTED)
def test_each_language_folder_is_complete(code: str) -> None:
    assert schema.problems(code) == []


def test_the_registry_names_a_folder_for_each_language() -> None:
    assert SUPPORTED[0] == registry.DEFAULT
    for code in SUPPORTED:
        assert (registry.FOLDER / code / "language.toml").is_file(), code


@pytest.fixture
def copied_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The languages folder copied, and read from the copy, so a test can spoil a language's files."""
    copy = tmp_path / "languages"
    shutil.copytree(registry.FOLDER, copy, ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    monkeypatch.setattr(registry, "FOLDER", copy)
    monkeypatch.setattr(schema, "FOLDER", copy)
    registry.table.cache_clear()
    yield copy
    registry.table.cache_clear()


def test_a_missing_key_is_named_with_its_language(copied_folder: Path) -> None:
    requests = copied_folder / "it" / "requests.toml"
    text = requests.read_text(encoding="utf-8")
    requests.write_text(text.replace("\nquestions = [", "\nasked = ["), encoding="utf-8")
    assert "languages/it: 'web.questions' is missing" in schema.problems("it")


def test_an_unknown_key_and_a_wrong_type_are_named(copied_folder: Path) -> None:
    with (copied_folder / "fr" / "language.toml").open("a", encoding="utf-8") as file:
        file.write('\n[surprise]\nword = "oui"\n')
    names = copied_folder / "de" / "language.toml"
    names.write_text(names.read_text(encoding="utf-8").replace('name = "Deutsch"', "name = 3"), encoding="utf-8")
    assert "languages/fr: 'surprise' is not a key schema.toml knows" in schema.problems("fr")
    assert "languages/de: 'language.name' should be string" in schema.problems("de")


def test_a_section_written_in_two_files_is_refused(copied_folder: Path) -> None:
    with (copied_folder / "es" / "language.toml").open("a", encoding="utf-8") as file:
        file.write('\n[web]\nquestions = ["qué"]\n')
    with pytest.raises(registry.LanguageDataError, match="languages/es: 'web' is written in two files"):
        registry.table("es")
