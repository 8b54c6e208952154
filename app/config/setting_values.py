"""One setting's description (`SettingSpec`) and the check of its values, whichever layer gives them:
the config file's TOML values, environment variables and command-line text alike."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from app.config.config_file import SettingsError
from app.config.secrets import Secret

Kind = Literal["text", "optional", "masked", "path", "url", "level", "number", "fraction", "flag", "secret"]
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
_TRUE = ("true", "yes", "on", "1")
_FALSE = ("false", "no", "off", "0")


@dataclass(frozen=True)
class SettingSpec:
    """One setting: where each layer finds it, and what it means to the user."""

    name: str
    """The `Settings` field."""
    env_vars: tuple[str, ...]
    """Environment variables, read in this order (most settings have exactly one)."""
    config_key: str | None
    """Key in the config file; None when the file may not set it (the file's own path, API keys)."""
    default: str | None
    """The built-in default, as text; None when there is none."""
    description: str
    """One sentence for the user."""
    kind: Kind = "text"
    """How values are checked: text, optional (text; empty means the default), masked (optional, and kept
    out of logs), path (`~` expanded, made
    absolute), url (http/https), level, number (greater than 0), fraction (a number between 0 and 1, both
    excluded), flag (true or false), secret."""
    choices: tuple[str, ...] = ()
    """The allowed values; empty means any non-empty text."""


_TOML_TYPES = {bool: "a boolean", int: "an integer", float: "a float", list: "an array", dict: "a table"}


def convert_value(spec: SettingSpec, raw: object, where: str, *, base: Path | None) -> str | Path | None:
    """Check and normalise one raw value. `base` anchors relative paths (None: the working folder)."""
    text = _as_text(spec, raw, where)
    if spec.kind == "url":
        return _url(text, where)
    if spec.kind in ("optional", "masked"):
        return text or None
    if not text:
        raise SettingsError(f"{where} must not be empty")
    if spec.kind == "path":
        path = Path(text).expanduser()
        if not path.is_absolute():
            path = (base / path) if base is not None else path.absolute()
        return path
    if spec.kind in ("number", "fraction"):
        return _number(text, where, below_one=spec.kind == "fraction")
    if spec.kind == "flag":
        return _flag(text, where)
    if spec.kind == "level":
        return _choice(text.upper(), LOG_LEVELS, where)
    return _choice(text, spec.choices, where) if spec.choices else text


def typed_value(spec: SettingSpec, value: str | Path | None) -> object:
    """A checked value (`convert_value`'s, or the default's text) as its `Settings` field holds it."""
    if value is None:
        return None
    if spec.kind == "path":
        return Path(value)
    if spec.kind in ("number", "fraction"):
        return float(str(value))
    if spec.kind == "flag":
        return value == "true"
    if spec.kind == "masked":
        return Secret(str(value))
    return value


def _as_text(spec: SettingSpec, raw: object, where: str) -> str:
    """The raw value as stripped text: TOML numbers and booleans, and path objects, are taken as such."""
    if isinstance(raw, os.PathLike) and spec.kind == "path":
        raw = os.fspath(raw)
    if spec.kind in ("number", "fraction") and isinstance(raw, int | float) and not isinstance(raw, bool):
        raw = str(raw)
    if spec.kind == "flag" and isinstance(raw, bool):
        raw = str(raw).lower()
    if not isinstance(raw, str):
        got = _TOML_TYPES.get(type(raw), f"a {type(raw).__name__}")
        raise SettingsError(f"{where} must be a string, not {got}")
    return raw.strip()


def _choice(text: str, choices: tuple[str, ...], where: str) -> str:
    if text not in choices:
        raise SettingsError(f"{where} must be one of {', '.join(choices)} (got {text!r})")
    return text


def _url(text: str, where: str) -> str | None:
    if not text:
        return None  # `gemini_base_url = ""` in the file: back to the default endpoint
    if not text.startswith(("http://", "https://")):
        raise SettingsError(f"{where} must start with http:// or https:// (got {text!r})")
    return text


def _number(text: str, where: str, *, below_one: bool) -> str:
    try:
        number = float(text)
    except ValueError:
        raise SettingsError(f"{where} must be a number (got {text!r})") from None
    if below_one and not 0 < number < 1:
        raise SettingsError(f"{where} must be between 0 and 1, such as 0.5 (got {text!r})")
    if not number > 0:
        raise SettingsError(f"{where} must be greater than 0 (got {text!r})")
    return text


def _flag(text: str, where: str) -> str:
    """ "true" or "false", from the usual spellings of each."""
    word = text.lower()
    if word in _TRUE:
        return "true"
    if word in _FALSE:
        return "false"
    raise SettingsError(f"{where} must be true or false (got {text!r})")
