"""The multilingual model read from its prepared folder: the package's own vectors, bit for bit, and the
package's own way when the folder cannot be made."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from chats.embedders.use_multilingual import MultilingualEmbedder
from chats.prepared_files import COMPLETE

WORDS = (
    "kitchen cucina Küche cuisine cocina tiles piastrelle Fliesen carreaux azulejos budget euros Marco Lisbon "
    "volo Flug vol vuelo daughter figlia Tochter fille hija horses cavalli Pferde chevaux caballos 123 4,5 % "
    "多语言 🙂 ½ ﬁ Ⅻ " + "\uff46\uff55\uff4c\uff4c" + " naïve façade Straße"
).split()


def texts() -> list[str]:
    """Texts the tokenizer's normalizer and both vocabulary paths meet: many languages, spaces to fold, compatibility
    characters (fullwidth, ligatures, fractions), emoji, a long text; from a fixed seed."""
    rng = random.Random(35)
    made = [" ".join(rng.choices(WORDS, k=rng.randint(1, 40))) for _ in range(40)]
    return [*made, "  spaces   between\twords  ", "x" * 3000, "\u200b", "Ω"]


@pytest.fixture(scope="module")
def packaged() -> np.ndarray:
    """The vectors the package makes when it reads its own files (the slow way)."""
    return np.asarray(MultilingualEmbedder().embed_sync(texts()))


def test_the_prepared_model_makes_the_packages_vectors_and_is_read_again(tmp_path: Path, packaged: np.ndarray) -> None:
    first = MultilingualEmbedder(cache=tmp_path).embed_sync(texts())  # prepares the folder
    [folder] = tmp_path.iterdir()
    assert (folder / COMPLETE).is_file() and folder.name.startswith("use-multilingual-v3-")
    made = (folder / "manifest.json").stat().st_mtime_ns
    again = MultilingualEmbedder(cache=tmp_path).embed_sync(texts())  # reads it
    assert (folder / "manifest.json").stat().st_mtime_ns == made
    assert np.array_equal(first, packaged) and np.array_equal(again, packaged)


def test_a_half_made_folder_is_made_again(tmp_path: Path, packaged: np.ndarray) -> None:
    MultilingualEmbedder(cache=tmp_path).embed_sync(["prepare"])
    [folder] = tmp_path.iterdir()
    (folder / COMPLETE).unlink()  # as a crash while preparing leaves it
    (folder / "prefixes.txt").write_text("cut short", encoding="utf-8")
    assert np.array_equal(MultilingualEmbedder(cache=tmp_path).embed_sync(texts()), packaged)
    assert (folder / COMPLETE).is_file()


def test_a_cache_that_cannot_be_written_reads_the_package_the_slow_way(tmp_path: Path, packaged: np.ndarray) -> None:
    not_a_folder = tmp_path / "cache"
    not_a_folder.write_text("a file where the cache folder would be", encoding="utf-8")
    assert np.array_equal(MultilingualEmbedder(cache=not_a_folder).embed_sync(texts()), packaged)
