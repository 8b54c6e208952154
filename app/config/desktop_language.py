"""The language of the desktop: the default of the `language` setting."""

from __future__ import annotations

import locale
from collections.abc import Mapping

from languages.registry import SUPPORTED, Language, about

_LOCALE_VARIABLES = ("LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE")
"""POSIX order: the first one set wins (LANGUAGE, a GNU list like "it:en", only when none of the others is)."""
_WINDOWS_NAMES: Mapping[str, Language] = {about(code)["language"]["windows_name"]: code for code in SUPPORTED}
"""`locale.getlocale()` on Windows names the language ("Italian_Italy")."""


def desktop_language(env: Mapping[str, str]) -> Language:
    """The language of the desktop's locale, from `env`'s locale variables ("it_IT.UTF-8" -> "it"), else the
    process's locale; English when it is none of the supported ones (or "C", the locale of no language)."""
    found = next((env[var] for var in _LOCALE_VARIABLES if env.get(var, "").strip()), None)
    if found is None:
        found = locale.getlocale()[0] or ""
    code = found.split(":")[0].split(".")[0].split("@")[0].replace("-", "_").split("_")[0].lower()
    code = _WINDOWS_NAMES.get(code, code)
    return code if code in SUPPORTED else "en"
