"""TLS to the Gemini endpoint: the system's trust, plus the user's own CA bundle when one is set."""

from __future__ import annotations

import ssl

from app.config.config_file import SettingsError
from app.config.settings import Settings


def ssl_context(settings: Settings) -> ssl.SSLContext | None:
    """The TLS context for the Gemini endpoint: the system's trust, plus `ca_file` when set."""
    if settings.ca_file is None:
        return None
    context = ssl.create_default_context()
    try:
        context.load_verify_locations(cafile=settings.ca_file)
    except (OSError, ssl.SSLError) as error:
        raise SettingsError(f"cannot read the CA file {settings.ca_file}: {error}") from None
    return context
