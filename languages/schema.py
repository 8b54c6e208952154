"""Whether a language folder holds what `schema.toml` says every language holds: each problem as one line that
names the language and the key."""

from __future__ import annotations

import tomllib
from collections.abc import Iterator, Mapping
from typing import Any

from languages.registry import FOLDER, Language, table

_TYPES: Mapping[str, type] = {"string": str, "list": list, "bool": bool, "int": int, "map": dict}
OPTIONAL_SECTION = "?"


def schema() -> Mapping[str, Any]:
    with (FOLDER / "schema.toml").open("rb") as file:
        return tomllib.load(file)


def problems(code: Language) -> list[str]:
    """What `code`'s folder lacks, has too many of, or writes in the wrong type; empty when it is complete."""
    return list(_compare(code, schema(), table(code), ""))


def _compare(code: Language, expected: Mapping[str, Any], found: Mapping[str, Any], where: str) -> Iterator[str]:
    for key, kind in expected.items():
        if key == OPTIONAL_SECTION:
            continue
        name = f"{where}{key}"
        if key not in found:
            optional = kind.get(OPTIONAL_SECTION, False) if isinstance(kind, dict) else kind.endswith("?")
            if not optional:
                yield f"languages/{code}: '{name}' is missing"
        elif isinstance(kind, dict):
            if isinstance(found[key], dict):
                yield from _compare(code, kind, found[key], f"{name}.")
            else:
                yield f"languages/{code}: '{name}' should be a table"
        elif not any(isinstance(found[key], _TYPES[one]) for one in kind.rstrip("?").split("|")):
            yield f"languages/{code}: '{name}' should be {kind.rstrip('?')}"
    for key in found.keys() - expected.keys():
        yield f"languages/{code}: '{where}{key}' is not a key schema.toml knows"
