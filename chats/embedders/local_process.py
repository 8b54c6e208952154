"""The local models in a child process, for the window and the voice loop.

The local embedding model (all-MiniLM-L6-v2, or the multilingual encoder: `chats.embedders.local_models`)
runs with numpy and the offline summariser is plain Python: much of their work holds
the interpreter's lock, which the window's GUI thread needs for every slot and paint, and the audio
callbacks for every block. In the window's process, a backfill of recall vectors, the turns embedded
after a save or a compaction's summary froze the window for 100-300 ms at a time. In a child process
the same work costs this one nothing but a CPU core; and a child that is stopped gives all its memory back,
which a model let go in this process may not (the app stops it after a quiet spell: `app.on_demand`).

`LocalModelsProcess` starts `python -m chats.embedders.local_process MODEL` on its first call and keeps it; a child that
dies is started again at the next call, and the call it died in raises. Requests are one JSON line
each, `{"op": ..., ...}`; the answer is one JSON line, `{"error": "..."}` or the result, and for
`embed` the vectors follow as little-endian float32. `ProcessEmbedder` and `ProcessTextModel` are the
`Embedder` and `TextModel` over it.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import Sequence
from contextlib import suppress
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from chats.embedders.embedding import Matrix
from chats.embedders.local_embedder import InProcessEmbedder
from chats.embedders.local_models import local_embedder_named
from chats.embedders.minilm import MODEL_NAME as MINILM_MODEL_NAME
from chats.errors import ChatsError, EmbeddingError, TextModelError
from chats.models import Turn, turns_from_json, turns_to_json

CHUNK_TEXTS = 16
"""Texts per embedding request: about 50 ms of the child's work, the longest a search typed during a
backfill waits."""
ONE_THREAD = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
"""The child's BLAS keeps to one core, leaving the other to the window on a 2-core laptop."""
CLOSE_TIMEOUT_S = 5.0
OFFLINE_TEXT_MODEL = "offline-extractive"
"""`chats.text.offline_text.NAME`, without importing it (yake) into this process."""


class ChildFailed(ChatsError):
    """The child process could not start, or stopped while answering."""


class LocalModelsProcess:
    """One child process answering the local models' requests, one at a time; `model`: the embedding model it
    runs (`chats.embedders.local_models`), read from `cache` when given (the multilingual model's prepared files)."""

    def __init__(self, model: str = MINILM_MODEL_NAME, cache: Path | None = None) -> None:
        self.model = model
        self._cache = cache
        self._process: asyncio.subprocess.Process | None = None
        self._lock = asyncio.Lock()

    async def call(self, request: dict[str, Any], payload_bytes: int = 0) -> tuple[dict[str, Any], bytes]:
        """Send `request`; return the answer and, unless it is an `{"error": ...}`, the `payload_bytes`
        bytes that follow it. Raises `ChildFailed` when the child cannot start or stops."""
        async with self._lock:
            process = self._process or await self._start()
            try:
                return await _exchange(process, request, payload_bytes)
            except BaseException as error:
                # A broken pipe, a child that died, or a call cancelled in mid-answer: the stream is no
                # longer in step, so this child goes and the next call starts another. It is waited for even
                # when the call was cancelled (at shutdown, say): a child left to end unwatched keeps its
                # pipes open past the event loop's close, and the garbage collector then fails to close them
                # ("Event loop is closed") in whatever runs next.
                self._process = None
                _kill(process)
                code = await _ended(process)
                if isinstance(error, Exception):
                    raise ChildFailed(f"the local models' process stopped (exit code {code})") from error
                raise

    async def aclose(self) -> None:
        """End the child: it exits when its input closes; one that does not is killed."""
        async with self._lock:
            process, self._process = self._process, None
            if process is None:
                return
            if process.stdin is not None:
                process.stdin.close()
            try:
                await asyncio.wait_for(_ended(process), CLOSE_TIMEOUT_S)
            except TimeoutError:
                _kill(process)
                await _ended(process)

    async def _start(self) -> asyncio.subprocess.Process:
        try:
            self._process = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                __name__,
                self.model,
                *([] if self._cache is None else [str(self._cache)]),
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                env=os.environ | ONE_THREAD,
            )
        except OSError as error:
            raise ChildFailed(f"cannot start the local models' process: {error}") from error
        return self._process


class ModelsChild(Protocol):
    """What the models' embedder and text model ask: `LocalModelsProcess`, or the app's holder that starts it
    when needed and stops it after a quiet spell (`app.wiring.LocalModelsOnDemand`)."""

    async def call(self, request: dict[str, Any], payload_bytes: int = 0) -> tuple[dict[str, Any], bytes]: ...


class ProcessEmbedder:
    """The local embedder of `model` (MiniLM, or the multilingual encoder), answered by the child: the same
    model and the same vectors. The child must run the same model (`LocalModelsProcess.model`)."""

    def __init__(self, child: ModelsChild, model: str = MINILM_MODEL_NAME) -> None:
        self._child = child
        local = local_embedder_named(model)  # its name and size alone: its weights load in the child
        self.model_name, self.dimensions = local.model_name, local.dimensions
        self.reads_whole_texts = bool(getattr(local, "reads_whole_texts", False))
        """As the model's own embedder (`chats.embedders.embedding.ReadsWholeTexts`)."""

    async def embed(self, texts: Sequence[str]) -> Matrix:
        texts = list(texts)
        chunks = [await self._embed_chunk(texts[i : i + CHUNK_TEXTS]) for i in range(0, len(texts), CHUNK_TEXTS)]
        return np.concatenate(chunks) if chunks else np.empty((0, self.dimensions), dtype=np.float32)

    async def _embed_chunk(self, texts: list[str]) -> Matrix:
        request = {"op": "embed", "texts": texts}
        _, data = await _ask(self._child, request, EmbeddingError, len(texts) * self.dimensions * 4)
        return np.frombuffer(data, dtype="<f4").reshape(len(texts), self.dimensions).astype(np.float32)


