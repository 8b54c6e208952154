"""The microphone level test's arithmetic, its listening on a synthetic source, and the live level meter."""

from __future__ import annotations

import pytest

from voice.audio.level import SILENCE_DBFS, LevelMeter, loudest, peak_dbfs
from voice.audio.synthetic import SyntheticSource, frames, silence, tone


def test_full_scale_is_zero_dbfs_and_half_scale_about_minus_six() -> None:
    assert peak_dbfs((-32768).to_bytes(2, "little", signed=True)) == 0.0
    assert peak_dbfs((16384).to_bytes(2, "little", signed=True)) == pytest.approx(-6.02, abs=0.01)


def test_silence_and_nothing_are_the_floor() -> None:
    assert peak_dbfs(silence(80).pcm) == SILENCE_DBFS
    assert peak_dbfs(b"") == SILENCE_DBFS
    assert peak_dbfs(b"\x01") == SILENCE_DBFS  # half a sample is no sample


async def test_loudest_reports_the_peak_of_what_it_heard_and_closes_the_source() -> None:
    source = SyntheticSource(frames(silence(400), tone(400, amplitude=0.1), silence(400)))
    level = await loudest(source, seconds=2.0)
    assert level == pytest.approx(-20.0, abs=0.1)
    assert [chunk async for chunk in source.chunks()] == []  # closed


async def test_loudest_stops_listening_after_the_time_asked() -> None:
    source = SyntheticSource(frames(silence(400), tone(400, amplitude=0.5)))
    assert await loudest(source, seconds=0.4) == SILENCE_DBFS


def test_the_meter_reports_about_ten_times_a_second_of_80_ms_chunks() -> None:
    meter = LevelMeter()
    reports = [meter.feed(chunk) for chunk in frames(silence(2000))]
    assert len(reports) == 25
    assert sum(level is not None for level in reports) == 20
    assert reports[:6] == [None, SILENCE_DBFS, SILENCE_DBFS, SILENCE_DBFS, SILENCE_DBFS, None]


def test_a_report_is_the_peak_since_the_last_one() -> None:
    meter = LevelMeter(interval_ms=160)
    loud = frames(tone(80, amplitude=0.5), silence(80))
    quiet = frames(silence(160), start_ms=160)
    assert meter.feed(loud[0]) is None
    assert meter.feed(loud[1]) == pytest.approx(-6.0, abs=0.1)  # the tone, though the last chunk was silent
    assert meter.feed(quiet[0]) is None
    assert meter.feed(quiet[1]) == SILENCE_DBFS


def test_long_chunks_give_one_report_each_and_a_reset_starts_afresh() -> None:
    meter = LevelMeter()
    long_chunks = frames(tone(600, amplitude=0.1), frame_ms=200)
    assert [meter.feed(chunk) is not None for chunk in long_chunks] == [True, True, True]
    assert meter.feed(tone(80, amplitude=0.5, start_ms=600)) is None
    meter.reset()
    assert meter.feed(silence(80, start_ms=2000)) is None
    assert meter.feed(silence(80, start_ms=2080)) == SILENCE_DBFS  # the loud chunk before the reset is gone
