"""The phrase spotter on the real Silero VAD and Whisper base: a short command heard in a microphone stream,
other words and Parley's own sound (a ringing timer through a laptop in a room, echo-cancelled as the voice
loop wires it) not."""

from __future__ import annotations

import pytest

from tests.voice.fixtures import silence, split, stream, utterances
from tests.voice.laptop_room import hear, talker_says, warmed_canceller
from tests.voice.offline.said import said
from tests.voice.rooms import GOAL_CONDITION, SimulatedRoom
from voice.audio.chunks import MODEL_VOICE_FORMAT
from voice.audio.earcon import earcon
from voice.echo.barge_in import SpeechOverPlaybackFactory, speech_over_playback
from voice.offline.engine import ModelFolders
from voice.offline.heard import Heard
from voice.offline.phrases import matching
from voice.offline.speech import EspeakSynthesizer
from voice.offline.spotter import PhraseSpotter

ROUND_GAP_S = 5.0
"""Between a ring's rounds (`app.timers.ringing.ROUND_GAP_S`; the voice tests do not import the app)."""
RINGS_STOP_WORDS = ("stop", "enough", "quiet", "shut up")
"""What a ring listens for in English (`app.timers.sayings.STOP_WORDS`)."""
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


@pytest.mark.parametrize(("log_probability", "heard"), [(-0.1, True), (-1.1, False)])
async def test_words_whisper_is_unsure_of_stop_nothing(log_probability: float, heard: bool) -> None:
    # Prompted with the stop words, Whisper writes them over a ring's echo with nobody speaking, at a mean
    # token log probability of -0.9 to -1.3 (bench/tools_stop_over_ring.py's tuning part).
    async def whisper(pcm: bytes, prompt: str, language: str) -> Heard:
        return Heard("Stop.", language, 1.0, log_probability)

    spotter = PhraseSpotter.sharing(whisper)
    pcm = silence(600) + await said("stop") + silence(1_000)
    assert (await spotter.spot(stream(split(pcm)), STOP["en"], "en") is not None) is heard


async def test_stop_said_over_the_rings_words_is_heard_once_the_canceller_has_heard_parley(
    spotter: PhraseSpotter, barge_in: SpeechOverPlaybackFactory
) -> None:
    # AEC3 turns the user down under the ring's words, and Silero scores what is left 0.1: the utterance is
    # found on the linear canceller's output (the ring and the "stop" in one), read on AEC3's.
    room = SimulatedRoom(GOAL_CONDITION, seed=1)
    canceller = await warmed_canceller(room, barge_in, 15.0, seed=1)
    ring = earcon().pcm + await EspeakSynthesizer().synthesize("Your pasta timer is up.")
    # Over the words' end ("...is up."); over their start (100 ms) or into them (700 ms), Whisper's short
    # window writes the "stop" unsure (-0.5 to -1.0) in most rooms, as it writes stop words over a ring alone.
    said_at_ms = 1_300.0
    stop = [talker_says(room, said_at_ms, await said("stop"))]
    run = await hear(room, ring, stop, barge_in, canceller=canceller, duration_ms=3_500.0)  # read on after it
    spotted = await spotter.spot(stream(run.cleaned), RINGS_STOP_WORDS, "en")
    assert spotted is not None and spotted.phrase == "stop" and spotted.end_ms > said_at_ms
