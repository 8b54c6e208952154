"""The Settings' page of the user's own tools: each MCP server of `mcp.json` with its state (started and its
tools, switched off, or the one line saying why it could not start), each of its tools with what it may do,
and a checkbox for every server and tool.

Listing starts the servers (`app.mcp.catalogue`), which takes seconds: it runs on the runtime thread when the
page opens and on "Refresh", and its reports come back as a signal to a bound slot here. Saving writes only
`disabled` and `disabledTools` into `mcp.json` (`app.mcp.switches`); the voice loop reads the file again as
each conversation opens, so a change applies from the next conversation.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
from pathlib import Path

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.mcp.catalogue import ServerReport, catalogue
from app.mcp.config import McpConfigError, ServerConfig, mcp_file, read_servers
from app.mcp.switches import Switches, save_switches
from app.runtime import Runtime, RuntimeClosed
from ui.shown_text import for_window
from ui.widgets import push_button, text_line

LISTING = "starting…"
SWITCHED_OFF = "switched off (switch it on and save, then Refresh, to see its tools)"
NO_FILE = "No MCP servers yet: name them in {path} (docs/guide/tools.md says how)."
SAVED_NOTE = "Changes apply from the next conversation."


def server_state(report: ServerReport) -> str:
    """The server's line: started and how many tools, switched off, or why it could not start."""
    if report.server.disabled:
        return SWITCHED_OFF
    if report.error is not None:
        return f"could not start: {report.error}"
    count = len(report.tools)
    return f"started, {count} tool{'' if count == 1 else 's'}"


def tool_traits(read_only: bool | None, destructive: bool | None, asks_first: bool) -> str:
    """What the server says the tool may do, and whether Parley asks the user first."""
    traits = ["read-only"] if read_only else []
    traits += ["destructive"] if destructive else []
    traits += ["asks before running"] if asks_first else ["runs at once"]
    return ", ".join(traits)


class ToolsButton(QPushButton):
    """The Settings' way in: opens the page over the dialog."""

    def __init__(self, config_file: Path, runtime: Runtime) -> None:
        super().__init__("Your &tools (MCP)…")
        self.setAccessibleName("Your tools (MCP servers)")
        self.setToolTip("The MCP servers of mcp.json and their tools: see them, switch them off or on")
        self._config_file = config_file
        self._runtime = runtime
        self.clicked.connect(self.open_page)

    @Slot()
    def open_page(self) -> None:
        page = ToolsDialog(mcp_file(self._config_file), self._runtime, self)
        page.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        page.open()


