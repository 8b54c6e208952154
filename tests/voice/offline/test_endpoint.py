"""End of speech: the pure endpointer on scripted probabilities, then with the real Silero model on the
fixtures, whose speech spans are known from their samples."""

from __future__ import annotations

import pytest

from tests.voice.fixtures import read_pcm, silence, utterances
from voice.echo.vad import WINDOW_BYTES, SileroVad, load_session
from voice.offline.endpoint import EndpointConfig, Endpointer, EndpointEvent, SpeechEnded, SpeechStarted

WINDOW = bytes(WINDOW_BYTES)  # 32 ms


def scripted(probabilities: list[float], config: EndpointConfig | None = None) -> list[EndpointEvent]:
    endpointer = Endpointer(config)
    events = [event for p in probabilities for event in endpointer.push(WINDOW, p)]
    return events + endpointer.flush()


def test_speech_starts_after_three_windows_and_ends_after_the_hangover() -> None:
    events = scripted([0.0] * 10 + [0.9] * 20 + [0.1] * 18 + [0.0] * 5)
    assert [type(e) for e in events] == [SpeechStarted, SpeechEnded]
    started, ended = events
    assert isinstance(started, SpeechStarted) and isinstance(ended, SpeechEnded)
    assert started.start_ms == pytest.approx(320.0)
    assert ended.end_ms == pytest.approx(960.0)  # the last speech window's end, not the hangover's
    assert len(ended.pcm) == WINDOW_BYTES * 26  # 6 windows of pad before the start, and the 20 of speech


def test_a_pause_shorter_than_the_hangover_is_bridged_and_clicks_are_ignored() -> None:
    events = scripted([0.9, 0.9, 0.0] * 3 + [0.9] * 10 + [0.0] * 10 + [0.9] * 10 + [0.0] * 20)
    assert [type(e) for e in events] == [SpeechStarted, SpeechEnded]


def test_an_utterance_is_cut_at_the_longest_whisper_reads() -> None:
    events = scripted([0.9] * 40, EndpointConfig(max_ms=640.0))
    assert [type(e) for e in events] == [SpeechStarted, SpeechEnded, SpeechStarted, SpeechEnded]


def test_the_wake_phrase_tail_the_stream_starts_with_is_dropped() -> None:
    config = EndpointConfig(skip_leading=True)
    tail_then_question = [0.9] * 20 + [0.0] * 9 + [0.9] * 30 + [0.0] * 20
    events = scripted(tail_then_question, config)
    assert [type(e) for e in events] == [SpeechStarted, SpeechEnded]
    assert events[0].start_ms == pytest.approx(29 * 32.0)
    # Long speech from the start was no tail: kept whole, announced once it is known.
    events = scripted([0.9] * 60 + [0.0] * 20, config)
    assert [type(e) for e in events] == [SpeechStarted, SpeechEnded]
    assert isinstance(events[1], SpeechEnded) and len(events[1].pcm) == 60 * WINDOW_BYTES


def run_silero(pcm: bytes, chunk_bytes: int, config: EndpointConfig | None = None) -> list[EndpointEvent]:
    vad, endpointer = SileroVad(load_session()), Endpointer(config)
    events: list[EndpointEvent] = []
    for at in range(0, len(pcm), chunk_bytes):
        for window, probability in vad.push(pcm[at : at + chunk_bytes]):
            events += endpointer.push(window, probability)
    return events + endpointer.flush()


@pytest.mark.parametrize("name", ["wake_weather", "wake_switch_chat", "speech_hello"])
def test_silero_finds_the_speech_of_each_fixture(name: str) -> None:
    pcm = read_pcm(name)
    spans = utterances(pcm)
    first_start, last_end = spans[0][0], spans[-1][1]
    events = run_silero(pcm + silence(600), 2560)
    assert [type(e) for e in events] == [SpeechStarted, SpeechEnded]
    started, ended = events
    assert isinstance(started, SpeechStarted) and isinstance(ended, SpeechEnded)
    assert abs(started.start_ms - first_start) <= 150
    assert abs(ended.end_ms - last_end) <= 100


@pytest.mark.parametrize("name", ["silence", "white_noise", "pink_noise"])
def test_silero_hears_no_speech_in_noise(name: str) -> None:
    assert run_silero(read_pcm(name), 2560) == []


def test_chunk_sizes_do_not_change_the_scores() -> None:
    pcm = read_pcm("speech_hello")
    session = load_session()
    streamed = SileroVad(session)
    a = [p for at in range(0, len(pcm), 960) for _, p in streamed.push(pcm[at : at + 960])]
    b = SileroVad(session).push(pcm)
    assert len(a) == len(b) and all(abs(x - y) < 1e-5 for x, (_, y) in zip(a, b, strict=True))


def test_from_a_pre_roll_only_the_question_is_heard() -> None:
    pcm = read_pcm("wake_weather")
    spans = utterances(pcm)
    preroll_start = 800 * 32  # the assistant's pre-roll starts mid-phrase, 800 ms before the wake word fired
    events = run_silero(pcm[preroll_start:] + silence(600), 2560, EndpointConfig(skip_leading=True))
    assert [type(e) for e in events] == [SpeechStarted, SpeechEnded]
    question_start = spans[1][0] - 800
    assert abs(events[0].start_ms - question_start) <= 150
