"""The transcript's pieces as rich text: a turn's bubble, a tool's chip, the turns of one page.

Pure functions of what they are given. Every piece of chat text is HTML-escaped: what a user said is
shown, never interpreted. A very long turn is shown shortened, with a link to the whole text: Qt lays a
paragraph out whole, and one 50 MB message held the GUI thread for minutes and took 3 GB.
"""

from __future__ import annotations

import html
from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime

from chats.models import Source, Turn, search_url
from ui.shown_text import for_window
from ui.tool_chips import ToolChip

WHOLE_SCHEME = "whole"
"""Links `whole:N` open the whole text of turn N (its position among the turns shown and waiting)."""
WEB_SCHEMES = ("http", "https")
"""Links a click opens in the browser: a source's address (any other scheme is never opened)."""
SHORT_CHARS = 3_000
"""A turn longer than this shows its first `SHORT_CHARS` characters and a "Show all" link."""

# Dark text on light fills, above 10:1 contrast; the speaker is also named in words, not only by colour.
USER = ("#e8f0fe", "#0b1f3a", "You")
MODEL = ("#f4f5f7", "#111827", "Parley")
SUMMARY = ("#fdf6e3", "#3b2f04")
CHIP = ("#eef0fb", "#1e1b4b")
FAILED_CHIP = ("#fde2e1", "#7f1d1d")
SOFT = "#4b5563"
"""Timestamps and links: 7.5:1 on the bubbles' fills."""


def format_turn_time(at: datetime, now: datetime) -> str:
    local = at.astimezone()
    return local.strftime("%H:%M") if local.date() == now.astimezone().date() else local.strftime("%Y-%m-%d %H:%M")


def text_html(text: str) -> str:
    return html.escape(for_window(text)).replace("\n", "<br>")


def whole_link(position: int) -> str:
    return f"{WHOLE_SCHEME}:{position}"


def shortened(text: str) -> tuple[str, bool]:
    """The text a bubble shows, and whether it was cut: the first `SHORT_CHARS` characters, ended at a space
    when one is near."""
    if len(text) <= SHORT_CHARS:
        return text, False
    head = text[:SHORT_CHARS]
    space = head.rfind(" ", SHORT_CHARS - 200)
    return (head[:space] if space > 0 else head).rstrip() + "…", True


def items_html(
    turns: Sequence[Turn], chips: Sequence[tuple[int | None, ToolChip]], first: int, now: datetime
) -> list[str]:
    """The turns from `first` on, each chip placed after the turns that came before it."""
    chips_at: defaultdict[int, list[ToolChip]] = defaultdict(list)
    for anchor, chip in chips:
        chips_at[len(turns) if anchor is None else anchor].append(chip)
    parts: list[str] = []
    for position in range(first, len(turns) + 1):
        parts.extend(chip_html(chip) for chip in chips_at[position])
        if position < len(turns):
            parts.append(bubble_html(turns[position], now, position))
    return parts


def chip_html(chip: ToolChip) -> str:
    fill, ink = FAILED_CHIP if chip.failed else CHIP
    return (
        f'<table align="center" cellpadding="5" style="margin-top:8px"><tr>'
        f'<td bgcolor="{fill}" style="color:{ink}"><small>{text_html(chip.text)}</small></td></tr></table>'
    )


def bubble_html(turn: Turn, now: datetime, position: int) -> str:
    fill, ink, speaker = USER if turn.role == "user" else MODEL
    align = "right" if turn.role == "user" else "left"
    when = f" · {format_turn_time(turn.at, now)}" if turn.at else ""
    text, cut = shortened(turn.text)
    more = (
        f'<br><a href="{whole_link(position)}" style="color:{SOFT}">Show all ({len(turn.text):,} characters)</a>'
        if cut
        else ""
    )
    return (
        f'<table width="85%" align="{align}" cellpadding="10" style="margin-top:8px"><tr>'
        f'<td bgcolor="{fill}" style="color:{ink}"><b>{speaker}</b><small style="color:{SOFT}">{when}</small><br>'
        f"{text_html(text)}{more}{sources_html(turn.sources, ink)}{searches_html(turn.searches, ink)}"
        "</td></tr></table>"
    )


def sources_html(sources: Sequence[Source], ink: str) -> str:
    """The pages an answer draws on, as links under it (only http(s) addresses: they open in the browser)."""
    links = [
        f'<a href="{html.escape(source.uri)}" style="color:{ink}">{text_html(source.title or source.uri)}</a>'
        for source in sources
        if source.uri.split(":", 1)[0].lower() in WEB_SCHEMES
    ]
    return f"<br><small>Sources: {' · '.join(links)}</small>" if links else ""


def searches_html(searches: Sequence[str], ink: str) -> str:
    """What the model searched for, each a link to its Google results page (Google's terms for grounded
    answers ask for these beside the answer)."""
    links = [f'<a href="{html.escape(search_url(q))}" style="color:{ink}">{text_html(q)}</a>' for q in searches]
    return f"<br><small>Searched Google: {' · '.join(links)}</small>" if links else ""
