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
from uuid import UUID

from PySide6.QtCore import QUrl, Signal, Slot
from PySide6.QtGui import QDesktopServices, QTextCursor
from PySide6.QtWidgets import QTextBrowser, QWidget

from chats.models import Chat, Turn, utc_now
from ui.chat.transcript_html import (
    SUMMARY,
    WEB_SCHEMES,
    WHOLE_SCHEME,
    bubble_html,
    chip_html,
    items_html,
    shortened,
    text_html,
)
from ui.shown_text import for_window
from ui.tool_chips import ToolChip

SUMMARY_SCHEME = "summary"
EARLIER_LINK = f"{SUMMARY_SCHEME}:earlier"
MORE_LINK = f"{SUMMARY_SCHEME}:more"
EARLIER = "Earlier in this chat"
LIVE_MATCH_WINDOW = 50
"""How many of the newest stored turns a reload compares with the live ones it may have saved."""
TURN_PAGE = 200
"""The newest turns shown at first; "Show earlier messages" adds as many again. A chat of 100,000 turns
rendered whole held the GUI thread for minutes; a page of 200 takes tens of milliseconds."""


def summarised_turns(chat: Chat) -> int:
    """How many of the oldest turns of `full_history` the chat's summary stands for (0 if none).

    Compaction keeps `full_history` whole and replaces the oldest turns of `assistant_history` by one
    summary turn; the turns after it are the most recent ones of `full_history`."""
    history = chat.assistant_history
    if not history or not history[0].summary:
        return 0
    return max(len(chat.full_history) - (len(history) - 1), 0)


