"""Whether the first-start guide has been through: a small file in the data folder says so.

The window shows the guide at its first start (`ui.first_start.guide`) and `parley setup` runs the same
steps in a terminal; either one, finished or closed, leaves this file, so the guide does not come back on
its own. Settings runs it again on request; deleting the file brings it back at the next start.
"""

from __future__ import annotations

from pathlib import Path

from app.config.settings import Settings

GUIDE_DONE_FILE = "first_start_done"


def guide_marker(settings: Settings) -> Path:
    return settings.data_dir / GUIDE_DONE_FILE


def guide_done(settings: Settings) -> bool:
    """Whether the first-start guide (or `parley setup`) has been through, here."""
    return guide_marker(settings).is_file()


def mark_guide_done(settings: Settings) -> None:
    """Remember that the guide has been through (`OSError` when the data folder cannot be written)."""
    marker = guide_marker(settings)
    marker.parent.mkdir(parents=True, exist_ok=True)
    marker.write_text("The first-start guide has been through; delete this file to see it again.\n", "utf-8")
