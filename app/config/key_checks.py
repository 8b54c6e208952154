"""Checking an API key against its service before (or after) it is stored: the settings window's
"Test" buttons. Each check makes the smallest real request that needs the key, and answers with one line
that never holds the key, whether it succeeds or fails."""

from __future__ import annotations

from app.config.config_file import SettingsError
from app.config.secrets import SecretsError, checked_key
from app.config.settings import Settings
from app.config.tls import ssl_context
from chats.errors import EmbeddingError
from voice.errors import VoiceError
from voice.live.connection import LiveConfig

CHECK_TIMEOUT_S = 15.0
"""How long a check waits for the service (seconds): a user is watching the window."""


class KeyCheckFailed(Exception):
    """The key was refused, or the service could not be reached. The message is one line, without the key."""


async def check_gemini_key(settings: Settings, key: str) -> str:
    """Open one Gemini Live session with `key` (the configured model, endpoint and CA) and close it."""
    try:
        key = checked_key("gemini", key, "typed")
    except SecretsError as error:
        raise KeyCheckFailed(str(error)) from None
    if not key:
        raise KeyCheckFailed("no Gemini key to test: type one, or store one first")
    # Imported when a key is tested, as the OpenAI check does: google-genai takes 0.4 s to import.
    from voice.live.gemini import connect

    try:
        context = ssl_context(settings)
        config = LiveConfig(model=settings.gemini_live_model, system_prompt="Key check.")
        async with connect(
            config,
            api_key=key,
            base_url=settings.gemini_base_url,
            ssl_context=context,
            open_timeout_s=CHECK_TIMEOUT_S,
        ):
            pass
    except (VoiceError, SettingsError) as error:
        raise KeyCheckFailed(_one_line(error, key)) from None
    return f"The Gemini key works: {settings.gemini_live_model} answered."


async def check_openai_key(settings: Settings, key: str) -> str:
    """Embed one word with `key` and the configured OpenAI endpoint and model."""
    try:
        key = checked_key("openai", key, "typed")
    except SecretsError as error:
        raise KeyCheckFailed(str(error)) from None
    if not key:
        raise KeyCheckFailed("no OpenAI key to test: type one, or store one first")
    try:
        # Imported here: the OpenAI SDK takes about 0.4 s to import, and the window opens without it.
        from chats.embedders.openai_embedder import OpenAIEmbedder

        async with OpenAIEmbedder(
            key,
            model=settings.openai_embedding_model,
            base_url=settings.openai_base_url,
            timeout_seconds=CHECK_TIMEOUT_S,
            max_retries=0,
        ) as embedder:
            await embedder.embed(["test"])
    except EmbeddingError as error:
        raise KeyCheckFailed(_one_line(error, key)) from None
    return f"The OpenAI key works: {settings.openai_embedding_model} answered."


def _one_line(error: Exception, key: str) -> str:
    # Both SDK edges already keep the key out of their messages; this is the belt to those braces.
    text = " ".join(str(error).split()) or type(error).__name__
    return text.replace(key, "********")
