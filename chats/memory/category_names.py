"""The memory categories by name, apart from the memory values (and the numpy they bring): what the command
line offers before anything is loaded."""

from __future__ import annotations

from typing import Literal, get_args

Category = Literal["identity", "preference", "relationship", "project", "context"]
CATEGORIES: tuple[Category, ...] = get_args(Category)
"""In the order the pre-loaded block lists them."""
