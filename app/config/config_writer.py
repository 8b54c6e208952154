"""Writing the TOML config file: the settings window's way to make a choice stick.

The same rules as reading (`app.config.config_file`): no secret-looking key and no unknown key is ever written,
and every value must be one `load_settings` accepts. The new file replaces the old one in a single
`os.replace`, so a crash mid-write leaves the old file whole, never half a file; the result is read back
through `read_config` before `save_config` returns.

The file is rewritten from its table: comments and layout in it are not kept.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path

import tomli_w

from app.config.config_file import SettingsError, check_keys, read_config
from app.config.settings import CONFIG_KEYS, check_config_values

ConfigValue = str | float | bool
"""What a setting holds in the file: text (names, paths, URLs), a number or a flag."""


def save_config(path: Path, changes: Mapping[str, ConfigValue | None]) -> None:
    """Apply `changes` to the config file at `path` (None removes a key; a missing file starts empty).

    Raises `SettingsError`, leaving the file untouched, when a key looks like a secret or is unknown, a
    value would not load, the existing file cannot be read, or the new one cannot be written.
    """
    # Refuse a secret before reading anything: that message matters most, whatever the file holds.
    check_keys(path, dict.fromkeys(changes, ""), CONFIG_KEYS)
    table = read_config(path, explicit=False, known_keys=CONFIG_KEYS)
    for key, value in changes.items():
        if value is None:
            table.pop(key, None)
        else:
            table[key] = value
    check_config_values(path, table)
    replace_file(path, tomli_w.dumps(table).encode("utf-8"))
    if read_config(path, explicit=True, known_keys=CONFIG_KEYS) != table:
        raise SettingsError(f"{path}: the config file does not read back as written")


def replace_file(path: Path, content: bytes) -> None:
    """Write `content` next to `path` (private: `mkstemp` makes it 0600), flush it to disk, then swap it in;
    `SettingsError` when it cannot."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # In the same folder: a rename is atomic only within one file system.
        descriptor, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as exc:
        raise SettingsError(f"{path}: cannot write the config file ({exc.strerror or exc})") from None
    try:
        with os.fdopen(descriptor, "wb") as file:
            file.write(content)
            file.flush()
            os.fsync(file.fileno())
        Path(temporary).replace(path)  # os.replace: atomic, and it replaces an existing file on Windows too
    except OSError as exc:
        with contextlib.suppress(OSError):
            Path(temporary).unlink()
        raise SettingsError(f"{path}: cannot write the config file ({exc.strerror or exc})") from None
