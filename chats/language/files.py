"""The per-language word tables, read from TOML files that a translator edits without touching code (as
gettext catalogs are): one file per language code in a `tables` folder beside this module,
one section per module (`chats/language/tables/it.toml` holds `[grammar]`, `[cues]`, `[person_forms]`...).
The modules keep the logic and build their typed tables from these values; each section's keys are
described where it is read.

Read once per file and kept: the tables are built at import, and several modules share a file.
"""

from __future__ import annotations

import tomllib
from functools import cache
from pathlib import Path
from typing import Any, Final

CHATS_LANGUAGES: Final = Path(__file__).parent / "tables"
"""The files of `chats`' own modules."""


@cache
def language_file(folder: Path, code: str) -> dict[str, Any]:
    """The parsed `folder/<code>.toml` (its callers only read it)."""
    with (folder / f"{code}.toml").open("rb") as file:
        return tomllib.load(file)


def words(text: str) -> frozenset[str]:
    """A file's list of words, written as one string split at white space."""
    return frozenset(text.split())
