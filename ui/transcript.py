"""A chat's `full_history` as a readable transcript.

Rendered as rich text in a `QTextBrowser`, one bubble per turn: a long chat stays one widget, and the
text is selectable and read by screen readers. Every piece of chat text is HTML-escaped: what a user
said is shown, never interpreted. In a compacted chat the older turns, the ones the model now sees as
one summary, are folded into an "Earlier in this chat" block showing that summary; a link (mouse, or Tab
then Enter) unfolds the original messages. An answer drawn from the web lists its sources under it; a
click opens one in the browser. What Parley's tools did in a conversation shows between the
turns as chips; they are not stored, so they last while Parley runs.
"""

from __future__ import annotations

import html
from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime
from uuid import UUID

from PySide6.QtCore import QUrl, Slot
from PySide6.QtGui import QDesktopServices, QTextCursor
from PySide6.QtWidgets import QTextBrowser, QWidget

from chats.models import Chat, Source, Turn, search_url, utc_now
from ui.tool_chips import ToolChip

SUMMARY_SCHEME = "summary"
WEB_SCHEMES = ("http", "https")
"""Links a click opens in the browser: a source's address (any other scheme is never opened)."""
EARLIER_LINK = f"{SUMMARY_SCHEME}:earlier"
EARLIER = "Earlier in this chat"
LIVE_MATCH_WINDOW = 50
"""How many of the newest stored turns a reload compares with the live ones it may have saved."""

# Dark text on light fills, above 10:1 contrast; the speaker is also named in words, not only by colour.
_USER = ("#dbeafe", "#0b1f3a", "You")
_MODEL = ("#f1f5f9", "#111827", "Parley")
_SUMMARY = ("#fef3c7", "#3b2f04")
_CHIP = ("#e0e7ff", "#1e1b4b")
_FAILED_CHIP = ("#fde2e1", "#7f1d1d")


def format_turn_time(at: datetime, now: datetime) -> str:
    local = at.astimezone()
    return local.strftime("%H:%M") if local.date() == now.astimezone().date() else local.strftime("%Y-%m-%d %H:%M")


def summarised_turns(chat: Chat) -> int:
    """How many of the oldest turns of `full_history` the chat's summary stands for (0 if none).

    Compaction keeps `full_history` whole and replaces the oldest turns of `assistant_history` by one
    summary turn; the turns after it are the most recent ones of `full_history`."""
    history = chat.assistant_history
    if not history or not history[0].summary:
        return 0
    return max(len(chat.full_history) - (len(history) - 1), 0)


def _text_html(text: str) -> str:
    return html.escape(text).replace("\n", "<br>")


