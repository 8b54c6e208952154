"""Unit vectors kept as int8 in memory, a quarter of float32's bytes, for exact similarity search.

Each row keeps its own scale (its largest absolute component / 127), so a component is off by at most
half a step: all-MiniLM-L6-v2 cosines move by about 0.002, which may swap near-ties at the edge of a
candidate list but not what the candidates are (bench/recall.py measures recall@5). A search converts
`CHUNK_ROWS` rows at a time into one reused float32 buffer and multiplies it with the query, so it
never holds a float32 copy of the matrix: 400,000 turns of 384 dimensions take 155 MB instead of 614.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

Floats = npt.NDArray[np.float32]

STEPS = 127
"""int8 steps on each side of zero."""
CHUNK_ROWS = 1024
"""Rows converted per step of a search: 1.5 MB of float32 at 384 dimensions, which stays in cache
(on a 2-core machine, 1,024 was as fast as float32 rows; 16,384 was several times slower)."""


class Int8Rows:
    """A matrix of int8 rows with a float32 scale each, growing by doubling."""

    def __init__(self, dimensions: int, capacity: int) -> None:
        self.values = np.zeros((capacity, dimensions), dtype=np.int8)
        self.scales = np.zeros(capacity, dtype=np.float32)

    def __len__(self) -> int:
        return len(self.values)

    @property
    def dimensions(self) -> int:
        return int(self.values.shape[1])

    @property
    def nbytes(self) -> int:
        """Bytes the rows hold in memory."""
        return int(self.values.nbytes + self.scales.nbytes)

    def put(self, targets: npt.NDArray[np.int64], vectors: Floats) -> None:
        """Write `vectors` (float32 rows) into the rows `targets`."""
        largest = np.abs(vectors).max(axis=1)
        scales = np.where(largest > 0, largest / STEPS, 1.0).astype(np.float32)
        self.values[targets] = np.rint(vectors / scales[:, None]).astype(np.int8)
        self.scales[targets] = scales

    def resize(self, capacity: int, keep: int) -> None:
        """Grow to `capacity` rows, keeping the first `keep`."""
        values = np.zeros((capacity, self.dimensions), dtype=np.int8)
        values[:keep] = self.values[:keep]
        scales = np.zeros(capacity, dtype=np.float32)
        scales[:keep] = self.scales[:keep]
        self.values, self.scales = values, scales

    def dot(self, query: Floats, size: int) -> Floats:
        """The dot product of `query` with each of the first `size` rows."""
        query = query.astype(np.float32)
        out = np.empty(size, dtype=np.float32)
        buffer = np.empty((min(CHUNK_ROWS, size), self.dimensions), dtype=np.float32)
        for start in range(0, size, CHUNK_ROWS):
            block = self.values[start : min(start + CHUNK_ROWS, size)]
            converted = buffer[: len(block)]
            np.copyto(converted, block, casting="unsafe")
            np.dot(converted, query, out=out[start : start + len(block)])
        out *= self.scales[:size]
        return out
