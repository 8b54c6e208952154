"""What the main window's parts do when used, and what they show of the bridge: every signal to its slot.

The window lays itself out and makes its shortcuts; `bind` connects the rest, once, as the window is made.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ui.bridge import ChatBridge

if TYPE_CHECKING:  # the window calls `bind` as it is made
    from ui.main_window import MainWindow


def bind(window: MainWindow, bridge: ChatBridge) -> None:
    """The window's controls to its actions, and the bridge's signals to what shows them."""
    window.folders.folder_chosen.connect(window.chats.show_folder)
    window.search_box.returnPressed.connect(window.run_search)
    window.new_chat_button.clicked.connect(window.new_chat)
    window.rename_button.clicked.connect(window.rename_current)
    window.delete_button.clicked.connect(window.delete_current)
    window.chat_list.selectionModel().currentChanged.connect(window.select_row_chat)
    window.chats.modelAboutToBeReset.connect(window.remember_list_scroll)
    window.chats.modelReset.connect(window.restore_list_scroll)
    window.chats.rowsInserted.connect(window.reselect_current)
    bridge.ready.connect(window.chats.refresh)
    bridge.ready.connect(window.memory_page.reload)
    window.memory.chat_memory_loaded.connect(window.show_chat_memory)
    window.memory_switch.clicked.connect(window.switch_chat_memory)
    bridge.chats_changed.connect(window.chats.refresh)
    bridge.chat_loaded.connect(window.show_loaded_chat)
    bridge.turn_spoken.connect(window.show_turn)
    window.voice.text_typed.connect(window.follow_typed)
    window.transcript.whole_text_requested.connect(window.show_whole_text)
    bridge.tool_used.connect(window.transcript.add_chip)
    bridge.current_chat_changed.connect(window.show_current_chat)
    bridge.chat_created.connect(window.select_created_chat)
    bridge.search_finished.connect(window.show_search_result)
    bridge.state_changed.connect(window.voice.show_state)
    bridge.muted_changed.connect(window.voice.mute_action.setChecked)
    bridge.level_changed.connect(window.voice.show_level)
    bridge.error.connect(window.show_error)
    bridge.error_resolved.connect(window.clear_error)
    bridge.notice.connect(window.voice.show_notice)
    bridge.device_lost.connect(window.voice.show_device_lost)
    bridge.device_back.connect(window.voice.show_device_back)
    bridge.timers_changed.connect(window.timers.show_timers)
    bridge.timer_ringing.connect(window.timers.show_ringing)
    bridge.timer_stopped.connect(window.timers.show_stopped)
    bridge.timers_missed.connect(window.voice.show_notice)
    bridge.confirmation_asked.connect(window.confirmations.show_asked)
    bridge.confirmation_settled.connect(window.confirmations.show_settled)
