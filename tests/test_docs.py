"""The README and the user guide (docs/) hold to the code: every relative link resolves (to a file, and to a
heading for `#anchor` links), every `parley` command they show parses with the real command line, every
`python -m bench.NAME` names a module of bench/, and the settings reference is the settings table."""

from __future__ import annotations

import argparse
import re
import shlex
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote

import pytest

from app.cli.main import build_parser
from app.config.settings_table import settings_markdown

ROOT = Path(__file__).resolve().parents[1]


def doc_files(root: Path = ROOT) -> list[Path]:
    """The README and every Markdown page under docs/."""
    return [root / "README.md", *sorted((root / "docs").rglob("*.md"))]


def shown(path: Path, root: Path = ROOT) -> str:
    return path.relative_to(root).as_posix()


# Markdown: fenced blocks, code spans, headings, links.

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
CODE_SPAN = re.compile(r"(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.DOTALL)
INLINE_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE_LINK = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)", re.MULTILINE)
HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)(?:\s+#+)?\s*$")
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


@dataclass
class Markdown:
    """A Markdown text split into what its fenced blocks hold and the rest (prose)."""

    prose: str
    fenced: list[str] = field(default_factory=list)
    """The lines inside fenced code blocks."""


def split_markdown(text: str) -> Markdown:
    prose: list[str] = []
    fenced: list[str] = []
    fence: str | None = None
    for line in text.splitlines():
        opening = FENCE.match(line)
        if fence is None and opening:
            fence = opening.group(1)
            prose.append("")
        elif fence is not None and opening and opening.group(1)[0] == fence[0] and len(opening.group(1)) >= len(fence):
            fence = None
            prose.append("")
        elif fence is not None:
            fenced.append(line)
            prose.append("")
        else:
            prose.append(line)
    return Markdown("\n".join(prose), fenced)


def code_spans(prose: str) -> list[str]:
    return [" ".join(match.group(2).split()) for match in CODE_SPAN.finditer(prose)]


def without_code_spans(prose: str) -> str:
    return CODE_SPAN.sub(lambda match: " " * len(match.group(0)), prose)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: its text (links and code marks removed), lower case, every character
    but letters, digits, marks, `_`, `-` and spaces dropped, spaces made hyphens."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    text = re.sub(r"<[^>]+>", "", text).replace("`", "").replace("*", "").lower()
    kept = "".join(ch for ch in text if ch.isalnum() or ch in "-_ " or unicodedata.category(ch).startswith(("M", "N")))
    return kept.replace(" ", "-")


def anchors(text: str) -> set[str]:
    """Every heading anchor of a Markdown page, a repeated one numbered as GitHub does (`-1`, `-2`, ...)."""
    found: set[str] = set()
    seen: dict[str, int] = {}
    for line in split_markdown(text).prose.splitlines():
        match = HEADING.match(line)
        if not match:
            continue
        base = slug(match.group(2))
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def link_targets(text: str) -> list[str]:
    prose = without_code_spans(split_markdown(text).prose)
    return [match.group(1) for match in INLINE_LINK.finditer(prose)] + REFERENCE_LINK.findall(prose)


def broken_links(path: Path, root: Path = ROOT) -> list[str]:
    """What is wrong with the relative links of the Markdown page `path` (none: all resolve)."""
    problems = []
    for target in link_targets(path.read_text(encoding="utf-8")):
        if SCHEME.match(target) or target.startswith("//"):
            continue  # a web address: not checked here
        where, _, anchor = target.partition("#")
        base = root if where.startswith("/") else path.parent
        resolved = (base / unquote(where.lstrip("/"))).resolve() if where else path
        if not resolved.is_relative_to(root.resolve()):
            problems.append(f"{shown(path, root)}: link {target!r} leads out of the repository")
        elif not resolved.exists():
            problems.append(f"{shown(path, root)}: link {target!r}: no such file {where!r}")
        elif anchor and resolved.suffix == ".md" and unquote(anchor) not in anchors(resolved.read_text("utf-8")):
            problems.append(f"{shown(path, root)}: link {target!r}: {resolved.name} has no heading #{anchor}")
    return problems


# Shell commands as the docs show them.

SEPARATORS = {"&&", "||", ";"}
ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


def command_lines(text: str) -> list[str]:
    """Every line of a fenced block (a line ending in `\\` joined with the next) and every code span."""
    parts = split_markdown(text)
    lines: list[str] = []
    pending = ""
    for line in parts.fenced:
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        lines.append(pending + line)
        pending = ""
    return [*lines, *code_spans(parts.prose)]


def parley_commands(line: str) -> list[list[str]]:
    """The `parley` commands of one shell line, each as its words after `parley` (a line with none: [])."""
    if not re.search(r"(^|[\s/])parley(\s|$)", line):
        return []
    try:
        words = shlex.split(line, comments=True)
    except ValueError:
        return [["<unparsable shell line>"]]
    commands: list[list[str]] = []
    segment: list[str] = []
    for word in [*words, ";"]:
        if word not in SEPARATORS:
            segment.append(word)
            continue
        while segment and (segment[0] == "$" or ASSIGNMENT.match(segment[0])):
            segment.pop(0)  # a prompt, or `NAME=value` before the command
        if segment and Path(segment[0]).name == "parley":
            commands.append(segment[1:])
        segment = []
    return commands


def is_placeholder(word: str) -> bool:
    """A word that stands for a value: `ID`, `FOLDER_ID`, `<ref>`, `...`, `"..."`."""
    return bool(re.fullmatch(r"[A-Z][A-Z0-9_]*|<[^>]*>", word)) or "..." in word or "…" in word


def subcommands(parser: argparse.ArgumentParser) -> argparse._SubParsersAction[argparse.ArgumentParser] | None:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action
    return None


def positionals(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    return [a for a in parser._actions if not a.option_strings and not isinstance(a, argparse._SubParsersAction)]


@dataclass
class Reading:
    """Where a command's words stand in the parser: the (sub)command reached, and what it takes next."""

    parser: argparse.ArgumentParser
    name: str
    waiting: list[argparse.Action]
    problems: list[str] = field(default_factory=list)

    def enter(self, parser: argparse.ArgumentParser, word: str) -> None:
        self.parser, self.name = parser, f"{self.name} {word}"
        self.waiting = positionals(parser)


def is_option(word: str) -> bool:
    return word.startswith("-") and len(word) > 1  # `-` alone is a value: standard input


def clean(word: str) -> str:
    """A word without the brackets that mark an optional part: `[--out` -> `--out`, `FILE]]` -> `FILE`."""
    return word.lstrip("[").rstrip("]")


def bad_choices(values: str, action: argparse.Action) -> list[str]:
    """The alternatives of `values` (`json|markdown`) that `action` does not accept."""
    if action.choices is None:
        return []
    choices = [str(choice) for choice in action.choices]
    return [v for v in values.split("|") if v and v not in choices and not is_placeholder(v)]


def read_option(reading: Reading, word: str, rest: list[str]) -> None:
    """Check the option `word` (and consume its values from `rest`) against the command reached."""
    name, has_value, value = word.partition("=")
    action = reading.parser._option_string_actions.get(name)
    if action is None:
        reading.problems.append(f"`{reading.name}` has no option {name}")
        return
    if action.nargs == 0:
        return
    values = [value] if has_value else []
    many = action.nargs in ("+", "*")
    takes = action.nargs if isinstance(action.nargs, int) else 1
    while not has_value and rest and not is_option(clean(rest[0])) and clean(rest[0]) not in ("|", ">"):
        values.append(clean(rest.pop(0)))
        if not many and len(values) >= takes:
            break
    for value_word in values:
        for bad in bad_choices(value_word, action):
            reading.problems.append(f"`{reading.name} {name}` does not take {bad!r}")


def read_positional(reading: Reading, word: str) -> bool:
    """Check a word that is not an option: a subcommand, or a value of the command reached. False: stop
    reading (a placeholder stands where a subcommand should be)."""
    commands = subcommands(reading.parser)
    if commands is not None:
        if is_placeholder(word):
            return False
        unknown = [w for w in word.split("|") if w not in commands.choices]
        if unknown:
            reading.problems.append(f"`{reading.name}` has no command {unknown[0]!r}")
            return False
        first = word.split("|", maxsplit=1)[0]
        reading.enter(commands.choices[first], first)
        return True
    if not reading.waiting:
        reading.problems.append(f"`{reading.name}` takes no further argument {word!r}")
        return False
    action = reading.waiting[0]
    if action.nargs not in ("+", "*"):
        reading.waiting.pop(0)
    reading.problems.extend(f"`{reading.name}` does not take {bad!r} there" for bad in bad_choices(word, action))
    return True


def command_problems(words: Sequence[str], parser: argparse.ArgumentParser) -> list[str]:
    """What the `parley` command line `parser` refuses in `words` (the words after `parley`): an unknown
    command, an unknown option, a value outside an option's or argument's choices, a word too many.
    Placeholders (`ID`, `<ref>`, `...`), `[optional]` brackets and `a|b` alternatives are read as the docs
    mean them; a `|` followed by an option is an alternative, else a pipe that ends the command."""
    reading = Reading(parser, "parley", positionals(parser))
    rest = list(words)
    while rest and not reading.problems:
        word = clean(rest.pop(0))
        if word == "|" and rest and is_option(clean(rest[0])):
            continue  # `--folder ID | --no-folder`: either one
        if word in ("|", "&") or (word.startswith(("<", ">", "2>")) and not is_placeholder(word)):
            break  # a pipe or a redirection: the command ends here
        if not word:
            continue
        if is_option(word):
            read_option(reading, word, rest)
        elif not read_positional(reading, word):
            break
    return reading.problems


def shown_commands(root: Path = ROOT) -> Iterator[tuple[str, str, list[str]]]:
    """(file, the command as shown, its words after `parley`) for every `parley` command in the docs."""
    for path in doc_files(root):
        for line in command_lines(path.read_text(encoding="utf-8")):
            for words in parley_commands(line):
                yield shown(path, root), " ".join(["parley", *words]), words


# The tests.

PARSER = build_parser()


@pytest.mark.parametrize("path", doc_files(), ids=shown)
def test_every_relative_link_resolves(path: Path) -> None:
    assert broken_links(path) == []


def test_every_parley_command_shown_exists() -> None:
    problems = [
        f"{file}: {command}: {problem}"
        for file, command, words in shown_commands()
        for problem in command_problems(words, PARSER)
    ]
    assert problems == []


def test_the_docs_show_commands_and_links_at_all() -> None:
    """The readers above find what is there: a reader that found nothing would pass every doc."""
    commands = {command for _, command, _ in shown_commands()}
    assert {"parley", "parley listen", "parley chats list", "parley wake enrol"} <= commands
    assert len(commands) > 50
    readme_links = link_targets((ROOT / "README.md").read_text(encoding="utf-8"))
    assert "docs/guide/README.md" in readme_links
    assert "docs/ARCHITECTURE.md" in readme_links


def test_every_bench_module_shown_exists() -> None:
    missing = []
    for path in doc_files():
        for line in command_lines(path.read_text(encoding="utf-8")):
            for module in re.findall(r"python -m (bench(?:\.[a-z_][a-z0-9_]*)+)", line):
                file = ROOT / Path(*module.split("."))
                if not (file.with_suffix(".py").is_file() or (file / "__init__.py").is_file()):
                    missing.append(f"{shown(path)}: python -m {module}: no such module")
    assert missing == []


def test_the_settings_reference_is_the_settings_table() -> None:
    """docs/guide/settings.md shows every setting as the code declares it (`parley config` prints the same)."""
    assert settings_markdown() in (ROOT / "docs" / "guide" / "settings.md").read_text(encoding="utf-8")


def test_the_readme_reads_in_five_minutes_and_keeps_its_set_up_commands() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 200
    assert "./scripts/setup.sh && .venv/bin/parley\n" in readme
    assert "./scripts/setup.sh --dev && .venv/bin/python -m pytest\n" in readme


# The checkers themselves can fail.


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ("parley chats lsit", "`parley chats` has no command 'lsit'"),
        ("parley frobnicate --now", "`parley` has no command 'frobnicate'"),
        ("parley listen --audio-inn question.wav", "`parley listen` has no option --audio-inn"),
        ("parley chats export [--format json|yaml]", "`parley chats export --format` does not take 'yaml'"),
        ("parley keys set gemini|claude", "`parley keys set` does not take 'claude' there"),
        ("parley autostart on off", "`parley autostart` takes no further argument 'off'"),
        ("parley chats list --folder ID | --no-folders", "`parley chats list` has no option --no-folders"),
        ("parley chats list --json && parley timers snooze ID", "`parley timers` has no command 'snooze'"),
        ("PARLEY_LANGUAGE=it .venv/bin/parley --verbose listen", "`parley` has no option --verbose"),
    ],
)
def test_a_command_that_does_not_exist_is_found(line: str, problem: str) -> None:
    found = [p for words in parley_commands(line) for p in command_problems(words, PARSER)]
    assert found == [problem]


@pytest.mark.parametrize(
    "line",
    [
        "parley",
        "./scripts/setup.sh && .venv/bin/parley",
        "parley --log-level DEBUG listen",
        'parley ask "What\'s on my shopping list?" --new-chat --json   # a comment --not-an-option',
        "parley chats list --folder ID | --no-folder",
        "parley chats list | head",
        "parley chats move ID FOLDER_ID | --no-folder",
        "parley chats export [--format json|markdown] [--out FILE [--force]]",
        "parley keys set gemini|openai",
        "parley timers [list] [--json]",
        "parley supabase setup --url https://<ref>.supabase.co --anon-key ANON_KEY > parley.sql",
        "parley wake enrol --audio-in FILE ... --seconds 3",
        "parley COMMAND --help",
    ],
)
def test_a_command_that_exists_passes(line: str) -> None:
    commands = parley_commands(line)
    assert commands
    assert [p for words in commands for p in command_problems(words, PARSER)] == []


def test_lines_without_a_parley_command_are_left_alone() -> None:
    assert parley_commands("parley.chats/2") == []
    assert parley_commands("# parley listen, in a comment only") == []
    assert parley_commands(".venv/bin/python -m pytest") == []


def test_a_broken_link_is_found(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "page.md").write_text("# A page\n\n## Its `second` part (v2)\n", encoding="utf-8")
    (tmp_path / "README.md").write_text(
        "[ok](docs/page.md) [ok](docs/page.md#its-second-part-v2) [ok](#top) [web](https://example.org/x.md)\n"
        "[gone](docs/missing.md) [no heading](docs/page.md#its-third-part) [out](../elsewhere.md)\n"
        "`[in code](docs/also-missing.md)`\n\n```\n[in a block](docs/missing-too.md)\n```\n\n# Top\n",
        encoding="utf-8",
    )
    assert broken_links(tmp_path / "README.md", tmp_path) == [
        "README.md: link 'docs/missing.md': no such file 'docs/missing.md'",
        "README.md: link 'docs/page.md#its-third-part': page.md has no heading #its-third-part",
        "README.md: link '../elsewhere.md' leads out of the repository",
    ]
    assert broken_links(tmp_path / "docs" / "page.md", tmp_path) == []


def test_anchors_are_githubs() -> None:
    page = "# Parley\n## `parley ask`: one typed message\n## The chat list (left)\n## Notes\n## Notes\n```\n# no\n```"
    assert anchors(page) == {"parley", "parley-ask-one-typed-message", "the-chat-list-left", "notes", "notes-1"}
    assert slug("Your own tools (MCP)") == "your-own-tools-mcp"
    assert slug("Français, à l'écoute") == "français-à-lécoute"
