"""What the embedders that call a service share: requests cut to the service's limits, and empty texts that
never leave the machine. No SDK here: each embedder module keeps its own."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

import numpy as np

from chats.embedding import Matrix


@dataclass(frozen=True, slots=True)
class RequestLimits:
    """How much one embedding request may carry."""

    max_inputs: int
    """Texts per request."""
    max_chars: int
    """Characters per request, summed over its texts; a single longer text still goes, alone."""


def plan_batches(lengths: Sequence[int], limits: RequestLimits) -> list[range]:
    """Split texts of these lengths (characters) into consecutive requests within both limits."""
    batches: list[range] = []
    start = chars = 0
    for i, length in enumerate(lengths):
        if i > start and (i - start == limits.max_inputs or chars + length > limits.max_chars):
            batches.append(range(start, i))
            start, chars = i, 0
        chars += length
    if start < len(lengths):
        batches.append(range(start, len(lengths)))
    return batches


async def embed_in_batches(
    texts: Sequence[str],
    dimensions: int,
    limits: RequestLimits,
    request: Callable[[list[str]], Awaitable[Matrix]],
) -> Matrix:
    """Embed `texts` with `request` (one call per batch, each answering one row per text) in as few calls
    as `limits` allow, one after another: rate limits are per key, so parallel calls would only queue.

    The services refuse empty strings; an empty text gets a zero row, which matches nothing.
    """
    out = np.zeros((len(texts), dimensions), dtype=np.float32)
    wanted = [i for i, text in enumerate(texts) if text]
    for batch in plan_batches([len(texts[i]) for i in wanted], limits):
        rows = [wanted[i] for i in batch]
        out[rows] = await request([texts[i] for i in rows])
    return out
