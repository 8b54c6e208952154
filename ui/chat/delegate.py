"""How a row of the chat list is drawn: the title in bold, below it the time and preview in a softer ink.

Both lines are elided to the row's width. The row's text for screen readers is the model's accessible
text, not what is painted here.
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRect, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPalette
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem

from chats.models import utc_now
from ui.chat.chat_list import ChatRole, format_when, second_line

PADDING = 8
"""Pixels around and between the two lines."""
SOFT_INK = 0.72
"""The second line's ink: this share of the text colour over the background (about 5.5:1 on white)."""


def soft_ink(palette: QPalette, group: QPalette.ColorGroup, selected: bool) -> QColor:
    ink = palette.color(group, QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text)
    fill = palette.color(group, QPalette.ColorRole.Highlight if selected else QPalette.ColorRole.Base)

    def blend(a: int, b: int) -> int:
        return round(SOFT_INK * a + (1 - SOFT_INK) * b)

    return QColor(blend(ink.red(), fill.red()), blend(ink.green(), fill.green()), blend(ink.blue(), fill.blue()))


class ChatRowDelegate(QStyledItemDelegate):
    def paint(
        self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> None:
        # The row's background, selection and focus frame, as the style draws them, without text.
        self.initStyleOption(option, index)
        option.text = ""
        style = option.widget.style() if option.widget is not None else None
        if style is not None:
            style.drawControl(QStyle.ControlElement.CE_ItemViewItem, option, painter, option.widget)

        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        enabled = bool(option.state & QStyle.StateFlag.State_Enabled)
        group = QPalette.ColorGroup.Normal if enabled else QPalette.ColorGroup.Disabled
        role = QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text
        title, second = self._lines(index)
        title_font = QFont(option.font)
        title_font.setBold(True)
        title_metrics = QFontMetrics(title_font)
        area = option.rect.adjusted(PADDING, PADDING // 2, -PADDING, -PADDING // 2)

        painter.save()
        painter.setFont(title_font)
        painter.setPen(option.palette.color(group, role))
        top = QRect(area.left(), area.top(), area.width(), title_metrics.height())
        painter.drawText(
            top, Qt.AlignmentFlag.AlignLeft, title_metrics.elidedText(title, Qt.TextElideMode.ElideRight, area.width())
        )
        painter.setFont(option.font)
        painter.setPen(soft_ink(option.palette, group, selected))
        below = QRect(area.left(), top.bottom() + 1, area.width(), option.fontMetrics.height())
        painter.drawText(
            below,
            Qt.AlignmentFlag.AlignLeft,
            option.fontMetrics.elidedText(second, Qt.TextElideMode.ElideRight, area.width()),
        )
        painter.restore()

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> QSize:
        title_font = QFont(option.font)
        title_font.setBold(True)
        height = QFontMetrics(title_font).height() + option.fontMetrics.height() + PADDING + 1
        # The width is the view's: the list never scrolls sideways, both lines elide instead.
        return QSize(PADDING * 2, height)

    @staticmethod
    def _lines(index: QModelIndex | QPersistentModelIndex) -> tuple[str, str]:
        title = str(index.data(ChatRole.TITLE) or "")
        when = index.data(ChatRole.TIME)
        preview = str(index.data(ChatRole.PREVIEW) or "")
        folder = index.data(ChatRole.FOLDER)
        return title, second_line(format_when(when, utc_now()) if when is not None else "", folder, preview)
