"""The one microphone stream: cursors that start in the past, survive cancellation, and hold what they need."""

from __future__ import annotations

import asyncio

import pytest

from tests.fakes.gemini_live_server import WAIT_S
from voice.audio.chunks import MIC_FORMAT, AudioChunk
from voice.audio.preroll import PrerollStream, StreamCursor

FRAME_MS = 80


def frame(number: int) -> AudioChunk:
    """The 80 ms frame `number` of a stream: it starts at `number * 80` ms, and its first sample is its number."""
    size = MIC_FORMAT.bytes_per_second * FRAME_MS // 1000
    return AudioChunk(MIC_FORMAT, number.to_bytes(2, "little") + bytes(size - 2), number * FRAME_MS)


def number(chunk: AudioChunk) -> int:
    return int.from_bytes(chunk.pcm[:2], "little")


async def read(cursor: StreamCursor, count: int) -> list[int]:
    numbers = []
    async with asyncio.timeout(WAIT_S):
        async for chunk in cursor:
            numbers.append(number(chunk))
            if len(numbers) == count:
                break
    return numbers


async def test_a_cursor_opened_after_the_fact_replays_from_the_time_it_asks() -> None:
    stream = PrerollStream(keep_ms=400)
    with stream.since() as live:
        for n in range(10):
            stream.append(frame(n))
        assert await read(live, 10) == list(range(10))
        with stream.since(800 - 240) as conversation:  # frame 9 ends at 800 ms: the 240 ms before it
            stream.append(frame(10))
            assert await read(conversation, 4) == [7, 8, 9, 10]


async def test_since_now_reads_only_what_comes_next() -> None:
    stream = PrerollStream(keep_ms=1000)
    for n in range(3):
        stream.append(frame(n))
    with stream.since(stream.end_ms) as cursor:
        stream.append(frame(3))
        stream.end()
        assert [number(chunk) async for chunk in cursor] == [3]


async def test_a_cancelled_read_loses_no_chunk_and_an_ended_stream_ends_every_read() -> None:
    stream = PrerollStream()
    with stream.since() as cursor:
        waiting = asyncio.create_task(anext(cursor))
        await asyncio.sleep(0)
        waiting.cancel()  # a connection's uplink, cancelled while it waited
        with pytest.raises(asyncio.CancelledError):
            await waiting
        stream.append(frame(0))
        stream.append(frame(1))
        stream.end()
        assert [number(chunk) async for chunk in cursor] == [0, 1]  # the next uplink reads on
        assert [chunk async for chunk in cursor] == []  # and the one after it ends at once


async def test_the_buffer_holds_what_open_cursors_have_not_read_and_keep_ms_before_it() -> None:
    stream = PrerollStream(keep_ms=160)
    with stream.since() as cursor:
        for n in range(20):
            stream.append(frame(n))
        assert stream.held == 20  # nothing read yet: all of it is held
        assert await read(cursor, 10) == list(range(10))
        stream.append(frame(20))
        # Read up to frame 9 (its end, 800 ms): frames 8 and 9 are the 160 ms kept before it, then the unread.
        assert stream.held == 13
        with stream.since(0) as late:
            assert await read(late, 1) == [8]  # the oldest kept


async def test_with_no_cursor_open_nothing_is_dropped() -> None:
    stream = PrerollStream()
    for n in range(50):
        stream.append(frame(n))
    assert stream.held == 50  # the conversation's cursor is about to open, after the detector's closed
    with stream.since(3 * FRAME_MS) as cursor:
        assert await read(cursor, 2) == [3, 4]


async def test_a_writer_waits_for_room_behind_its_slowest_reader() -> None:
    stream = PrerollStream()
    with stream.since() as slow:
        for n in range(10):  # 800 ms that nobody has read
            stream.append(frame(n))
        waiting = asyncio.create_task(stream.room(480))
        await asyncio.sleep(0)  # a turn of the loop: the writer would go on now if it could
        assert not waiting.done()
        assert await read(slow, 3) == [0, 1, 2]  # 560 ms unread: still too far behind
        await asyncio.sleep(0)
        assert not waiting.done()
        assert await read(slow, 1) == [3]
        async with asyncio.timeout(WAIT_S):
            await waiting
    async with asyncio.timeout(WAIT_S):
        await stream.room(0)  # no reader open: nobody to wait for