class TranscriptView(QTextBrowser):
    whole_text_requested = Signal(str, str)
    """(who said it, the whole text) of a turn shown shortened: the window opens it in a dialog."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        self.setAccessibleName("Transcript")
        self.setAccessibleDescription("The selected chat's messages, oldest first")
        self.document().setDocumentMargin(12)
        self.anchorClicked.connect(self._on_anchor_clicked)
        self._chat: Chat | None = None
        self._expanded = False
        self._page_turns = TURN_PAGE
        """How many of the newest turns are shown (more after "Show earlier messages")."""
        self._live: list[Turn] = []
        """Turns spoken since the chat was loaded, not in the store yet."""
        self._chips: defaultdict[UUID, list[tuple[int | None, ToolChip]]] = defaultdict(list)
        """Per chat, each chip with the number of turns before it (None: at the end, once the chat shows)."""
        self._follow = True
        """The view stays on the newest turn as the document grows; scrolling up stops that."""
        self._rendering = False
        """`setHtml` is resetting the scroll range: its moves are not the reader's."""
        self._provisional_title: str | None = None
        bar = self.verticalScrollBar()
        # The document's height is known only once Qt has laid it out, after `setHtml` returns: following
        # the range as it changes keeps the newest turn in view whenever layout finishes.
        bar.rangeChanged.connect(self._on_range_changed)
        bar.valueChanged.connect(self._on_scrolled)
        self.show_placeholder("No chat selected")

    @property
    def chat(self) -> Chat | None:
        return self._chat

    @property
    def following(self) -> bool:
        """The view keeps the newest turn in view."""
        return self._follow

    def follow_newest(self) -> None:
        """Scroll to the newest turn and stay there as turns arrive (the user just sent a message)."""
        self._follow = True
        bar = self.verticalScrollBar()
        bar.setValue(bar.maximum())

    def show_placeholder(self, message: str) -> None:
        self._chat = None
        self._expanded = False
        self._live.clear()
        self._rendering = True
        try:
            self.setHtml(f"<p><i>{html.escape(message)}</i></p>")
        finally:
            self._rendering = False

    def show_chat(self, chat: Chat, provisional_title: str | None = None) -> None:
        """Show `chat`; reloading the same chat keeps its expanded blocks and, at the bottom, follows new turns.
        `provisional_title`: the name shown while the chat has no title."""
        same = self._chat is not None and self._chat.id == chat.id
        named = provisional_title != self._provisional_title
        self._provisional_title = provisional_title
        if same and not named and self._already_shows(chat):
            # The save of a conversation shown live: rendering a long chat again took 25 ms or more.
            self._chat, self._live = chat, []
            return
        if not same:
            self._expanded = False
            self._page_turns = TURN_PAGE
            self._live.clear()
            self._follow = True
        else:
            # A reload after a save: the turns it brought are no longer waiting.
            stored = {(turn.role, turn.text) for turn in chat.full_history[-LIVE_MATCH_WINDOW:]}
            self._live = [turn for turn in self._live if (turn.role, turn.text) not in stored]
        self._chat = chat
        chips = self._chips[chat.id]
        chips[:] = [(len(chat.full_history) if anchor is None else anchor, chip) for anchor, chip in chips]
        self._rerender_following()

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
        position = len(self._chat.full_history) + len(self._live)
        self._live.append(turn)
        # Append the one bubble: rebuilding the whole chat per turn stalled the window for 100-250 ms
        # when many turns arrived at once (bench/window.py, streaming in a burst).
        self._append_html(bubble_html(turn, utc_now(), position))

    @Slot(object, object)
    def add_chip(self, chat_id: UUID, chip: ToolChip) -> None:
        """Show what a tool did, after the turns so far; for a chat not shown, once it is. The answer of a
        call takes the place of the chip shown while that call ran; tool-call ids are reused from one
        conversation to the next, so only a chip still running is replaced, never an earlier answer."""
        chips = self._chips[chat_id]
        running = [
            i for i, (_, old) in enumerate(chips) if old.running and chip.call_id and old.call_id == chip.call_id
        ]
        if running:
            shown = running[-1]
            chips[shown] = (chips[shown][0], chip)
            if self._chat is not None and self._chat.id == chat_id:
                self._rerender_following()
            return
        chat = self._chat
        if chat is None or chat.id != chat_id:
            chips.append((None, chip))
            return
        chips.append((len(chat.full_history) + len(self._live), chip))
        self._append_html(chip_html(chip))

    def chip_texts(self, chat_id: UUID) -> list[tuple[int | None, str]]:
        """Each chip of a chat with the number of turns before it: where it shows."""
        return [(anchor, chip.text) for anchor, chip in self._chips[chat_id]]

    @property
    def earlier_expanded(self) -> bool:
        return self._expanded

    def toggle_earlier(self) -> None:
        """Unfold (or fold again) the messages the summary stands for, keeping the reader's place."""
        self._expanded = not self._expanded
        self._rerender_in_place()

    def show_more(self) -> None:
        """Show `TURN_PAGE` more of the older turns, keeping the reader's place."""
        self._page_turns += TURN_PAGE
        self._rerender_in_place()

    def _append_html(self, piece: str) -> None:
        cursor = QTextCursor(self.document())
        cursor.movePosition(QTextCursor.MoveOperation.End)
        cursor.insertHtml(piece)

    def _rerender_in_place(self) -> None:
        bar = self.verticalScrollBar()
        position = bar.value()
        self._follow = False
        self._render()
        bar.setValue(position)

    def _rerender_following(self) -> None:
        """Render again, keeping the reader's place, or the bottom if they were following it."""
        bar = self.verticalScrollBar()
        position = bar.value()
        self._render()
        bar.setValue(bar.maximum() if self._follow else position)

    @Slot(int, int)
    def _on_range_changed(self, _minimum: int, maximum: int) -> None:
        if self._follow:
            self.verticalScrollBar().setValue(maximum)

    @Slot(int)
    def _on_scrolled(self, value: int) -> None:
        if not self._rendering:
            self._follow = value >= self.verticalScrollBar().maximum()

    @Slot(QUrl)
    def _on_anchor_clicked(self, url: QUrl) -> None:
        link = url.toString()
        if link == EARLIER_LINK:
            self.toggle_earlier()
        elif link == MORE_LINK:
            self.show_more()
        elif url.scheme() == WHOLE_SCHEME and self._chat is not None:
            turns = [*self._chat.full_history, *self._live]
            position = int(url.path()) if url.path().isdigit() else -1
            if 0 <= position < len(turns):
                turn = turns[position]
                self.whole_text_requested.emit("You" if turn.role == "user" else "Parley", turn.text)
        elif url.scheme() in WEB_SCHEMES:
            QDesktopServices.openUrl(url)

    def _render(self) -> None:
        chat = self._chat
        if chat is None:
            return
        now = utc_now()
        turns = [*chat.full_history, *self._live]
        title = html.escape(for_window(chat.title or self._provisional_title or "New chat"))
        parts = [f"<h2>{title}</h2>"]
        if not turns:
            parts.append("<p><i>No messages yet. Say the wake word to start talking in this chat.</i></p>")
        folded = summarised_turns(chat)
        if folded:
            parts.append(self._earlier_html(chat, folded))
        start = 0 if self._expanded else folded
        first = max(start, len(turns) - self._page_turns)
        if first > start:
            parts.append(
                f'<p align="center"><a href="{MORE_LINK}">Show earlier messages ({first - start:,} not shown)</a></p>'
            )
        parts.extend(items_html(turns, self._chips[chat.id], first, now))
        self._rendering = True
        try:
            self.setHtml("".join(parts))
        finally:
            self._rendering = False

    def _earlier_html(self, chat: Chat, folded: int) -> str:
        fill, ink = SUMMARY
        marker, action = ("▾", "hide them") if self._expanded else ("▸", "show them")
        link = f'<a href="{EARLIER_LINK}" style="color:{ink}">{marker} {folded:,} messages ({action})</a>'
        summary, _cut = shortened(chat.assistant_history[0].text)
        return (
            f'<table width="100%" cellpadding="10" style="margin-top:8px"><tr>'
            f'<td bgcolor="{fill}" style="color:{ink}"><b>{EARLIER}</b>, as Parley remembers it:'
            f"<p>{text_html(summary)}</p>{link}</td></tr></table>"
        )
