"""Reading the TOML config file: its syntax checked, secrets refused, unknown keys named.

A secret in the file is refused before anything else, and its value is never echoed: API keys belong in
the OS keyring or the environment (`app.config.secrets`).
"""

from __future__ import annotations

import difflib
import re
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path

from app.config.secrets import SECRETS

_SECRET_SUFFIXES = ("_api_key", "_apikey", "_token", "_password", "_secret")
_SECRET_NAMES = frozenset({"api_key", "apikey", "token", "password", "secret"})


class SettingsError(Exception):
    """The settings cannot be loaded. The message is one line naming the file or variable at fault."""


def read_config(path: Path, *, explicit: bool, known_keys: Sequence[str]) -> dict[str, object]:
    """The file's table; `SettingsError` for a missing named file, bad TOML, a secret, an unknown key."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        if explicit:
            raise SettingsError(f"{path}: config file not found") from None
        return {}
    except OSError as exc:
        raise SettingsError(f"{path}: cannot read the config file ({exc.strerror or exc})") from None
    try:
        table = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise SettingsError(f"{path}: the config file is not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise SettingsError(_toml_error(path, exc)) from None

    check_keys(path, table, known_keys)
    return table


def check_keys(path: Path, table: Mapping[str, object], known_keys: Sequence[str]) -> None:
    """`SettingsError` when `table` (the config file at `path`, as read or about to be written) holds a
    secret-looking key at any depth, or a top-level key not in `known_keys`."""
    # Secrets first: that message matters more than any other, whatever else is wrong with the file.
    for key in _all_keys(table):
        if looks_secret(key):
            raise SettingsError(_secret_in_file(path, key))
    for key in table:
        if key not in known_keys:
            raise SettingsError(_unknown_key(path, key, known_keys))


def _toml_error(path: Path, exc: tomllib.TOMLDecodeError) -> str:
    # Python 3.11's TOMLDecodeError has no lineno attribute: the position is only in the message.
    match = re.fullmatch(r"(.*) \(at line (\d+), column (\d+)\)", str(exc))
    if match is None:
        return f"{path}: invalid TOML: {exc}"
    reason, line, column = match.groups()
    return f"{path}: invalid TOML at line {line}, column {column}: {reason}"


def _all_keys(table: Mapping[str, object]) -> list[str]:
    keys: list[str] = []
    for key, value in table.items():
        keys.append(key)
        if isinstance(value, Mapping):
            keys.extend(_all_keys(value))
        elif isinstance(value, list):
            for item in value:
                if isinstance(item, Mapping):
                    keys.extend(_all_keys(item))
    return keys


def looks_secret(key: str) -> bool:
    """Whether a config key names a secret (`api_key`, `openai_token`, ...), whatever its value."""
    key = key.lower().replace("-", "_")
    return key in _SECRET_NAMES or key.endswith(_SECRET_SUFFIXES)


def _secret_in_file(path: Path, key: str) -> str:
    # Never echo the value: the message goes to the terminal and maybe to a bug report.
    lowered = key.lower()
    matching = [s for s in SECRETS if s.name in lowered or (s.name == "gemini" and "google" in lowered)]
    targets = matching or list(SECRETS)
    where = " or ".join(f"`parley keys set {s.name}`" for s in targets)
    variables = " or ".join(s.env_vars[0] for s in targets)
    return (
        f"{path}: '{key}' looks like a secret, and secrets never go in the config file; remove it and "
        f"store the key in the OS keyring ({where}) or set {variables} in the environment"
    )


def _unknown_key(path: Path, key: str, known_keys: Sequence[str]) -> str:
    close = difflib.get_close_matches(key, list(known_keys), n=1)
    hint = f" (did you mean '{close[0]}'?)" if close else f" (known: {', '.join(known_keys)})"
    return f"{path}: unknown setting '{key}'{hint}"
