"""The settings reference, one row per setting: `parley config` prints it, and the README's table is its
Markdown (a test keeps the two the same)."""

from __future__ import annotations

import os
from dataclasses import dataclass

from app.config.desktop_language import desktop_language
from app.config.settings import SETTINGS, default_config_file, default_data_dir


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
    `for_docs` is set (for the README).
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
    """`settings_table()` as a Markdown table, for the README."""
    lines = [
        "| setting | environment variable | config key | default | description |",
        "| --- | --- | --- | --- | --- |",
    ]
    for row in settings_table(for_docs=True):
        cells = (row.setting, row.env_var, row.config_key, row.default, row.description)
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines)
