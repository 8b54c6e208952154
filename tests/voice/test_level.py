"""The microphone level test's arithmetic, and its listening on a synthetic source."""

from __future__ import annotations

import pytest

from voice.level import SILENCE_DBFS, loudest, peak_dbfs
from voice.synthetic import SyntheticSource, frames, silence, tone


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