class ProcessTextModel:
    """`OfflineTextModel`, answered by the child: the same summaries and titles."""

    def __init__(self, child: ModelsChild) -> None:
        self._child = child

    @property
    def name(self) -> str:
        return OFFLINE_TEXT_MODEL

    async def summarize(self, turns: Sequence[Turn], max_chars: int) -> str:
        return await self._text({"op": "summarize", "turns": turns_to_json(turns), "max_chars": max_chars})

    async def title(self, text: str) -> str:
        return await self._text({"op": "title", "text": text})

    async def _text(self, request: dict[str, Any]) -> str:
        answer, _ = await _ask(self._child, request, TextModelError)
        return str(answer["text"])


async def warm_up(child: ModelsChild, model: str) -> None:
    """Start the child and have it load its model (`model`): one text embedded (an empty one would not load it:
    it is a zero row). Raises `EmbeddingError` as `ProcessEmbedder.embed` does."""
    await ProcessEmbedder(child, model).embed(["warm"])


async def _ask(
    child: ModelsChild, request: dict[str, Any], error: type[ChatsError], payload_bytes: int = 0
) -> tuple[dict[str, Any], bytes]:
    """The child's answer and payload (`LocalModelsProcess.call`); `error` (the caller's kind) with one line
    when the child failed or answered an error."""
    try:
        answer, data = await child.call(request, payload_bytes)
    except ChildFailed as failed:
        raise error(str(failed)) from failed
    if "error" in answer:
        raise error(str(answer["error"]))
    return answer, data


async def _exchange(
    process: asyncio.subprocess.Process, request: dict[str, Any], payload_bytes: int
) -> tuple[dict[str, Any], bytes]:
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(json.dumps(request).encode() + b"\n")
    await process.stdin.drain()
    answer = json.loads(await process.stdout.readline())
    if not isinstance(answer, dict):
        raise ValueError("the child's answer is not a JSON object")
    if "error" in answer or not payload_bytes:
        return answer, b""
    return answer, await process.stdout.readexactly(payload_bytes)


async def _ended(process: asyncio.subprocess.Process) -> int | None:
    """The child's exit code, once it has exited and its output is read to the end: only then is its
    transport closed, its pipes with it."""
    await process.communicate()
    return process.returncode


def _kill(process: asyncio.subprocess.Process) -> None:
    with suppress(ProcessLookupError):
        process.kill()


# -- the child -----------------------------------------------------------------------------------------


class BadRequest(ValueError):
    """A request the child cannot read."""


def answer(request: object, embedder: InProcessEmbedder[Any]) -> tuple[dict[str, Any], bytes]:
    """The child's answer to one request, raising `BadRequest` or the models' own errors."""
    if not isinstance(request, dict):
        raise BadRequest("a request must be a JSON object")
    op = request.get("op")
    if op == "embed":
        texts = request.get("texts")
        if not isinstance(texts, list) or not all(isinstance(text, str) for text in texts):
            raise BadRequest("an embed request's texts must be a list of strings")
        vectors = embedder.embed_sync(texts) if texts else np.empty((0, embedder.dimensions), dtype=np.float32)
        return {"rows": len(vectors)}, vectors.astype("<f4").tobytes()
    # Imported on the first text request: yake and its dependencies take 0.2 s.
    from chats.text.offline_text import summarize_extractively
    from chats.text.offline_title import subject_title

    if op == "summarize":
        turns, max_chars = turns_from_json(request.get("turns")), request.get("max_chars")
        if not isinstance(max_chars, int):
            raise BadRequest("a summarize request's max_chars must be a whole number")
        return {"text": summarize_extractively(turns, max_chars)}, b""
    if op == "title":
        text = request.get("text")
        if not isinstance(text, str):
            raise BadRequest("a title request's text must be a string")
        return {"text": subject_title(text)}, b""
    raise BadRequest(f"unknown request {op!r}: embed, summarize or title")


def serve(model: str, cache: Path | None = None) -> None:
    """The child, running `model`: answer requests on stdin until it closes. The answers keep the original stdout to
    themselves: anything else printed there (by a library, from Python or C) goes to stderr instead."""
    out = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    embedder = local_embedder_named(model, cache)
    for line in sys.stdin.buffer:
        try:
            header, payload = answer(json.loads(line), embedder)
        except Exception as error:  # one bad request, or a model failing on it: the next is served
            header, payload = {"error": str(error) or type(error).__name__}, b""
        out.write(json.dumps(header).encode() + b"\n" + payload)
        out.flush()


if __name__ == "__main__":
    serve(sys.argv[1] if len(sys.argv) > 1 else MINILM_MODEL_NAME, Path(sys.argv[2]) if len(sys.argv) > 2 else None)
