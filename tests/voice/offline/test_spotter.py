"""The phrase spotter on the real Silero VAD and Whisper base: a short command heard in a microphone stream,
other words and Parley's own sound (a ringing timer through a laptop in a room, echo-cancelled as the voice
loop wires it) not."""

from __future__ import annotations

import pytest

from tests.voice.fixtures import silence, split, stream, utterances
from tests.voice.laptop_room import hear, talker_says
from tests.voice.offline.said import said
from tests.voice.rooms import GOAL_CONDITION, SimulatedRoom
from voice.audio.chunks import MODEL_VOICE_FORMAT
from voice.audio.earcon import earcon
from voice.echo.barge_in import SpeechOverPlaybackFactory, speech_over_playback
from voice.echo.canceller import CancelledChunk
from voice.offline.engine import ModelFolders
from voice.offline.phrases import matching
from voice.offline.speech import EspeakSynthesizer
from voice.offline.spotter import PhraseSpotter

ROUND_GAP_S = 5.0
"""Between a ring's rounds (`app.timers.ringing.ROUND_GAP_S`; the voice tests do not import the app)."""
STOP = {"en": ("stop",), "it": ("stop", "basta"), "fr": ("stop", "arrête"), "de": ("stopp", "stop", "aus")}


@pytest.fixture(scope="module")
def spotter(model_folders: ModelFolders) -> PhraseSpotter:
    return PhraseSpotter.load(model_folders.whisper.parent)


@pytest.fixture(scope="module")
def barge_in() -> SpeechOverPlaybackFactory:
    return speech_over_playback()


def test_a_phrase_matches_as_whole_words_whatever_the_case_accents_and_punctuation() -> None:
    assert matching("Stop!", ["stop"]) == "stop"
    assert matching("Okay, STOP it.", ["basta", "stop"]) == "stop"
    assert matching("Arrete !", ["arrête"]) == "arrête"
    assert matching("Hör auf.", ["stopp", "hör auf"]) == "hör auf"
    assert matching("Auf, hör!", ["hör auf"]) is None
    assert matching("We stopped at the bus stop", ["basta"]) is None
    assert matching("They stopped.", ["stop"]) is None
    assert matching("", ["stop"]) is None


@pytest.mark.parametrize(("language", "word"), [("en", "stop"), ("it", "basta"), ("de", "stopp"), ("fr", "stop")])
async def test_a_stop_word_is_heard_when_said_alone(spotter: PhraseSpotter, language: str, word: str) -> None:
    speech = await said(word, language)
    pcm = silence(600) + speech + silence(1_000)
    spotted = await spotter.spot(stream(split(pcm, start_ms=5_000.0)), STOP[language], language)
    assert spotted is not None and spotted.phrase == word
    end_ms = 5_000.0 + 600.0 + utterances(speech)[-1][1]
    assert end_ms - 150.0 < spotted.end_ms < end_ms + 150.0  # on the chunks' own clock


@pytest.mark.parametrize(("language", "word"), [("en", "hello"), ("it", "ciao"), ("en", "Your pasta timer is up.")])
async def test_other_words_stop_nothing(spotter: PhraseSpotter, language: str, word: str) -> None:
    pcm = silence(600) + await said(word, language) + silence(1_000)
    assert await spotter.spot(stream(split(pcm)), STOP[language], language) is None


async def ring_sound() -> bytes:
    """A timer's ring as the speaker plays it, three rounds (chime and words) `ROUND_GAP_S` apart: 24 kHz
    PCM16."""
    words = await EspeakSynthesizer().synthesize("Your stop watch timer is up.")  # the worst case: it says stop
    gap = bytes(round(MODEL_VOICE_FORMAT.bytes_per_second * ROUND_GAP_S) // 2 * 2)
    return (earcon().pcm + words + gap) * 3


async def test_the_rings_own_sound_through_the_room_stops_nothing(
    spotter: PhraseSpotter, barge_in: SpeechOverPlaybackFactory
) -> None:
    room = SimulatedRoom(GOAL_CONDITION, seed=7)
    heard = await hear(room, await ring_sound(), [], barge_in)
    assert await spotter.spot(stream(heard.cleaned), STOP["en"], "en") is None


async def test_stop_said_between_rounds_from_two_metres_is_heard(
    spotter: PhraseSpotter, barge_in: SpeechOverPlaybackFactory
) -> None:
    # Between rounds: over the ring's own words, WebRTC's echo suppression takes the user's voice down with
    # them (a "stop" there is heard or not), and the user says it again in the gap.
    room = SimulatedRoom(GOAL_CONDITION, seed=7)
    speech = await said("stop")
    heard = await hear(room, await ring_sound(), [talker_says(room, 4_500.0, speech)], barge_in)
    spotted = await spotter.spot(stream(heard.cleaned), STOP["en"], "en")
    assert spotted is not None and spotted.phrase == "stop"
    assert spotted.end_ms < 4_500.0 + utterances(speech)[-1][1] + 600.0  # that stop, not a later one


@pytest.mark.parametrize("trusted", [True, False])
async def test_once_the_linear_filter_is_trusted_its_view_is_heard_where_aec3_turned_the_user_down(
    spotter: PhraseSpotter, trusted: bool
) -> None:
    # AEC3's view: the user's "stop" suppressed to nothing (double talk); the linear canceller's: whole.
    pcm = silence(600) + await said("stop") + silence(1_000)
    chunks = [
        CancelledChunk(c.format, bytes(len(c.pcm)), c.start_ms, c.pcm, b"", trusted, 20_000.0) for c in split(pcm)
    ]
    spotted = await spotter.spot(stream(chunks), STOP["en"], "en")
    assert (spotted is not None) is trusted
