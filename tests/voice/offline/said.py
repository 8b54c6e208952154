"""Words spoken by espeak-ng (the offline voice's synthesizer) at the microphone's 16 kHz: the tests' user,
made on the spot rather than committed."""

from __future__ import annotations

from voice.audio.chunks import MIC_FORMAT, MODEL_VOICE_FORMAT
from voice.audio.pcm import convert, pcm16_to_float
from voice.offline.speech import EspeakSynthesizer, voice_for


async def said(text: str, language: str = "en") -> bytes:
    """`text` in `language`'s espeak-ng voice, as 16 kHz mono PCM16."""
    pcm = await EspeakSynthesizer().synthesize(text, voice=voice_for(language))
    return convert(pcm16_to_float(pcm, 1), MODEL_VOICE_FORMAT.rate, MIC_FORMAT)
