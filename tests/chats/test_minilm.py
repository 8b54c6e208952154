"""The numpy MiniLM against vectors sentence-transformers made from the same weights.

The reference comes from `tests/fixtures/make_minilm_reference.py` (torch, in a throwaway venv).
Measured on the development machine: max abs difference 2.2e-7 with all texts in one batch,
2.9e-7 one text at a time. The tolerance leaves headroom for another BLAS; it still catches the
mistakes that matter: tanh-approximated GELU is off by 4e-4, and skipping the 256-token
truncation by 5e-2.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from chats.embedders.minilm import (
    DIMENSIONS,
    MAX_TOKENS,
    MODEL_NAME,
    MiniLMEmbedder,
    bundled_model_dir,
    mapped_safetensors,
)
from chats.errors import EmbeddingError

REFERENCE = Path(__file__).parent.parent / "fixtures" / "minilm_reference.json"
TOLERANCE = 1e-6
"""Largest allowed absolute difference of any vector component from the reference."""


@pytest.fixture(scope="module")
def reference() -> list[dict[str, Any]]:
    cases: list[dict[str, Any]] = json.loads(REFERENCE.read_text(encoding="utf-8"))["cases"]
    return cases


@pytest.fixture(scope="module")
def embedder() -> MiniLMEmbedder:
    # One instance for the module: loading the weights is the slow part.
    return MiniLMEmbedder()


def _texts(cases: list[dict[str, Any]]) -> list[str]:
    return [case["text"] for case in cases]


def _vectors(cases: list[dict[str, Any]]) -> npt.NDArray[np.float64]:
    return np.array([case["vector"] for case in cases], dtype=np.float64)


def test_the_reference_covers_truncation_and_odd_text(reference: list[dict[str, Any]]) -> None:
    texts = _texts(reference)
    assert len(texts) >= 12
    assert any(case["tokens_before_truncation"] > MAX_TOKENS for case in reference)
    assert " " in texts
    assert any("東京" in text for text in texts)


async def test_matches_sentence_transformers(embedder: MiniLMEmbedder, reference: list[dict[str, Any]]) -> None:
    got = await embedder.embed(_texts(reference))

    worst = np.abs(got - _vectors(reference)).max(axis=1)

    for case, diff in zip(reference, worst, strict=True):
        assert diff <= TOLERANCE, f"{case['text'][:40]!r} is off by {diff:.2e}"


async def test_each_text_alone_matches_sentence_transformers(
    embedder: MiniLMEmbedder, reference: list[dict[str, Any]]
) -> None:
    for case in reference:
        got = await embedder.embed([case["text"]])
        diff = np.abs(got[0] - np.array(case["vector"])).max()
        assert diff <= TOLERANCE, f"{case['text'][:40]!r} is off by {diff:.2e}"


async def test_vectors_are_unit_float32_rows(embedder: MiniLMEmbedder) -> None:
    got = await embedder.embed(["one", "two words", "and a third, longer text"])

    assert got.shape == (3, DIMENSIONS)
    assert got.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-6)
    assert embedder.dimensions == DIMENSIONS == 384
    assert embedder.model_name == MODEL_NAME


async def test_a_batch_equals_its_texts_one_by_one(embedder: MiniLMEmbedder, reference: list[dict[str, Any]]) -> None:
    texts = _texts(reference)

    together = await embedder.embed(texts)
    alone = np.vstack([await embedder.embed([text]) for text in texts])

    # Not bit-equal: padding changes the matrix shapes BLAS sees, hence the float32 rounding.
    np.testing.assert_allclose(together, alone, rtol=0, atol=TOLERANCE)


async def test_row_order_follows_input_order(embedder: MiniLMEmbedder) -> None:
    texts = ["a cat sat on the mat", "quarterly tax return", "x", "the weather in Lisbon is sunny"]

    forward = await embedder.embed(texts)
    backward = await embedder.embed(texts[::-1])

    np.testing.assert_allclose(forward, backward[::-1], rtol=0, atol=TOLERANCE)


async def test_no_texts_give_an_empty_matrix(embedder: MiniLMEmbedder) -> None:
    got = await embedder.embed([])

    assert got.shape == (0, DIMENSIONS)
    assert got.dtype == np.float32


async def test_an_empty_text_is_a_zero_row_as_the_services_give_it(embedder: MiniLMEmbedder) -> None:
    got = await embedder.embed(["", "hello", ""])
    assert not got[[0, 2]].any()
    assert np.linalg.norm(got[1]) == pytest.approx(1.0, abs=1e-5)


async def test_a_missing_model_folder_raises_embedding_error(tmp_path: Path) -> None:
    missing = tmp_path / "no-model-here"

    with pytest.raises(EmbeddingError, match="cannot load the local embedding model") as caught:
        await MiniLMEmbedder(missing).embed(["hello"])

    message = str(caught.value)
    assert str(missing) in message
    assert "\n" not in message


def test_the_mapped_weights_are_the_safetensors_packages_own() -> None:
    from safetensors.numpy import load_file

    path = bundled_model_dir() / "model.safetensors"
    loaded, mapped = load_file(str(path)), mapped_safetensors(path)
    assert mapped.keys() == loaded.keys()
    for name, tensor in loaded.items():
        assert (mapped[name].dtype, mapped[name].shape) == (tensor.dtype, tensor.shape), name
        assert np.array_equal(mapped[name], tensor), name
        assert not mapped[name].flags.writeable  # read-only: a model never writes its weights


@pytest.mark.parametrize("cut", [4, 8 + 100, -1000])
async def test_a_cut_weights_file_raises_embedding_error(tmp_path: Path, cut: int) -> None:
    model = tmp_path / "model"
    shutil.copytree(bundled_model_dir(), model)
    whole = (model / "model.safetensors").read_bytes()
    (model / "model.safetensors").write_bytes(whole[:cut])

    with pytest.raises(EmbeddingError, match="cannot load the local embedding model"):
        await MiniLMEmbedder(model).embed(["hello"])
