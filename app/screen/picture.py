"""A screenshot as the live model takes it: JPEG, its longest side at most `MAX_SIDE` pixels.

Qt's `QImage` (PySide6's QtGui, already Parley's for the window) scales and writes JPEG without an application
object or a display, on any thread; Pillow would be a second image library for the same two calls. Only this
module outside `ui/` imports PySide6, and only `QImage` and a byte buffer: no widget, no event loop; it does so when
a picture is made, not with the module: once imported, PySide6 hooks every later import (shibokensupport reads
each importing module's source), which cost `parley ask`, whose tools include the screen's, 0.5-0.7 s of its start.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from voice.live.connection import Picture

if TYPE_CHECKING:
    from PySide6.QtGui import QImage

MAX_SIDE = 1280
"""Pixels on the longest side: Gemini Live reads a frame at about this size (it tiles images of 768 px), and a
1280 px JPEG of a desktop is 100-300 KB, sent in a blink."""
QUALITY = 80
"""JPEG quality (0-100): small text stays readable."""


class UnreadablePicture(Exception):
    """The screenshot's pixels or file could not be read or encoded."""


def picture_of_pixels(bgra: bytes, width: int, height: int) -> Picture:
    """`width` x `height` pixels, 4 bytes each in B, G, R, A order (what X11 gives), as a `Picture`."""
    from PySide6.QtGui import QImage

    # On a little-endian machine, B G R A bytes are Qt's 32-bit 0xAARRGGBB words.
    image = QImage(bgra, width, height, 4 * width, QImage.Format.Format_RGB32)
    return _jpeg(image)


def picture_of_file(path: Path) -> Picture:
    """An image file (the PNG a screenshot portal wrote) as a `Picture`."""
    from PySide6.QtGui import QImage

    image = QImage(str(path))
    if image.isNull():
        raise UnreadablePicture(f"cannot read the screenshot {path.name}")
    return _jpeg(image)


def _jpeg(image: QImage) -> Picture:
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice, Qt

    if image.isNull() or image.width() == 0 or image.height() == 0:
        raise UnreadablePicture("the screenshot is empty")
    if max(image.width(), image.height()) > MAX_SIDE:
        image = image.scaled(
            MAX_SIDE, MAX_SIDE, Qt.AspectRatioMode.KeepAspectRatio, Qt.TransformationMode.SmoothTransformation
        )
    encoded = QByteArray()
    buffer = QBuffer(encoded)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    # The format as str: PySide6 6.11 rejects the bytes its own type stubs ask for.
    if not image.save(buffer, "JPG", QUALITY):  # type: ignore[call-overload]
        raise UnreadablePicture("Qt could not write JPEG (its qjpeg image plugin is missing)")
    return Picture(jpeg=bytes(encoded.data()), width=image.width(), height=image.height())
