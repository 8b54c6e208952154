"""The user's verifier as its file holds it now, read again when the file changes while Parley listens.

`parley wake enrol`, Settings' "Enrol my voice" and the first-start guide write the file (atomically: a new
file renamed over the old, so a reader never sees half of one); `parley wake forget` deletes it. Any of
them may run while a window or `parley listen` sleeps, in this process or another. The running detector
asks `VerifierFile.current` at each wake check (a frame the model scores at or above the verifier
threshold: a few a minute with speech around, none in a quiet room), and one `stat` there tells whether
the file changed. Nothing needs telling, whoever wrote it: the file is where the enrolment and the detector
meet already, and the stat costs nothing on the frames that are not wake checks.
"""

from __future__ import annotations

import logging
from pathlib import Path

from voice.errors import WakeModelError
from voice.wake.verifier import WakeVerifier

log = logging.getLogger(__name__)

Stamp = tuple[int, int, int]
"""What tells one version of the file from another: inode, size and modification time (nanoseconds). The
atomic rename gives each version a new inode, so two writes within the clock's resolution still differ."""


def stamp_of(path: Path) -> Stamp | None:
    """The file's `Stamp`, or None when there is none (or it cannot be looked at: as at start-up, where a
    verifier that cannot be found is none)."""
    try:
        status = path.stat()
    except OSError:
        return None
    return status.st_ino, status.st_size, status.st_mtime_ns


class VerifierFile:
    """The verifier stored at `path` for the wake word model `model` (its name, `WakeModel.name`)."""

    def __init__(self, path: Path, model: str) -> None:
        """Reads the file now, if there is one: `WakeModelError` when it is damaged or trained for another
        model, so that such a file fails at start-up (enrol again, or `parley wake forget`)."""
        self.path = path
        self._model = model
        self._stamp = stamp_of(path)
        self._verifier = None if self._stamp is None else self._load()

    def current(self) -> WakeVerifier | None:
        """The verifier the file holds now (None: no file, nobody enrolled). A file that changed and cannot
        be used is logged once and the last good verifier kept: the enrolment writes whole files only, so
        such a file is none of Parley's, and the user keeps the wake word they had."""
        stamp = stamp_of(self.path)
        if stamp == self._stamp:
            return self._verifier
        self._stamp = stamp
        if stamp is None:
            self._verifier = None
            log.info("wake word enrolment forgotten: %s wakes for anyone", self._model)
            return None
        try:
            self._verifier = self._load()
        except WakeModelError as error:
            log.warning("%s; the wake word goes on as it was", error)
        else:
            log.info("wake word enrolment read again: %s listens for the enrolled voice", self._model)
        return self._verifier

    def _load(self) -> WakeVerifier:
        verifier = WakeVerifier.load(self.path)
        if verifier.model != self._model:
            raise WakeModelError(f"the wake word verifier was trained for {verifier.model}, not {self._model}")
        return verifier
