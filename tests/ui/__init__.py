"""Tests of the window: pytest-qt on the offscreen platform, against the real controller and SQLite store."""