class TranscriptView(QTextBrowser):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        self.setAccessibleName("Transcript")
        self.setAccessibleDescription("The selected chat's messages, oldest first")
        self.anchorClicked.connect(self._on_anchor_clicked)
        self._chat: Chat | None = None
        self._expanded = False
        self._live: list[Turn] = []
        """Turns spoken since the chat was loaded, not in the store yet."""
        self._chips: defaultdict[UUID, list[tuple[int | None, ToolChip]]] = defaultdict(list)
        """Per chat, each chip with the number of turns before it (None: at the end, once the chat shows)."""
        self.show_placeholder("No chat selected")

    @property
    def chat(self) -> Chat | None:
        return self._chat

    def show_placeholder(self, message: str) -> None:
        self._chat = None
        self._expanded = False
        self._live.clear()
        self.setHtml(f"<p><i>{html.escape(message)}</i></p>")

    def show_chat(self, chat: Chat) -> None:
        """Show `chat`; reloading the same chat keeps its expanded blocks and, at the bottom, follows new turns."""
        same = self._chat is not None and self._chat.id == chat.id
        if same and self._already_shows(chat):
            # The save of a conversation shown live: rendering a long chat again took 25 ms or more.
            self._chat, self._live = chat, []
            return
        bar = self.verticalScrollBar()
        at_bottom = bar.value() >= bar.maximum()
        if not same:
            self._expanded = False
            self._live.clear()
        else:
            # A reload after a save: the turns it brought are no longer waiting.
            stored = {(turn.role, turn.text) for turn in chat.full_history[-LIVE_MATCH_WINDOW:]}
            self._live = [turn for turn in self._live if (turn.role, turn.text) not in stored]
        self._chat = chat
        chips = self._chips[chat.id]
        chips[:] = [(len(chat.full_history) if anchor is None else anchor, chip) for anchor, chip in chips]
        self._render()
        if not same or at_bottom:
            bar.setValue(bar.maximum())

    def _already_shows(self, chat: Chat) -> bool:
        """Whether the document shows `chat` as it is: its turns are the ones shown (live ones included),
        with the same title, fold and chips."""
        shown = self._chat
        if shown is None or any(anchor is None for anchor, _ in self._chips[chat.id]):
            return False
        return (
            chat.title == shown.title
            and summarised_turns(chat) == summarised_turns(shown)
            and chat.assistant_history[:1] == shown.assistant_history[:1]
            and [(t.role, t.text) for t in chat.full_history]
            == [(t.role, t.text) for t in [*shown.full_history, *self._live]]
        )

    @Slot(object)
    def add_live_turn(self, turn: Turn) -> None:
        """Show a turn of the running conversation below the stored ones, following it when at the bottom."""
        if self._chat is None:
            return
        bar = self.verticalScrollBar()
        at_bottom = bar.value() >= bar.maximum()
        self._live.append(turn)
        # Append the one bubble: rebuilding the whole chat per turn stalled the window for 100-250 ms
        # when many turns arrived at once (bench/window.py, streaming in a burst).
        cursor = QTextCursor(self.document())
        cursor.movePosition(QTextCursor.MoveOperation.End)
        cursor.insertHtml(_bubble_html(turn, utc_now()))
        if at_bottom:
            bar.setValue(bar.maximum())

    @Slot(object, object)
    def add_chip(self, chat_id: UUID, chip: ToolChip) -> None:
        """Show what a tool did, after the turns so far; for a chat not shown, once it is. A chip for a call
        already shown (the tool was running) takes that chip's place."""
        chips = self._chips[chat_id]
        shown = next((i for i, (_, old) in enumerate(chips) if chip.call_id and old.call_id == chip.call_id), None)
        if shown is not None:
            chips[shown] = (chips[shown][0], chip)
            if self._chat is not None and self._chat.id == chat_id:
                self._rerender_following()
            return
        chat = self._chat
        if chat is None or chat.id != chat_id:
            self._chips[chat_id].append((None, chip))
            return
        self._chips[chat_id].append((len(chat.full_history) + len(self._live), chip))
        bar = self.verticalScrollBar()
        at_bottom = bar.value() >= bar.maximum()
        cursor = QTextCursor(self.document())
        cursor.movePosition(QTextCursor.MoveOperation.End)
        cursor.insertHtml(_chip_html(chip))
        if at_bottom:
            bar.setValue(bar.maximum())

    @property
    def earlier_expanded(self) -> bool:
        return self._expanded

    def toggle_earlier(self) -> None:
        """Unfold (or fold again) the messages the summary stands for, keeping the reader's place."""
        self._expanded = not self._expanded
        bar = self.verticalScrollBar()
        position = bar.value()
        self._render()
        bar.setValue(position)

    def _rerender_following(self) -> None:
        """Render again, keeping the reader's place, or the bottom if they were following it."""
        bar = self.verticalScrollBar()
        at_bottom = bar.value() >= bar.maximum()
        position = bar.value()
        self._render()
        bar.setValue(bar.maximum() if at_bottom else position)

    @Slot(QUrl)
    def _on_anchor_clicked(self, url: QUrl) -> None:
        if url.toString() == EARLIER_LINK:
            self.toggle_earlier()
        elif url.scheme() in WEB_SCHEMES:
            QDesktopServices.openUrl(url)

    def _render(self) -> None:
        chat = self._chat
        if chat is None:
            return
        now = utc_now()
        title = html.escape(chat.title or "New chat")
        parts = [f"<h2>{title}</h2>"]
        if not chat.full_history and not self._live:
            parts.append("<p><i>No messages yet. Say the wake word to start talking in this chat.</i></p>")
        folded = summarised_turns(chat)
        if folded:
            parts.append(self._earlier_html(chat, folded))
        first = 0 if self._expanded else folded
        parts.extend(_items_html([*chat.full_history, *self._live], self._chips[chat.id], first, now))
        self.setHtml("".join(parts))

    def _earlier_html(self, chat: Chat, folded: int) -> str:
        fill, ink = _SUMMARY
        marker, action = ("▾", "hide them") if self._expanded else ("▸", "show them")
        link = f'<a href="{EARLIER_LINK}" style="color:{ink}">{marker} {folded} messages ({action})</a>'
        summary = chat.assistant_history[0].text
        return (
            f'<table width="100%" cellpadding="8" style="margin-top:6px"><tr>'
            f'<td bgcolor="{fill}" style="color:{ink}"><b>{EARLIER}</b>, as Parley remembers it:'
            f"<p>{_text_html(summary)}</p>{link}</td></tr></table>"
        )


