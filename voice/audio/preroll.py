"""The microphone's stream as every stage reads it: one buffer, read through cursors that can start in the past.

The assistant's pump appends each chunk the microphone gives; the wake detector reads it live through one
cursor, and on the wake word the conversation opens another a little before the detection, so the words said
right after the wake word (which detection lags) reach the model too. There is no copy between the two and
no second queue: a cursor is a position in the one buffer.

A cursor is an async iterator whose `__anext__` may be cancelled without losing a chunk: it advances only
when it returns one. So a session can read it from one uplink task per connection, each cancelled when its
connection ends, and the next connection sends on from where the last one stopped. Once the stream has
ended (a recording ran out, the microphone failed) every cursor ends after the chunks still ahead of it,
and ends again at once each time it is iterated.

The buffer keeps every chunk an open cursor has not read, and `keep_ms` before the oldest position of
them; with no cursor open, everything (one is about to open: the conversation's, when the wake word has
fired and the detector's cursor closed). On the event loop only.
"""

from __future__ import annotations

import asyncio
from collections import deque
from types import TracebackType

from voice.audio.chunks import AudioChunk


class PrerollStream:
    """Chunks in order, appended by one writer, read by any number of `StreamCursor`s."""

    def __init__(self, *, keep_ms: float = 0.0) -> None:
        """`keep_ms`: audio kept before what the slowest open cursor has read (milliseconds), so a cursor
        opened later can start that far back."""
        self._keep_ms = keep_ms
        self._chunks: deque[AudioChunk] = deque()
        self._first = 0
        """The position (chunks since the stream began) of `_chunks[0]`."""
        self._cursors: set[StreamCursor] = set()
        self._grown = asyncio.Event()
        """Set, and replaced, on every append and at the end: what a cursor at the end waits on."""
        self._read = asyncio.Event()
        """Set, and replaced, whenever a cursor reads or closes: what a writer waiting for `room` waits on."""
        self._ended = False
        self._end_ms = 0.0

    @property
    def end_ms(self) -> float:
        """End of the last chunk appended (milliseconds into the stream): where "now" is."""
        return self._end_ms

    @property
    def ended(self) -> bool:
        return self._ended

    @property
    def held(self) -> int:
        """Chunks in the buffer (for tests and figures)."""
        return len(self._chunks)

    def append(self, chunk: AudioChunk) -> None:
        if self._ended:
            raise RuntimeError("the stream has ended")
        self._chunks.append(chunk)
        self._end_ms = chunk.end_ms
        self._trim()
        self._wake_cursors()

    def end(self) -> None:
        """No more chunks: cursors end once they have read what is buffered. Idempotent."""
        if not self._ended:
            self._ended = True
            self._wake_cursors()

    async def room(self, behind_ms: float) -> None:
        """Return once no open cursor is more than `behind_ms` (milliseconds) behind the end. A recording read
        as fast as it can be (`--fast`) waits here for its slowest reader instead of piling up in the buffer
        (an hour's recording was 50 MB of it); a microphone waits only behind a reader stuck that long, and
        its own bounded queue drops what comes meanwhile."""
        while self._cursors and self._end_ms - self._unread_ms() > behind_ms:
            await self._read.wait()

    def since(self, ms: float | None = None) -> StreamCursor:
        """A cursor from the first buffered chunk that ends after `ms` (milliseconds into the stream), so
        `since(self.end_ms)` reads from now on; None: from the oldest chunk kept. Close it when done (it is a
        context manager): an open cursor holds what it has not read."""
        index = self._first
        if ms is not None:
            for chunk in self._chunks:
                if chunk.end_ms > ms:
                    break
                index += 1
        cursor = StreamCursor(self, index)
        self._cursors.add(cursor)
        return cursor

    def _at(self, index: int) -> AudioChunk | None:
        offset = index - self._first
        return self._chunks[offset] if offset < len(self._chunks) else None

    async def _wait(self) -> None:
        await self._grown.wait()

    def _wake_cursors(self) -> None:
        self._grown.set()
        self._grown = asyncio.Event()

    def _moved(self) -> None:
        self._read.set()
        self._read = asyncio.Event()

    def _close(self, cursor: StreamCursor) -> None:
        self._cursors.discard(cursor)
        self._moved()

    def _unread_ms(self) -> float:
        """Where the slowest open cursor is (milliseconds into the stream); the end when it has read all."""
        unread = self._at(min(cursor.position for cursor in self._cursors))
        return unread.start_ms if unread is not None else self._end_ms

    def _trim(self) -> None:
        if not self._cursors:
            return  # a cursor is about to open: keep all until it does
        oldest = min(cursor.position for cursor in self._cursors)
        edge_ms = self._unread_ms()
        while self._first < oldest and self._chunks[0].end_ms <= edge_ms - self._keep_ms:
            self._chunks.popleft()
            self._first += 1


class StreamCursor:
    """A position in a `PrerollStream`, read as an async iterator of chunks (cancel-safe: see the module)."""

    def __init__(self, stream: PrerollStream, position: int) -> None:
        self._stream = stream
        self.position = position
        """The next chunk to read, counted from the start of the stream."""

    def __aiter__(self) -> StreamCursor:
        return self

    async def __anext__(self) -> AudioChunk:
        stream = self._stream
        while True:
            # A cursor left behind by a trim (it cannot be: the buffer keeps what open cursors have not read)
            # would skip to the oldest chunk kept rather than fail.
            self.position = max(self.position, stream._first)
            chunk = stream._at(self.position)
            if chunk is not None:
                self.position += 1
                stream._moved()
                return chunk
            if stream.ended:
                raise StopAsyncIteration
            await stream._wait()

    def close(self) -> None:
        """Stop holding the stream's chunks for this cursor. Idempotent."""
        self._stream._close(self)

    def __enter__(self) -> StreamCursor:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()
