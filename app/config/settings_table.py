"""The settings reference, one row per setting: `parley config` prints it, and docs/guide/settings.md's table is its
Markdown (a test keeps the two the same)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from app.config.desktop_language import desktop_language
from app.config.paths import default_config_file, default_data_dir
from app.config.settings import SETTINGS


@dataclass(frozen=True)
class SettingRow:
    """One row of the settings reference, every cell printable ("-" for "none")."""

    setting: str
    env_var: str
    config_key: str
    default: str
    description: str


def settings_table(*, for_docs: bool = False) -> list[SettingRow]:
    """The settings reference, one row per setting, in `SETTINGS` order.

    The default folders are this machine's (for `parley config`), or platform-neutral text when
    `for_docs` is set (for the settings guide).
    """
    if for_docs:
        computed = {
            "config_file": "config.toml in the platform config folder (~/.config/parley on Linux)",
            "data_dir": "the platform data folder (~/.local/share/parley on Linux)",
            "language": "the desktop's language (en when it is none of these)",
        }
    else:
        computed = {
            "config_file": str(default_config_file()),
            "data_dir": str(default_data_dir()),
            "language": desktop_language(os.environ),
        }
    return [
        SettingRow(
            setting=spec.name,
            env_var=" or ".join(spec.env_vars) or "-",
            config_key=spec.config_key or "-",
            default=computed.get(spec.name, spec.default if spec.default is not None else "-"),
            description=spec.description,
        )
        for spec in SETTINGS
    ]


def settings_markdown() -> str:
    """`settings_table()` as a Markdown table, for docs/guide/settings.md."""
    lines = [
        "| setting | environment variable | config key | default | description |",
        "| --- | --- | --- | --- | --- |",
    ]
    for row in settings_table(for_docs=True):
        cells = (row.setting, row.env_var, row.config_key, row.default, row.description)
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines)


@dataclass(frozen=True)
class SettingInForce:
    """One setting as `parley config` shows it: its value in force, never a secret's, and its origin."""

    setting: str
    value: str
    """The value as text; "(set)" for an API key or a masked value, "-" for none."""
    origin: str
    """Where it comes from (`app.config.setting_origins`)."""


def settings_in_force(settings: object, origins: Mapping[str, str]) -> list[SettingInForce]:
    """Every setting of `settings` (a `Settings`) with its value and origin, in `SETTINGS` order."""
    rows = []
    for spec in SETTINGS:
        value = getattr(settings, spec.name)
        if value is None:
            text = "-"
        elif spec.kind in ("secret", "masked"):
            text = "(set)"  # never the value: a key or token on a screen ends up in screenshots and pastes
        else:
            text = str(value).lower() if isinstance(value, bool) else str(value)
        rows.append(SettingInForce(spec.name, text, origins.get(spec.name, "default")))
    return rows
