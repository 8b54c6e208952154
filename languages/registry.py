"""The languages Parley speaks and the data of each: one folder per language (`languages/<code>/*.toml`) that a
translator edits without touching code, as gettext catalogs are, listed in `registry.toml` and checked against
`schema.toml` (`languages.schema`).

Code reads concepts ("the words that end a ring", "how a user asks to remember"), never words: a module takes
the section it needs from `table(code)` and builds its typed values from it; each section's keys are described
where they are read. A folder's files split its sections by subject (`language.toml`, `words.toml`,
`requests.toml`, `replies.toml`, `questions.toml`, `timers.toml`, `screen.toml`, `memory.toml`); a section is
named once across them.

Read once per language and kept: the modules build their tables at import.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any, Final

FOLDER: Final = Path(__file__).parent
"""`registry.toml`, `schema.toml` and one folder per language."""

Language = str
"""An ISO 639-1 code of a registered language ("it")."""


def _registered() -> tuple[Language, ...]:
    with (FOLDER / "registry.toml").open("rb") as file:
        return tuple(tomllib.load(file)["codes"])


SUPPORTED: Final[tuple[Language, ...]] = _registered()
"""The registered languages, in the order Settings offers them."""
DEFAULT: Final[Language] = "en"
"""The language of a text too short to tell, and of a desktop in none of `SUPPORTED`."""


class LanguageDataError(Exception):
    """A language folder that cannot be read as written (a section named in two of its files)."""


def is_supported(code: str | None) -> bool:
    return code in SUPPORTED


@cache
def table(code: Language) -> Mapping[str, Any]:
    """Every section of `code`'s folder, its files' sections side by side (its callers only read it)."""
    merged: dict[str, Any] = {}
    for path in sorted((FOLDER / code).glob("*.toml")):
        with path.open("rb") as file:
            for section, value in tomllib.load(file).items():
                if section in merged:
                    raise LanguageDataError(f"languages/{code}: '{section}' is written in two files")
                merged[section] = value
    return merged


def words(text: str) -> frozenset[str]:
    """A file's list of words, written as one string split at white space."""
    return frozenset(text.split())


@cache
def about(code: Language) -> Mapping[str, Any]:
    """`code`'s `language.toml` alone (`[language]` names, `[codes]`): what start-up reads (the setting's
    choices, the desktop's language), without parsing the language's words as `table` does."""
    with (FOLDER / code / "language.toml").open("rb") as file:
        return tomllib.load(file)


def codes(name: str) -> Mapping[Language, str]:
    """Each language's code for one of the parts Parley runs it through (`[codes]`: "whisper", "espeak",
    "live", "snowball", "dateparser")."""
    return {code: about(code)["codes"][name] for code in SUPPORTED}
