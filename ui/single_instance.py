"""One window per data folder: `parley` while Parley's window is already open on the same chats brings
that window to the front instead of opening a second one (which would listen, answer and save twice).

The open window listens on a local socket (a Unix socket in the temporary folder, usable by this user
only) named after its data folder; a later start that reaches it has nothing more to do."""

from __future__ import annotations

import hashlib
import logging
from pathlib import Path

from PySide6.QtCore import QObject, Signal, Slot
from PySide6.QtNetwork import QLocalServer, QLocalSocket

log = logging.getLogger(__name__)

CONNECT_WAIT_MS = 1000
"""How long a start waits for an open window to take its call; a live window answers in milliseconds."""


def socket_name(data_dir: Path) -> str:
    digest = hashlib.sha256(str(data_dir.resolve()).encode()).hexdigest()[:16]
    return f"parley-window-{digest}"


def show_open_window(data_dir: Path) -> bool:
    """Ask the window open on `data_dir`'s chats, if any, to come to the front; True if there is one."""
    socket = QLocalSocket()
    socket.connectToServer(socket_name(data_dir))
    reached = socket.waitForConnected(CONNECT_WAIT_MS)
    socket.abort()
    return reached


class WindowSocket(QObject):
    """The open window's end: `show_requested` (GUI thread) for each later start on the same chats."""

    show_requested = Signal()

    def __init__(self, data_dir: Path, parent: QObject | None = None) -> None:
        super().__init__(parent)
        name = socket_name(data_dir)
        self._server = QLocalServer(self)
        self._server.setSocketOptions(QLocalServer.SocketOption.UserAccessOption)
        QLocalServer.removeServer(name)  # what a window that crashed left behind; no window answered on it
        if not self._server.listen(name):
            log.warning("a second parley will open a second window: %s", self._server.errorString())
        self._server.newConnection.connect(self._on_connection)

    @Slot()
    def _on_connection(self) -> None:
        while (socket := self._server.nextPendingConnection()) is not None:
            socket.abort()
            socket.deleteLater()
            self.show_requested.emit()
