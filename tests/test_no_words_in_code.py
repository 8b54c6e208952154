"""A language's words are data (`languages/<code>/`), never code: no product module holds a string with a
letter beyond ASCII (a word of Italian, Spanish, French, German, Portuguese...), nor a list of words (a
`"a b c".split()`, or a set, list or tuple of four or more lower-case words). Docstrings and comments may
quote any language; messages to the user are English sentences, not lists."""

from __future__ import annotations

import ast
import re
import unicodedata
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PRODUCT = ("languages", "app", "chats", "voice", "ui")

CONCEPTS = frozenset(
    {
        "auto local openai gemini",  # the embedder setting's values
        "text optional masked path url level number fraction flag secret",  # the kinds of a setting
        "pending rung missed cancelled",  # a timer's states
        "identity preference relationship project context",  # the memory categories
        "switch ask none here",  # the outcomes of a chat search
        "y yes n no",  # `parley setup`'s answers: the command line speaks English, as the window does
        "ctrl alt shift super",  # the modifiers of a key combination (the talk shortcut)
    }
)
"""Word-like lists that name Parley's own concepts (values of settings, states, categories), not a language."""

_WORD = re.compile(r"[^\W\d_]+")


def docstring_nodes(tree: ast.AST) -> set[int]:
    """The ids of the string constants that stand alone as statements: docstrings, of modules, classes,
    functions and attributes."""
    found = set()
    for node in ast.walk(tree):
        for statement in getattr(node, "body", []) if isinstance(getattr(node, "body", None), list) else []:
            if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
                found.add(id(statement.value))
    return found


def words_in_code(source: str) -> Iterator[tuple[int, str]]:
    """(line, what) for each string of `source` that holds a letter beyond ASCII or is a list of words."""
    tree = ast.parse(source)
    docstrings = docstring_nodes(tree)
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in docstrings
            and any(ord(c) > 127 and unicodedata.category(c).startswith("L") for c in node.value)
        ):
            yield node.lineno, node.value
        listed = _listed_words(node)
        if listed is not None and listed not in CONCEPTS:
            yield getattr(node, "lineno", 0), listed


def _listed_words(node: ast.AST) -> str | None:
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "split"
        and isinstance(node.func.value, ast.Constant)
        and isinstance(node.func.value.value, str)
        and len(node.func.value.value.split()) >= 3
    ):
        return " ".join(node.func.value.value.split())
    if isinstance(node, ast.Set | ast.List | ast.Tuple) and len(node.elts) >= 4:
        texts = [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
        if len(texts) == len(node.elts) and all(_WORD.fullmatch(t) and t.islower() for t in texts):
            return " ".join(texts)
    return None


def product_modules() -> list[Path]:
    return [path for package in PRODUCT for path in sorted((ROOT / package).rglob("*.py"))]


@pytest.mark.parametrize("path", product_modules(), ids=lambda path: path.relative_to(ROOT).as_posix())
def test_no_language_words_in_product_code(path: Path) -> None:
    found = [f"line {line}: {text[:60]!r}" for line, text in words_in_code(path.read_text(encoding="utf-8"))]
    assert found == [], f"{path.relative_to(ROOT)} holds a language's words (they belong in languages/<code>/)"


def test_words_in_code_are_found_and_docstrings_and_messages_are_not() -> None:
    source = '''
"""Italian says "perché"."""
STOP = frozenset("the a an of".split())
DAYS = ("lunedi", "martedi", "mercoledi", "giovedi")
SAID = "Ricordati perché"
MESSAGE = "the conversation ended without an answer"
ROLES = ("user", "model")
'''
    assert sorted(line for line, _ in words_in_code(source)) == [3, 4, 5]
