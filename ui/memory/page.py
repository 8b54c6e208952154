"""The Memory page: what Parley remembers about the user, by category, searchable, editable, deletable,
exportable. It lays out and binds; the memory bridge does the work."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from uuid import UUID

from PySide6.QtCore import Qt, Slot
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLineEdit,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.memory_controller import ExportFormat
from chats.memory.models import CATEGORIES, Memory
from ui.memory.bridge import MemoryBridge, MemoryList, MemoryQuery
from ui.shown_text import for_window
from ui.widgets import Confirm, push_button, text_line

CATEGORY_NAMES = {
    "identity": "Who you are",
    "preference": "Preferences",
    "relationship": "People",
    "project": "Projects",
    "context": "Context",
}
ALL_CATEGORIES = "All categories"

EditMemory = Callable[[QWidget, Memory], tuple[str, str] | None]
"""Asks for a memory's new words and category: (parent, memory) -> (content, category), or None."""
ChooseExport = Callable[[QWidget], tuple[Path, ExportFormat] | None]
"""Asks where to export: the file and its format, or None."""


class MemoryEditDialog(QDialog):
    def __init__(self, memory: Memory, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Edit memory")
        self.setAccessibleName("Edit memory")
        self.content = QLineEdit(memory.content)
        self.content.setAccessibleName("What Parley remembers")
        self.category = QComboBox()
        self.category.setAccessibleName("Category")
        for category in CATEGORIES:
            self.category.addItem(CATEGORY_NAMES[category], category)
        self.category.setCurrentIndex(CATEGORIES.index(memory.category))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form = QFormLayout(self)
        form.addRow("&Memory:", self.content)
        form.addRow("&Category:", self.category)
        form.addRow(buttons)
        self.setMinimumWidth(480)


def edit_in_dialog(parent: QWidget, memory: Memory) -> tuple[str, str] | None:
    dialog = MemoryEditDialog(memory, parent)
    if dialog.exec() != QDialog.DialogCode.Accepted:
        return None
    return dialog.content.text(), str(dialog.category.currentData())


def choose_export_file(parent: QWidget) -> tuple[Path, ExportFormat] | None:
    name, chosen = QFileDialog.getSaveFileName(
        parent, "Export memories", "parley-memories.json", "JSON (*.json);;Markdown (*.md)"
    )
    if not name:
        return None
    return Path(name), "markdown" if chosen.startswith("Markdown") or name.endswith(".md") else "json"


class MemoryPage(QWidget):
    def __init__(
        self,
        memory: MemoryBridge,
        *,
        confirm: Confirm,
        edit: EditMemory = edit_in_dialog,
        choose_export: ChooseExport = choose_export_file,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._memory = memory
        self._confirm = confirm
        self._edit = edit
        self._choose_export = choose_export
        self._shown: tuple[Memory, ...] = ()
        self.setAccessibleName("Memory")
        self._make_controls()
        self._lay_out()
        self._bind()

    def _make_controls(self) -> None:
        self.category = QComboBox()
        self.category.setAccessibleName("Category")
        self.category.addItem(ALL_CATEGORIES, None)
        for category in CATEGORIES:
            self.category.addItem(CATEGORY_NAMES[category], category)
        self.search_box = QLineEdit()
        self.search_box.setPlaceholderText("Search what Parley remembers…")
        self.search_box.setAccessibleName("Search memories")
        self.search_box.setClearButtonEnabled(True)
        self.show_replaced = QCheckBox("Show replaced f&acts")
        self.show_replaced.setAccessibleName("Show facts a newer one replaced")
        self.table = QTableWidget(0, 3)
        self.table.setHorizontalHeaderLabels(["Memory", "Category", "Saved"])
        self.table.setAccessibleName("Memories")
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().hide()
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        self.status = text_line("Memory status")
        self.edit_button = push_button("Ed&it…", "Edit memory")
        self.forget_button = push_button("&Forget", "Forget memory")
        self.export_button = push_button("E&xport…", "Export memories")

    def _lay_out(self) -> None:
        filters = QHBoxLayout()
        filters.addWidget(self.category)
        filters.addWidget(self.search_box, 1)
        filters.addWidget(self.show_replaced)
        buttons = QHBoxLayout()
        buttons.addWidget(self.edit_button)
        buttons.addWidget(self.forget_button)
        buttons.addStretch(1)
        buttons.addWidget(self.export_button)
        layout = QVBoxLayout(self)
        layout.addLayout(filters)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.status)
        layout.addLayout(buttons)
        self._enable_row_buttons()

    def _bind(self) -> None:
        self.delete_shortcut = QShortcut(QKeySequence.StandardKey.Delete, self.table)
        self.delete_shortcut.setContext(Qt.ShortcutContext.WidgetShortcut)
        self.delete_shortcut.activated.connect(self.forget_selected)
        self.category.currentIndexChanged.connect(self.reload)
        self.search_box.returnPressed.connect(self.reload)
        self.search_box.textChanged.connect(self._on_search_text)
        self.show_replaced.toggled.connect(self.reload)
        self.table.itemSelectionChanged.connect(self._enable_row_buttons)
        self.table.itemDoubleClicked.connect(self.edit_selected)
        self.edit_button.clicked.connect(self.edit_selected)
        self.forget_button.clicked.connect(self.forget_selected)
        self.export_button.clicked.connect(self.export)
        self._memory.loaded.connect(self._show)
        self._memory.changed.connect(self.reload)
        self._memory.exported.connect(self.status.setText)

    @property
    def shown(self) -> tuple[Memory, ...]:
        """The memories in the table, in its order."""
        return self._shown

    @Slot()
    def reload(self) -> None:
        self._memory.load(
            MemoryQuery(
                category=self.category.currentData(),
                text=self.search_box.text().strip(),
                include_replaced=self.show_replaced.isChecked(),
            )
        )

    @Slot()
    def edit_selected(self) -> None:
        memory = self._selected()
        if memory is not None and (answer := self._edit(self, memory)) is not None:
            content, category = answer
            if content.strip() and (content.strip(), category) != (memory.content, memory.category):
                self._memory.update(memory.id, content.strip(), category)

    @Slot()
    def forget_selected(self) -> None:
        memory = self._selected()
        if memory is not None and self._confirm(self, f"Forget “{memory.content}”? Parley will not remember it."):
            self._memory.forget(memory.id)

    @Slot()
    def export(self) -> None:
        chosen = self._choose_export(self)
        if chosen is not None:
            self._memory.export(*chosen)

    def select(self, memory_id: UUID) -> None:
        row = next((row for row, memory in enumerate(self._shown) if memory.id == memory_id), None)
        if row is not None:
            self.table.selectRow(row)

    def _selected(self) -> Memory | None:
        rows = self.table.selectionModel().selectedRows()
        return self._shown[rows[0].row()] if rows else None

    @Slot(str)
    def _on_search_text(self, text: str) -> None:
        if not text:  # the clear button: back to the list
            self.reload()

    @Slot(object)
    def _show(self, answer: MemoryList) -> None:
        self._shown = answer.memories
        self.table.setRowCount(len(answer.memories))
        for row, memory in enumerate(answer.memories):
            replaced = " (replaced)" if memory.superseded_by is not None else ""
            cells = (memory.content + replaced, CATEGORY_NAMES[memory.category], f"{memory.created_at:%Y-%m-%d}")
            for column, text in enumerate(cells):
                item = QTableWidgetItem(for_window(text))
                item.setToolTip(memory.content if column == 0 else text)
                self.table.setItem(row, column, item)
        count = len(answer.memories)
        if answer.query.text:
            self.status.setText(f"{count} memor{'y' if count == 1 else 'ies'} match “{answer.query.text}”.")
        else:
            self.status.setText(
                "Nothing remembered yet." if count == 0 else f"{count} memor{'y' if count == 1 else 'ies'}."
            )
        self._enable_row_buttons()

    @Slot()
    def _enable_row_buttons(self) -> None:
        chosen = self._selected() is not None
        self.edit_button.setEnabled(chosen)
        self.forget_button.setEnabled(chosen)
