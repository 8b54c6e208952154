"""The tray icon: the assistant's state at a glance, and show/hide, mute and quit from its menu.

With `close_to_tray` and a desktop that has a tray, closing the window hides it and Parley keeps
listening; "Quit Parley" in the menu ends it. Without a tray (some desktops, offscreen tests), closing
the window quits as usual, since nothing would be left to bring it back.
"""

from __future__ import annotations

from typing import cast

from PySide6.QtCore import QEvent, QObject, Qt, Slot
from PySide6.QtGui import QAction, QColor, QIcon, QPainter, QPen
from PySide6.QtWidgets import QApplication, QMainWindow, QMenu, QSystemTrayIcon

from app.config.desktop_entry import icon_file
from app.core.status import VoiceStatus
from ui.tray.status import state_words

_COLOURS = {
    VoiceStatus.SLEEPING: "#475569",
    VoiceStatus.CONNECTING: "#b45309",
    VoiceStatus.RECONNECTING: "#b45309",
    VoiceStatus.LISTENING: "#15803d",
    VoiceStatus.THINKING: "#6d28d9",
    VoiceStatus.RESPONDING: "#1d4ed8",
    VoiceStatus.ERROR: "#b91c1c",
    VoiceStatus.LOOKING: "#db2777",
}
_OTHER = "#6b7280"
_ICON_PX = 64
KEEPS_LISTENING = "Parley keeps listening here. Quit it from this icon's menu."


def app_icon() -> QIcon:
    """Parley's own icon, as the application menu shows it (`app.config.desktop_entry`)."""
    return QIcon(str(icon_file()))


def state_icon(state: VoiceStatus, *, muted: bool = False) -> QIcon:
    """Parley's icon with a dot in the state's colour at its lower right; the dot struck through while
    the microphone is muted."""
    pixmap = app_icon().pixmap(_ICON_PX, _ICON_PX)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setPen(QPen(QColor("white"), 4))
    painter.setBrush(QColor(_OTHER if muted else _COLOURS.get(state, _OTHER)))
    dot = _ICON_PX * 9 // 16
    painter.drawEllipse(_ICON_PX - dot - 2, _ICON_PX - dot - 2, dot, dot)
    if muted:
        painter.setPen(QPen(QColor("white"), 5, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap))
        inset = _ICON_PX - dot + 6
        painter.drawLine(inset, inset, _ICON_PX - 10, _ICON_PX - 10)
    painter.end()
    return QIcon(pixmap)


NOTIFY_MS = 10_000
"""How long a notification stays (desktops may keep it longer in their list)."""


class Tray(QObject):
    def __init__(
        self,
        window: QMainWindow,
        mute_action: QAction,
        *,
        close_to_tray: bool,
        available: bool | None = None,
    ) -> None:
        """`available`: whether the desktop has a tray (None: ask Qt)."""
        super().__init__(window)
        self._mute = mute_action
        self._state = VoiceStatus.SLEEPING
        self._told = False
        if available is None:
            available = QSystemTrayIcon.isSystemTrayAvailable()
        self.available = available
        """The desktop has a tray to reach Parley from."""
        self.keeps_running = close_to_tray and available
        """Closing the window hides it; Parley runs on in the tray."""

        self.menu = QMenu(window)
        self.show_action = self.menu.addAction("Hide Parley")
        self.menu.addAction(mute_action)
        self.menu.addSeparator()
        self.quit_action = self.menu.addAction("Quit Parley")
        self.icon = QSystemTrayIcon(self)
        self.icon.setContextMenu(self.menu)
        self._show_icon()

        self.menu.aboutToShow.connect(self._name_show_action)
        self.show_action.triggered.connect(self.toggle_window)
        self.quit_action.triggered.connect(self.quit)
        self.icon.activated.connect(self._on_activated)
        mute_action.toggled.connect(self._show_icon)
        if available:
            self.icon.show()
            window.installEventFilter(self)
        self.set_close_to_tray(close_to_tray)

    def set_close_to_tray(self, close_to_tray: bool) -> None:
        """Closing the window hides it (True, when the desktop has a tray) or quits Parley: applies at once."""
        self.keeps_running = close_to_tray and self.available
        app = QApplication.instance()
        if isinstance(app, QApplication):
            app.setQuitOnLastWindowClosed(not self.keeps_running)

    @property
    def _window(self) -> QMainWindow:
        # Through Qt's parent, not a Python attribute: a child holding its parent makes a reference
        # cycle, and the garbage collector may then delete the window from whatever thread it runs on.
        return cast(QMainWindow, self.parent())

    @Slot(object)
    def show_state(self, state: VoiceStatus) -> None:
        self._state = state
        self._show_icon()

    @Slot()
    def toggle_window(self) -> None:
        if self._window.isVisible():
            self._window.hide()
        else:
            self.show_window()

    @Slot()
    def show_window(self) -> None:
        """Show the window (from the tray, or minimised) in front of the others."""
        self._window.showNormal()
        self._window.raise_()
        self._window.activateWindow()

    @Slot()
    def quit(self) -> None:
        # Hidden first: on some desktops an icon outlives its process until the tray next repaints.
        self.icon.hide()
        QApplication.quit()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self._window and event.type() == QEvent.Type.Close and self.keeps_running:
            event.ignore()
            self._window.hide()
            if not self._told:  # once: the first time the window seems to close, say where Parley went
                self._told = True
                self.icon.showMessage("Parley", KEEPS_LISTENING, QSystemTrayIcon.MessageIcon.Information, 5000)
            return True
        return super().eventFilter(watched, event)

    @Slot(str)
    def notify(self, message: str) -> None:
        """A desktop notification (a timer rings, one was missed): the window may be hidden."""
        if self.available:
            self.icon.showMessage("Parley", message, QSystemTrayIcon.MessageIcon.Information, NOTIFY_MS)

    @Slot()
    def _show_icon(self) -> None:
        muted = self._mute.isChecked()
        self.icon.setIcon(state_icon(self._state, muted=muted))
        words = state_words(self._state)
        self.icon.setToolTip(f"Parley: {words}, microphone muted" if muted else f"Parley: {words}")

    @Slot()
    def _name_show_action(self) -> None:
        self.show_action.setText("Hide Parley" if self._window.isVisible() else "Show Parley")

    @Slot(QSystemTrayIcon.ActivationReason)
    def _on_activated(self, reason: QSystemTrayIcon.ActivationReason) -> None:
        if reason == QSystemTrayIcon.ActivationReason.Trigger:
            self.toggle_window()
