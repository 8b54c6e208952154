"""Where the value in force of each setting comes from, for `parley config`."""

from __future__ import annotations

from collections.abc import Mapping

from app.config.secrets import SECRETS, secret_source
from app.config.settings import Override, load_with_origins


def setting_origins(
    overrides: Mapping[str, Override] | None = None, env: Mapping[str, str] | None = None
) -> dict[str, str]:
    """Where the value in force of each setting (by field name) comes from, for people: "default", "config
    file", "environment PARLEY_...", "command line", "keyring", or "not set" (an API key that is missing)."""
    origins = load_with_origins(overrides, env)[1]
    for secret in SECRETS:  # looked up again only here: a keyring can be slow to answer
        origins[secret.setting] = secret_source(secret.name, env) or "not set"
    return origins
