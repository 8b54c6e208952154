"""A key combination as Settings write it, read into what X11 and the portal grab."""

from __future__ import annotations

import pytest

from app.front.shortcut.combination import KeyCombination, ShortcutError


@pytest.mark.parametrize(
    ("text", "modifiers", "key", "trigger"),
    [
        ("Ctrl+Alt+Space", frozenset({"ctrl", "alt"}), "space", "CTRL+ALT+space"),
        ("Meta+F12", frozenset({"super"}), "F12", "LOGO+F12"),
        ("Ctrl+Shift+K", frozenset({"ctrl", "shift"}), "k", "CTRL+SHIFT+k"),
        ("Alt+PgDown", frozenset({"alt"}), "Next", "ALT+Next"),
        ("Ctrl+,", frozenset({"ctrl"}), "comma", "CTRL+comma"),
        ("Ctrl++", frozenset({"ctrl"}), "plus", "CTRL+plus"),
        (" Ctrl+Alt+Esc ", frozenset({"ctrl", "alt"}), "Escape", "CTRL+ALT+Escape"),
    ],
)
def test_a_combination_names_its_modifiers_and_its_key_as_desktops_do(
    text: str, modifiers: frozenset[str], key: str, trigger: str
) -> None:
    combination = KeyCombination.parse(text)
    assert (combination.modifiers, combination.key) == (modifiers, key)
    assert combination.portal_trigger == trigger
    assert combination.text == text.strip()


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("Space", "'Space' would take that key from every application: add Ctrl, Alt or Meta"),
        ("Shift+A", "'Shift+A' would take that key from every application: add Ctrl, Alt or Meta"),
        ("Ctrl+K, Ctrl+L", "'Ctrl+K, Ctrl+L' is not one key combination: write it as Ctrl+Alt+Space"),
        ("Hyper+K", "'Hyper+K' is not one key combination: write it as Ctrl+Alt+Space"),
        ("Ctrl+", "'Ctrl+' is not one key combination: write it as Ctrl+Alt+Space"),
    ],
)
def test_what_cannot_be_a_global_shortcut_is_said_in_one_line(text: str, problem: str) -> None:
    with pytest.raises(ShortcutError) as refused:
        KeyCombination.parse(text)
    assert str(refused.value) == problem
