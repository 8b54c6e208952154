"""The language detector read from its prepared folder: the same identifier as py3langid's own file gives."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from py3langid import langid

from chats.language.words import prepared_identifier
from chats.prepared_files import COMPLETE

LANGUAGE_SET = Path(__file__).resolve().parents[2] / "bench" / "language_set.json"


def texts() -> list[str]:
    found: list[str] = []

    def gather(value: object) -> None:
        if isinstance(value, str) and len(value) > 3:
            found.append(value)
        elif isinstance(value, dict):
            for item in value.values():
                gather(item)
        elif isinstance(value, list):
            for item in value:
                gather(item)

    gather(json.loads(LANGUAGE_SET.read_text(encoding="utf-8")))
    return [*found[:300], "ok", "Straße", "🙂", "\x00\xff", "\uff46\uff55\uff4c\uff4c"]


def test_the_prepared_detector_scores_every_text_as_the_packages_own(tmp_path: Path) -> None:
    packaged = langid.LanguageIdentifier.from_model_file(langid.MODEL_FILE, norm_probs=True)
    ready = prepared_identifier(tmp_path)
    [folder] = tmp_path.iterdir()
    assert (folder / COMPLETE).is_file()
    again = prepared_identifier(tmp_path)  # read, not made again
    for identifier in (packaged, ready, again):
        identifier.set_languages(["en", "it", "es", "fr", "de", "pt"])
    assert len(texts()) > 100
    for text in texts():
        expected = packaged.rank(text)
        for got in (ready.rank(text), again.rank(text)):
            assert [code for code, _ in got] == [code for code, _ in expected], text
            assert np.array_equal([p for _, p in got], [p for _, p in expected]), text