def _items_html(
    turns: Sequence[Turn], chips: Sequence[tuple[int | None, ToolChip]], first: int, now: datetime
) -> list[str]:
    """The turns from `first` on, each chip placed after the turns that came before it."""
    chips_at: defaultdict[int, list[ToolChip]] = defaultdict(list)
    for anchor, chip in chips:
        chips_at[len(turns) if anchor is None else anchor].append(chip)
    parts: list[str] = []
    for position in range(first, len(turns) + 1):
        parts.extend(_chip_html(chip) for chip in chips_at[position])
        if position < len(turns):
            parts.append(_bubble_html(turns[position], now))
    return parts


def _chip_html(chip: ToolChip) -> str:
    fill, ink = _FAILED_CHIP if chip.failed else _CHIP
    return (
        f'<table align="center" cellpadding="4" style="margin-top:6px"><tr>'
        f'<td bgcolor="{fill}" style="color:{ink}"><small>{html.escape(chip.text)}</small></td></tr></table>'
    )


def _bubble_html(turn: Turn, now: datetime) -> str:
    fill, ink, speaker = _USER if turn.role == "user" else _MODEL
    align = "right" if turn.role == "user" else "left"
    when = f" · {format_turn_time(turn.at, now)}" if turn.at else ""
    return (
        f'<table width="85%" align="{align}" cellpadding="8" style="margin-top:6px"><tr>'
        f'<td bgcolor="{fill}" style="color:{ink}"><b>{speaker}</b><small>{when}</small><br>'
        f"{_text_html(turn.text)}{_sources_html(turn.sources, ink)}{_searches_html(turn.searches, ink)}"
        "</td></tr></table>"
    )


def _sources_html(sources: Sequence[Source], ink: str) -> str:
    """The pages an answer draws on, as links under it (only http(s) addresses: they open in the browser)."""
    links = [
        f'<a href="{html.escape(source.uri)}" style="color:{ink}">{html.escape(source.title or source.uri)}</a>'
        for source in sources
        if QUrl(source.uri).scheme() in WEB_SCHEMES
    ]
    return f"<br><small>Sources: {' · '.join(links)}</small>" if links else ""


def _searches_html(searches: Sequence[str], ink: str) -> str:
    """What the model searched for, each a link to its Google results page (Google's terms for grounded
    answers ask for these beside the answer)."""
    links = [f'<a href="{html.escape(search_url(q))}" style="color:{ink}">{html.escape(q)}</a>' for q in searches]
    return f"<br><small>Searched Google: {' · '.join(links)}</small>" if links else ""
