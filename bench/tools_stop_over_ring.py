"""A "stop" said over a ringing timer's own sound, for `bench.tools`: how often the spotter hears it, and how
often the ring's own sound alone stops it, on two views of the echo-cancelled microphone:

- `aec3`: AEC3's output, what the wake word and the live model hear. Its residual echo suppressor also
  takes 10-25 dB off the user's voice while Parley plays (double talk, `voice.echo.barge_in`).
- `linear`: the linear canceller's output beside it (`CancelledChunk.linear`), which leaves the user's voice
  whole and Parley's 15-20 dB down once the filter has converged;
- `spotter`: what the spotter itself chooses (`voice.offline.spotter`): `linear` once the filter is trusted,
  else `aec3`.

The room is tests/voice/laptop_room.py's (the laptop's speaker 5 cm from its microphone, a talker 2 m away,
the goal condition), one per seed; "stop" (espeak-ng) is said at a few moments of one round (the chime,
then "Your pasta timer is up."), with a fresh canceller (a ring soon after Parley starts) and with one that
has heard 15 s of Parley's voice (every later ring). False stops: the round heard alone, and one saying
"Your stop watch timer is up." (the worst case), listened to as the ringer does (for the stop words that the
ring does not say itself).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import Any

from tests.voice.fixtures import stream, utterances
from tests.voice.laptop_room import hear, talker_says, warmed_canceller
from tests.voice.offline.said import said
from tests.voice.rooms import GOAL_CONDITION, SimulatedRoom
from voice.audio.chunks import AudioChunk
from voice.audio.earcon import earcon
from voice.echo.barge_in import speech_over_playback
from voice.echo.canceller import CancelledChunk
from voice.offline.phrases import matching
from voice.offline.speech import EspeakSynthesizer
from voice.offline.spotter import PhraseSpotter

STOP = ("stop", "enough", "quiet", "shut up")
SAID_AT_MS = (100.0, 700.0, 1_300.0, 1_900.0)
"""Into the round: over the chime, and over the words' start, middle and end."""


VIEWS = ("aec3", "linear", "spotter")


def view(chunks: Iterable[AudioChunk], name: str) -> list[AudioChunk]:
    if name == "spotter":
        return list(chunks)
    return [
        AudioChunk(c.format, c.linear if name == "linear" and isinstance(c, CancelledChunk) else c.pcm, c.start_ms)
        for c in chunks
    ]


def unsaid(words: Iterable[str], text: str) -> list[str]:
    return [w for w in words if matching(text, [w]) is None]


async def timer_stop_over_the_ring(spotter: PhraseSpotter, seeds: int = 5) -> dict[str, Any]:
    barge_in = speech_over_playback()
    chime = earcon().pcm
    lines = ("Your pasta timer is up.", "Your stop watch timer is up.")
    round_, worst = [chime + await EspeakSynthesizer().synthesize(line) for line in lines]
    speech = await said("stop")
    speech_ms = utterances(speech)[-1][1]
    results: dict[str, Any] = {}
    for warmed in (False, True):
        heard = dict.fromkeys(VIEWS, 0)
        false = dict.fromkeys(VIEWS, 0)
        for seed in range(seeds):
            room = SimulatedRoom(GOAL_CONDITION, seed=seed)
            for at_ms in SAID_AT_MS:
                canceller = await warmed_canceller(room, barge_in, 15.0, seed) if warmed else None
                run = await hear(room, round_, [talker_says(room, at_ms, speech)], barge_in, canceller=canceller)
                for name in heard:
                    spotted = await spotter.spot(stream(view(run.cleaned, name)), STOP, "en")
                    heard[name] += spotted is not None and spotted.end_ms < at_ms + speech_ms + 800.0
            for sound, line in ((round_, lines[0]), (worst, lines[1])):
                canceller = await warmed_canceller(room, barge_in, 15.0, seed) if warmed else None
                alone = await hear(room, sound, [], barge_in, canceller=canceller)
                for name in false:
                    words = unsaid(STOP, line)
                    false[name] += await spotter.spot(stream(view(alone.cleaned, name)), words, "en") is not None
        key = "warmed_canceller" if warmed else "fresh_canceller"
        results[key] = {
            name: {
                "heard": heard[name],
                "said": seeds * len(SAID_AT_MS),
                "false_stops": false[name],
                "rings": 2 * seeds,
            }
            for name in heard
        }
    return results


async def stop_over_the_ring() -> dict[str, Any]:
    """The measurement with the spotter `app.timers` loads (from the model cache)."""
    from app.config.settings import model_cache

    return await timer_stop_over_the_ring(await asyncio.to_thread(PhraseSpotter.load, model_cache()))
