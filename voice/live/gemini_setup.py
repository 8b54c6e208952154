"""What the setup frame of a Gemini Live session says, built from Parley's `LiveConfig` (google-genai's types):
the model, the prompt, the voice, the tools (function declarations with the JSON Schema their `parameters`
take, and Google Search), and the history a fresh session is seeded with. Pure. The wire facts behind it
are in `voice.live.gemini`'s opening docstring."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from google.genai import types

from voice.live.connection import HistoryTurn, LiveConfig, ToolDeclaration

log = logging.getLogger(__name__)


def build_connect_config(config: LiveConfig) -> types.LiveConnectConfig:
    """The `LiveConnectConfig` for `config`: audio out, both transcriptions, resumption and compression
    on, tools as function declarations, and history seeding when a fresh session has history."""
    speech = None
    if config.voice or config.language_code:
        voice = types.VoiceConfig(prebuilt_voice_config=types.PrebuiltVoiceConfig(voice_name=config.voice))
        speech = types.SpeechConfig(voice_config=voice if config.voice else None, language_code=config.language_code)
    tools: list[types.ToolUnion] = []
    if config.tools:
        tools.append(types.Tool(function_declarations=[_function_declaration(tool) for tool in config.tools]))
    if config.web_search:
        tools.append(types.Tool(google_search=types.GoogleSearch()))
    return types.LiveConnectConfig(
        response_modalities=[types.Modality.AUDIO],
        system_instruction=config.system_prompt or None,
        speech_config=speech,
        tools=tools or None,
        input_audio_transcription=types.AudioTranscriptionConfig(),
        output_audio_transcription=types.AudioTranscriptionConfig(),
        # Always on, so every connection hands out handles; `handle` None starts a new session.
        session_resumption=types.SessionResumptionConfig(handle=config.resumption_handle),
        # Without compression an audio session ends after 15 minutes; the sliding window lets it go on.
        context_window_compression=types.ContextWindowCompressionConfig(sliding_window=types.SlidingWindow()),
        history_config=(
            types.HistoryConfig(initial_history_in_client_content=True) if history_contents(config) else None
        ),
    )


def history_contents(config: LiveConfig) -> list[types.Content]:
    """The turns to seed, or none when resuming (the service restores the history itself)."""
    if config.resumption_handle:
        return []
    return [_content(turn) for turn in config.history if turn.text.strip()]


def _content(turn: HistoryTurn) -> types.Content:
    return types.Content(role=turn.role, parts=[types.Part(text=turn.text)])


def _function_declaration(tool: ToolDeclaration) -> types.FunctionDeclaration:
    parameters, as_json_schema = None, None
    # The API rejects an object schema without properties: a tool without arguments declares none.
    if tool.parameters.get("properties"):
        try:
            parameters = types.Schema.from_json_schema(
                json_schema=types.JSONSchema.model_validate(_known_keys(tool.parameters)), api_option="GEMINI_API"
            )
        except ValueError:  # a schema from a user's MCP server that the SDK cannot translate: sent as it is
            log.warning("tool %s: arguments schema sent untranslated", tool.name)
            as_json_schema = dict(tool.parameters)
    # Parley's tools answer what the model is about to say (which chat, which memory): the model must wait
    # for the result. BLOCKING is what 2.x and 3.1 Live models do anyway; 3.8 Live calls functions
    # NON_BLOCKING unless a declaration says BLOCKING (its migration notes).
    return types.FunctionDeclaration(
        name=tool.name,
        description=tool.description,
        parameters=parameters,
        parameters_json_schema=as_json_schema,
        behavior=types.Behavior.BLOCKING,
    )


_SCHEMA_KEYS = frozenset(field.alias or name for name, field in types.JSONSchema.model_fields.items())
_SUBSCHEMA_LISTS = ("anyOf", "oneOf")
_SUBSCHEMA_MAPS = ("properties", "$defs")


def _known_keys(schema: Mapping[str, Any]) -> dict[str, Any]:
    """`schema` with only the keywords the SDK's `JSONSchema` knows, at every depth: an MCP server's schema
    may say `$schema`, `const` or `exclusiveMinimum`, which it refuses, and the tool matters more."""
    return {key: _known_in(key, value) for key, value in schema.items() if key in _SCHEMA_KEYS}


def _known_in(key: str, value: Any) -> Any:
    if key in _SUBSCHEMA_MAPS and isinstance(value, Mapping):
        return {name: _known_keys(sub) if isinstance(sub, Mapping) else sub for name, sub in value.items()}
    if key in _SUBSCHEMA_LISTS and isinstance(value, list):
        return [_known_keys(sub) if isinstance(sub, Mapping) else sub for sub in value]
    if key in ("items", "additionalProperties") and isinstance(value, Mapping):
        return _known_keys(value)
    return value
