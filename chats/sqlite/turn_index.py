"""One user's turn vectors of one embedding model, in memory: what `chats.sqlite.recall` searches.

The vectors are int8 rows (`chats.sqlite.int8_rows`) that grow by doubling; beside them, per row, its
chat, position and `turn_vectors` rowid, and per chat an array from position to row. Nothing here is a
Python object per turn: at 10,000 chats of 40 turns a dict keyed by (chat, position) took more memory
than the int8 vectors themselves. Rows of deleted chats stay in place, marked dead, until the next
full read.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from chats.sqlite.int8_rows import Int8Rows

TurnKey = tuple[str, int]
"""(chat id text, position in `full_history`)."""
Rows = npt.NDArray[np.int32]

_NONE = -1
"""In a chat's position-to-row array: no vector for that position."""


class ModelTurnIndex:
    def __init__(self, dimensions: int, capacity: int = 64) -> None:
        capacity = max(capacity, 64)
        self.size = 0
        """Rows in use, dead ones included."""
        self.live_rows = 0
        self.vectors = Int8Rows(dimensions, capacity)
        self.chat = np.zeros(capacity, dtype=np.int32)
        """Per row, the chat's code (its place in `chat_ids`)."""
        self.seq = np.zeros(capacity, dtype=np.int32)
        self.rowid = np.zeros(capacity, dtype=np.int64)
        """Per row, its `turn_vectors` rowid: where its exact float32 vector is read back."""
        self.chat_ids: list[str] = []
        self.chat_code: dict[str, int] = {}
        self._rows_by_position: list[Rows] = []
        """Per chat code, the row of each position (`_NONE` where there is none)."""
        self.dead: set[int] = set()
        self.high_water = 0
        """The largest `turn_vectors` rowid read."""

    @property
    def dimensions(self) -> int:
        return self.vectors.dimensions

    @property
    def nbytes(self) -> int:
        """Bytes the vectors and the per-row arrays hold."""
        return self.vectors.nbytes + int(self.chat.nbytes + self.seq.nbytes + self.rowid.nbytes)

    def row_of(self, key: TurnKey) -> int | None:
        code = self.chat_code.get(key[0])
        if code is None:
            return None
        rows = self._rows_by_position[code]
        row = int(rows[key[1]]) if 0 <= key[1] < len(rows) else _NONE
        return None if row == _NONE else row

    def rows_of(self, chat_id: str, first: int = 0) -> Rows:
        """The rows of the chat's turns at position `first` and after."""
        code = self.chat_code.get(chat_id)
        if code is None:
            return np.zeros(0, dtype=np.int32)
        rows = self._rows_by_position[code][max(first, 0) :]
        found: Rows = rows[rows != _NONE]
        return found

    def add(self, found: Sequence[tuple[int, str, int, bytes]]) -> None:
        """Rows as (rowid, chat id, seq, blob); a turn seen before has its row replaced."""
        if not found:
            return
        self.high_water = max(self.high_water, *(row[0] for row in found))
        # Blobs of another width (a damaged row) are left out rather than break every search.
        found = [row for row in found if len(row[3]) == self.dimensions * 4]
        if not found:
            return
        # One buffer for all the blobs: a numpy call per row would cost more than the read itself.
        vectors = np.frombuffer(b"".join(row[3] for row in found), dtype="<f4").reshape(len(found), -1)
        self._reserve(len(found))
        targets = np.empty(len(found), dtype=np.int64)
        for i, (rowid, chat_id, seq, _) in enumerate(found):
            rows = self._positions(chat_id, seq)
            row = int(rows[seq])
            if row == _NONE:
                row = self.size
                rows[seq] = row
                self.size += 1
                self.live_rows += 1
                self.chat[row], self.seq[row] = self.chat_code[chat_id], seq
            targets[i] = row
            self.rowid[row] = rowid
        self.vectors.put(targets, vectors)

    def forget_chat(self, chat_id: str) -> None:
        code = self.chat_code.get(chat_id)
        if code is None:
            return
        gone = self.rows_of(chat_id)
        self.dead.update(gone.tolist())
        self.live_rows -= len(gone)
        self._rows_by_position[code] = np.full(0, _NONE, dtype=np.int32)

    def _positions(self, chat_id: str, seq: int) -> Rows:
        """The chat's position-to-row array, long enough to hold `seq` (a new chat gets a code)."""
        code = self.chat_code.get(chat_id)
        if code is None:
            code = self.chat_code[chat_id] = len(self.chat_ids)
            self.chat_ids.append(chat_id)
            self._rows_by_position.append(np.full(0, _NONE, dtype=np.int32))
        rows = self._rows_by_position[code]
        if seq >= len(rows):
            more = np.full(max(seq + 1 - len(rows), len(rows)), _NONE, dtype=np.int32)
            rows = self._rows_by_position[code] = np.concatenate([rows, more])
        return rows

    def _reserve(self, more: int) -> None:
        if self.size + more <= len(self.vectors):
            return
        capacity = max(2 * len(self.vectors), self.size + more)
        self.vectors.resize(capacity, self.size)
        self.chat = np.resize(self.chat, capacity)
        self.seq = np.resize(self.seq, capacity)
        self.rowid = np.resize(self.rowid, capacity)
