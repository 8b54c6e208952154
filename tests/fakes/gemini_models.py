"""The models a fake Gemini endpoint knows, and the REST answers about them (`models.list`, `models.get`).

Both fakes serve them: the REST fake (`gemini_server`) and the Live fake (`gemini_live_server`, which
also refuses a Live session for a model it does not list with `bidiGenerateContent`). The wire format is
the API's: `GET /{version}/models?pageSize=N&pageToken=T` answers `{"models": [...], "nextPageToken": T}`;
`GET /{version}/models/{name}` answers one model, or 404 NOT_FOUND. Each model carries
`supportedGenerationMethods`: a Live model lists `bidiGenerateContent`, a text model `generateContent`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

LIVE = ("bidiGenerateContent", "countTokens")
"""What the service lists for its Live models."""
TEXT = ("generateContent", "countTokens", "createCachedContent", "batchGenerateContent")
EMBEDDING = ("embedContent", "countTextTokens", "countTokens", "asyncBatchEmbedContent")

_PATH = re.compile(r"^/(?P<version>v\d+\w*)/models(?:/(?P<name>[^/:]+))?$")


@dataclass(frozen=True, slots=True)
class KnownModel:
    name: str
    """The id without "models/"."""
    display_name: str
    methods: tuple[str, ...]
    input_token_limit: int = 131_072
    output_token_limit: int = 65_536

    def resource(self) -> dict[str, Any]:
        """The model as the API lists it."""
        return {
            "name": f"models/{self.name}",
            "version": "001",
            "displayName": self.display_name,
            "description": f"{self.display_name} (a fake's catalogue entry).",
            "inputTokenLimit": self.input_token_limit,
            "outputTokenLimit": self.output_token_limit,
            "supportedGenerationMethods": list(self.methods),
        }


CATALOGUE: tuple[KnownModel, ...] = (
    # Names Google's model pages list as of late 2026 (ai.google.dev/gemini-api/docs/models).
    KnownModel("gemini-3.8-live", "Gemini 3.8 Live", LIVE),
    KnownModel("gemini-3.8-live-extended-thinking", "Gemini 3.8 Live Extended Thinking", LIVE),
    KnownModel("gemini-3.1-flash-live-preview", "Gemini 3.1 Flash Live Preview", LIVE),
    KnownModel("gemini-2.5-flash-native-audio-preview-12-2025", "Gemini 2.5 Flash Native Audio", LIVE),
    KnownModel("gemini-3.8-flash", "Gemini 3.8 Flash", TEXT, 1_048_576),
    KnownModel("gemini-3.5-flash", "Gemini 3.5 Flash", TEXT, 1_048_576),
    KnownModel("gemini-3.5-flash-lite", "Gemini 3.5 Flash-Lite", TEXT, 1_048_576),
    KnownModel("gemini-2.5-flash-lite", "Gemini 2.5 Flash-Lite", TEXT, 1_048_576),
    KnownModel("gemini-embedding-001", "Gemini Embedding 001", EMBEDDING, 2_048, 1),
    KnownModel("gemini-embedding-2", "Gemini Embedding 2", EMBEDDING, 8_192, 1),
    # The suite's own: an older 2.x native audio name its protocol tests use, and an unversioned test name
    # (which this fake treats as the newest protocol).
    KnownModel("gemini-2.5-flash-native-audio-preview-09-2025", "Gemini 2.5 Flash Native Audio (09-2025)", LIVE),
    KnownModel("gemini-test-live", "A test Live model", LIVE),
)


def find(models: Sequence[KnownModel], name: str) -> KnownModel | None:
    """The model called `name` ("models/" or not), if the catalogue holds it."""
    bare = name.removeprefix("models/")
    return next((model for model in models if model.name == bare), None)


def unknown_model_reason(model: str, api_version: str) -> str:
    """The close reason the Live service gives for a model it does not know or that does not do Live.
    Logged by projects that met it (livekit/agents#4414, google/adk-python#3964, google-gemini/cookbook#904):
    `received 1008 (policy violation) models/gemini-live-2.5-flash-preview is not found for API version
    v1beta, or is not supported for bidiGenerateContent. Call` (cut to a close frame's 123 bytes)."""
    named = model if model.startswith("models/") else f"models/{model}"
    return (
        f"{named} is not found for API version {api_version}, or is not supported for bidiGenerateContent."
        " Call ListModels to see the list of available models and their supported methods."
    )


def is_models_path(path: str) -> bool:
    return _PATH.match(path) is not None


def models_answer(
    models: Sequence[KnownModel], path: str, query: Mapping[str, list[str]]
) -> tuple[int, dict[str, Any]]:
    """The status and JSON body for `GET path` (a models path: `is_models_path`), for an authorised caller."""
    match = _PATH.match(path)
    assert match is not None, path
    if (name := match["name"]) is not None:
        model = find(models, name)
        if model is None:
            # The API's NOT_FOUND wording for models (as for generateContent; the method name is ours).
            message = (
                f"models/{name} is not found for API version {match['version']}, or is not supported for GetModel."
                " Call ListModels to see the list of available models and their supported methods."
            )
            return 404, {"error": {"code": 404, "message": message, "status": "NOT_FOUND"}}
        return 200, model.resource()
    size = int((query.get("pageSize") or ["50"])[0])
    start = int((query.get("pageToken") or ["0"])[0] or 0)
    page: dict[str, Any] = {"models": [model.resource() for model in models[start : start + size]]}
    if start + size < len(models):
        page["nextPageToken"] = str(start + size)
    return 200, page