class ToolsDialog(QDialog):
    _listed = Signal(object)
    """The servers' reports (or a one-line failure), emitted on the runtime thread, queued to `_show_reports`."""

    def __init__(self, path: Path, runtime: Runtime, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._path = path
        self._runtime = runtime
        self._servers: tuple[ServerConfig, ...] = ()
        self._listing: concurrent.futures.Future[tuple[ServerReport, ...]] | None = None
        self.setWindowTitle("Your tools (MCP)")
        self.setAccessibleName("Your tools (MCP servers)")
        self.setMinimumSize(560, 420)
        self.note = text_line("Tools note")
        self.error = text_line("Tools error", hidden=True)
        self.tree = QTreeWidget()
        self.tree.setColumnCount(2)
        self.tree.setHeaderLabels(["Server or tool", "State"])
        self.tree.setAccessibleName("MCP servers and their tools")
        self.refresh_button = push_button(
            "&Refresh", "Refresh the servers", "Start each server again and list its tools"
        )
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Close)
        self.save_button = self.buttons.button(QDialogButtonBox.StandardButton.Save)
        self.save_button.setAccessibleName("Save the switches")
        layout = QVBoxLayout(self)
        top = QHBoxLayout()
        top.addWidget(self.note, 1)
        top.addWidget(self.refresh_button)
        layout.addLayout(top)
        layout.addWidget(self.error)
        layout.addWidget(self.tree, 1)
        layout.addWidget(self.buttons)
        self.refresh_button.clicked.connect(self.refresh)
        self.buttons.accepted.connect(self.save)
        self.buttons.rejected.connect(self.reject)
        self.tree.itemChanged.connect(self._server_switched)
        self._listed.connect(self._show_reports)
        self.finished.connect(self._cancel_listing)
        self.refresh()

    def server_item(self, name: str) -> QTreeWidgetItem:
        """The row of the server called `name`."""
        return _named(children(self.tree.invisibleRootItem()), name)

    def tool_item(self, server: str, tool: str) -> QTreeWidgetItem:
        """The row of `server`'s tool `tool` (its own name)."""
        return _named(children(self.server_item(server)), tool)

    @Slot()
    def refresh(self) -> None:
        """Read the file again, show its servers at once, and list their tools on the runtime."""
        self.error.hide()
        try:
            self._servers = read_servers(self._path)
        except McpConfigError as problem:
            self._servers = ()
            self._show_error(str(problem))
        self.tree.clear()
        self.note.setText(str(self._path) if self._servers else NO_FILE.format(path=self._path))
        self.save_button.setEnabled(bool(self._servers))
        for server in self._servers:
            self._add_server(ServerReport(server), SWITCHED_OFF if server.disabled else LISTING)
        if not self._servers:
            return
        self._set_listing(True)  # a switch flipped now would be lost when the listed rows replace these
        try:
            self._listing = self._runtime.submit(catalogue(self._servers))
        except RuntimeClosed as closed:
            self._show_reports(f"Not listed: {closed}")
            return
        self._listing.add_done_callback(self._deliver)

    @Slot()
    def save(self) -> bool:
        """Write the switches shown into `mcp.json` and close; else show why and write nothing."""
        try:
            save_switches(self._path, self.switches())
        except McpConfigError as problem:
            self._show_error(str(problem))
            return False
        self.accept()
        return True

    def switches(self) -> dict[str, Switches]:
        """Each server's switches as shown. A tool not listed now (its server did not start) keeps what the
        file said of it."""
        out: dict[str, Switches] = {}
        for server in self._servers:
            item = self.server_item(server.name)
            tools = {row.data(0, Qt.ItemDataRole.UserRole): row for row in children(item)}
            off = {name for name, row in tools.items() if row.checkState(0) != Qt.CheckState.Checked}
            out[server.name] = Switches(
                disabled=item.checkState(0) != Qt.CheckState.Checked,
                disabled_tools=frozenset((server.disabled_tools - tools.keys()) | off),
            )
        return out

    def _add_server(self, report: ServerReport, state: str) -> None:
        server = report.server
        state = for_window(state)  # a failing server's own error output comes with it
        item = QTreeWidgetItem([for_window(server.name), state])
        item.setData(0, Qt.ItemDataRole.UserRole, server.name)
        item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
        item.setCheckState(0, Qt.CheckState.Unchecked if server.disabled else Qt.CheckState.Checked)
        item.setToolTip(1, state)
        for listed in report.tools:
            tool = listed.tool
            traits = tool_traits(tool.read_only, tool.destructive, listed.asks_first)
            child = QTreeWidgetItem([for_window(tool.name), traits])
            child.setData(0, Qt.ItemDataRole.UserRole, tool.name)
            child.setFlags(child.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            child.setCheckState(0, Qt.CheckState.Checked if listed.enabled else Qt.CheckState.Unchecked)
            child.setToolTip(0, for_window(tool.description))
            child.setDisabled(server.disabled)
            item.addChild(child)
        self.tree.addTopLevelItem(item)
        item.setExpanded(True)

    def _deliver(self, future: concurrent.futures.Future[tuple[ServerReport, ...]]) -> None:
        # The runtime thread: the signal queues the reports to the GUI thread.
        if future.cancelled():
            return
        failure = future.exception()
        with contextlib.suppress(RuntimeError):  # the page was closed and deleted while the servers started
            self._listed.emit(future.result() if failure is None else f"Not listed: {type(failure).__name__}")

    @Slot(object)
    def _show_reports(self, reports: tuple[ServerReport, ...] | str) -> None:
        self._set_listing(False)
        if isinstance(reports, str):
            self._show_error(reports)
            return
        self.tree.blockSignals(True)  # rows made, not switched by the user
        self.tree.clear()
        for report in reports:
            self._add_server(report, server_state(report))
        self.tree.blockSignals(False)
        self.tree.resizeColumnToContents(0)

    @Slot(QTreeWidgetItem, int)
    def _server_switched(self, item: QTreeWidgetItem, column: int) -> None:
        if item.parent() is None and column == 0:
            for tool in children(item):
                tool.setDisabled(item.checkState(0) != Qt.CheckState.Checked)

    def _set_listing(self, listing: bool) -> None:
        for control in (self.refresh_button, self.tree, self.save_button):
            control.setEnabled(not listing)

    @Slot()
    def _cancel_listing(self) -> None:
        if self._listing is not None:
            self._listing.cancel()

    def _show_error(self, message: str) -> None:
        self.error.setText(f"Error: {message}")
        self.error.show()


def children(item: QTreeWidgetItem) -> list[QTreeWidgetItem]:
    """The rows under `item` (the tree's invisible root: the servers)."""
    return [child for index in range(item.childCount()) if (child := item.child(index)) is not None]


def _named(rows: list[QTreeWidgetItem], name: str) -> QTreeWidgetItem:
    for row in rows:
        if row.data(0, Qt.ItemDataRole.UserRole) == name:
            return row
    raise KeyError(name)
