"""The offline voice in the user's language (issue 17), on the real models: Whisper told the language or
finding it, espeak-ng speaking each language with its own voice, and the chat model, which writes only
English, saying so once."""

from __future__ import annotations

import re
from collections.abc import Iterator

import numpy as np
import pytest

from tests.voice.offline.said import said
from voice.audio.chunks import MODEL_VOICE_FORMAT
from voice.offline.chat_model import LANGUAGES
from voice.offline.engine import ENGLISH_ONLY_NOTICE, LoadedTranscriber, ModelFolders, OfflineVoice
from voice.offline.speech import VOICES, EspeakSynthesizer, voice_for
from voice.offline.transcriber import WhisperTranscriber

SAID = {
    "it": "Torniamo alla chat sulla ristrutturazione della cucina.",
    "es": "Volvamos al chat sobre el viaje a Japón.",
    "fr": "Revenons à la discussion sur le jardin.",
    "de": "Zurück zum Chat über die Gitarre.",
}
HEARD_WORDS = {"it": {"torniamo", "alla"}, "es": {"volvamos", "viaje", "japón"}, "de": {"zurück", "chat"}}
"""Words Whisper base hears in espeak-ng's voice of each language (its French is too robotic for words)."""


def words(text: str) -> set[str]:
    return set(re.findall(r"\w+", text.lower()))


async def spoken(language: str) -> bytes:
    """`SAID[language]` spoken by espeak-ng in that language's voice, at the microphone's 16 kHz."""
    return await said(SAID[language], language)


@pytest.fixture(scope="module")
def whisper(model_folders: ModelFolders) -> WhisperTranscriber:
    return WhisperTranscriber(model_folders.whisper)


def test_each_language_has_its_espeak_voice() -> None:
    assert VOICES == {"en": "en-us", "it": "it", "es": "es", "fr": "fr-fr", "de": "de", "pt": "pt"}
    assert voice_for("ja") == "en-us"  # none here: English


async def test_espeak_speaks_each_language_in_its_own_voice() -> None:
    english = await EspeakSynthesizer().synthesize("Gitarre", voice=voice_for("en"))
    for language in ("it", "es", "fr", "de"):
        pcm = await EspeakSynthesizer().synthesize(SAID[language], voice=voice_for(language))
        samples = np.frombuffer(pcm, dtype="<i2")
        assert 1.0 < len(samples) / MODEL_VOICE_FORMAT.rate < 5.0, language
        assert np.abs(samples).max() > 3000, language  # speech, not silence
    german = await EspeakSynthesizer().synthesize("Gitarre", voice=voice_for("de"))
    assert german != english  # the same word, said by another voice


@pytest.mark.parametrize("language", sorted(HEARD_WORDS))
async def test_whisper_told_the_language_hears_it(whisper: WhisperTranscriber, language: str) -> None:
    heard = whisper.transcribe(await spoken(language), language=language)
    assert heard.language == language and heard.language_probability == 1.0
    assert HEARD_WORDS[language] <= words(heard.text), heard.text


@pytest.mark.parametrize("language", ["it", "es", "fr", "de"])
async def test_whisper_finds_the_language_among_the_supported_ones(whisper: WhisperTranscriber, language: str) -> None:
    # Alone, Whisper base calls espeak-ng's Italian Czech and its French Japanese (at 0.55).
    heard = whisper.transcribe(await spoken(language), language=None, among=tuple(VOICES))
    assert heard.language == language
    assert heard.language_probability >= 0.5


@pytest.fixture(scope="module")
def auto_voice(model_folders: ModelFolders) -> Iterator[OfflineVoice]:
    def language_of(text: str, hint: str) -> str:
        # A stand-in for the app's detector (chats.language.words): the notices and Spanish here, else the hint.
        return "es" if text.startswith(("Mi pequeño", "Vale", "¿")) else hint

    whisper = LoadedTranscriber(WhisperTranscriber(model_folders.whisper))
    voice = OfflineVoice.load_sync(model_folders.whisper.parent, whisper, language=None, language_of=language_of)
    yield voice
    voice.close()


async def test_with_auto_the_voice_speaks_the_language_it_heard_and_says_once_it_answers_in_english(
    auto_voice: OfflineVoice,
) -> None:
    assert "es" not in LANGUAGES  # SmolLM2-135M writes English only
    heard = await auto_voice.transcribe(await spoken("es"))
    assert "volvamos" in words(heard) and auto_voice.language == "es"

    assert auto_voice.english_only_notice() == ENGLISH_ONLY_NOTICE["es"]
    assert auto_voice.english_only_notice() is None  # once

    # Each sentence in its own language's voice: the notice in Spanish, the model's English in English.
    spanish = await EspeakSynthesizer().synthesize("Vale.", voice="es")
    assert await auto_voice.speak("Vale.") == spanish
    # A sentence the detector cannot place is said in the language spoken now (the hint it is given).
    assert await auto_voice.speak("Sunny.") == await EspeakSynthesizer().synthesize("Sunny.", voice="es")
