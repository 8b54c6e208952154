"""The rules of docs/ARCHITECTURE.md, checked on the code as it stands: imports between packages, one SDK per
module, each package's layers as that page lists them, rooms that import one another without a loop, no product
module over 400 lines. The checkers are tried on made-up inputs too, so that each is seen to fail."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("languages", "app", "voice", "chats", "ui")

FORBIDDEN = {
    "languages": ("voice", "chats", "app", "ui"),
    "voice": ("chats", "app", "ui"),
    "chats": ("voice", "app", "ui"),
    "app": ("ui",),
    "ui": ("voice",),
}
"""Package -> the packages it must never import."""

LINE_LIMIT = 400
"""Lines a product module may hold: past this, it is usually two modules."""

SDK_HOMES = {
    "google.genai": (
        "chats/text/gemini_text.py",
        "chats/embedders/gemini_embedder.py",
        "voice/live/gemini.py",
        "voice/live/gemini_grounding.py",
        "voice/live/gemini_setup.py",
        "voice/live/gemini_warm_up.py",
    ),
    "openai": ("chats/embedders/openai_embedder.py",),
    "sounddevice": ("voice/",),
    "openwakeword": ("voice/wake/detector.py",),
    "supabase": ("chats/supabase/",),
    # app/screen/picture.py: QtGui's QImage alone (scaling, JPEG), no widget and no application object.
    "PySide6": ("ui/", "app/screen/picture.py"),
    "mss": ("app/screen/grab.py",),
    "keyring": ("app/config/secrets.py",),
    "sqlite3": ("chats/sqlite/",),
    "livekit": ("voice/echo/canceller.py",),
    "faster_whisper": ("voice/offline/transcriber.py",),
    "ctranslate2": ("voice/offline/chat_model.py", "voice/offline/convert.py"),
    "gguf": ("voice/offline/convert.py",),
    "mcp": ("app/mcp/",),
    # Two homes, one job each: the talk shortcut's key grab, and the screen's active window (which mss, the
    # screen's other X11 SDK, does not read); neither sees the other.
    "Xlib": ("app/front/shortcut/x11.py", "app/screen/active_window.py"),
    "jeepney": ("app/front/shortcut/portal.py", "app/screen/portal.py"),
}
"""SDK -> the only modules (or folders) that may import it: one SDK per module."""


def modules(root: Path = ROOT, packages: Iterable[str] = PACKAGES) -> Iterator[tuple[str, set[str]]]:
    """Each module of `packages` (a path) with every module it imports (dotted names; `from p import m`
    counts `p.m` when that is a module)."""
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            imported = set()
            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    imported |= {alias.name for alias in node.names}
                elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                    imported.add(node.module)
                    imported |= {
                        f"{node.module}.{alias.name}"
                        for alias in node.names
                        if is_module(root, f"{node.module}.{alias.name}")
                    }
            yield path.relative_to(root).as_posix(), imported


def is_module(root: Path, dotted: str) -> bool:
    path = root.joinpath(*dotted.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def within(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def test_the_tree_has_modules_to_check() -> None:
    assert len(list(modules())) > 20


@pytest.mark.parametrize(("module", "imported"), list(modules()))
def test_packages_import_only_downwards(module: str, imported: set[str]) -> None:
    package = module.split("/", 1)[0]
    for name in imported:
        for forbidden in FORBIDDEN.get(package, ()):
            assert not within(name, forbidden), f"{module} imports {name}"
    if package == "ui":
        # The window reads the core's data types (chats, and memories since the Memory page); everything
        # else it reaches through `app`.
        chats_imports = {name for name in imported if within(name, "chats")}
        assert chats_imports <= {"chats.models", "chats.memory.models"}, f"{module} reaches past the data types"


@pytest.mark.parametrize(("module", "imported"), list(modules()))
def test_each_sdk_stays_in_its_module(module: str, imported: set[str]) -> None:
    for sdk, homes in SDK_HOMES.items():
        if any(within(name, sdk) for name in imported):
            assert any(module == home or (home.endswith("/") and module.startswith(home)) for home in homes), (
                f"{module} imports {sdk}"
            )


TOP_LEVEL_LIMIT = 15
"""Python modules at the top of `voice/` and `chats/`: past this, a package needs rooms."""


PAGE = ROOT / "docs" / "ARCHITECTURE.md"
LAYERS_HEADER = re.compile(r"^(\w+), bottom layer first$")
LAYER_LINE = re.compile(r"^(\d+)\.\s+(\S.*)$")


def read_layers(page: str) -> dict[str, list[list[str]]]:
    """The layers docs/ARCHITECTURE.md gives each package, bottom first: every fenced block that opens with
    "PACKAGE, bottom layer first", then one numbered line per layer naming its rooms as dotted names."""
    blocks: list[list[str]] = []
    inside = False
    for line in page.splitlines():
        if line.startswith("```"):
            inside = not inside
            blocks += [[]] if inside else []
        elif inside:
            blocks[-1].append(line.strip())
    layers: dict[str, list[list[str]]] = {}
    for block in blocks:
        header = LAYERS_HEADER.match(block[0]) if block else None
        if header is None:
            continue  # a drawing or a command, not a list of layers
        package = header.group(1)
        layers[package] = []
        for line in block[1:]:
            numbered = LAYER_LINE.match(line)
            if numbered is None or int(numbered.group(1)) != len(layers[package]) + 1:
                raise ValueError(f"{package}'s layers: {line!r} is not layer {len(layers[package]) + 1}")
            layers[package].append(numbered.group(2).replace(",", " ").split())
    return layers


def rooms_of(package: str, root: Path = ROOT) -> set[str]:
    """The rooms of a package: its top-level modules and its sub-packages, as dotted names."""
    return {
        f"{package}.{path.relative_to(root / package).parts[0].removesuffix('.py')}"
        for path in (root / package).rglob("*.py")
        if path != root / package / "__init__.py"
    }


def room_imports(package: str, root: Path = ROOT) -> dict[str, set[str]]:
    """Room -> the other rooms of the same package that its modules import (every import statement: under
    TYPE_CHECKING and inside functions too)."""
    graph: dict[str, set[str]] = {room: set() for room in rooms_of(package, root)}
    for module, imported in modules(root, (package,)):
        parts = module.removesuffix(".py").split("/")
        if len(parts) < 2 or parts[1] == "__init__":
            continue  # the package's own __init__ belongs to no room
        room = f"{package}.{parts[1]}"
        for name in imported:
            target = ".".join(name.split(".")[:2])
            if target in graph and target != room:
                graph[room].add(target)
    return graph


def find_cycle(graph: Mapping[str, Iterable[str]]) -> list[str]:
    """A cycle of the graph as its rooms, the first repeated at the end; [] when there is none."""
    done: set[str] = set()
    path: list[str] = []

    def visit(room: str) -> list[str]:
        if room in path:
            return [*path[path.index(room) :], room]
        if room in done:
            return []
        path.append(room)
        for target in sorted(graph.get(room, ())):
            if cycle := visit(target):
                return cycle
        path.pop()
        done.add(room)
        return []

    for room in sorted(graph):
        if cycle := visit(room):
            return cycle
    return []


def layer_problems(package: str, layers: list[list[str]], rooms: set[str]) -> list[str]:
    """What is wrong with a package's layers: a name that is not one of its rooms (a module inside a room
    would split its folder across layers), a room in two layers, a room in none."""
    problems: list[str] = []
    seen: dict[str, int] = {}
    for number, layer in enumerate(layers, start=1):
        for name in layer:
            inside = [room for room in rooms if within(name, room)]
            if name not in rooms and inside:
                problems.append(
                    f"{package} layer {number}: {name} is inside {inside[0]}, whose modules share one layer"
                )
            elif name not in rooms:
                problems.append(f"{package} layer {number}: {name} is not a room of {package}/")
            elif name in seen:
                problems.append(f"{package}: {name} straddles layers {seen[name]} and {number}")
            seen.setdefault(name, number)
    problems += [f"{package}: {room} is in no layer" for room in sorted(rooms - seen.keys())]
    return problems


def upward_imports(layers: list[list[str]], graph: Mapping[str, Iterable[str]]) -> list[str]:
    """Every import of a room from a layer above its own."""
    layer_of = {room: number for number, layer in enumerate(layers, start=1) for room in layer}
    return [
        f"{room} (layer {layer_of[room]}) imports {target} (layer {layer_of[target]})"
        for room in sorted(graph)
        for target in sorted(graph[room])
        if room in layer_of and target in layer_of and layer_of[target] > layer_of[room]
    ]


def too_long(paths: Iterable[Path], limit: int = LINE_LIMIT, root: Path = ROOT) -> list[str]:
    """Every file of `paths` past `limit` lines, named with its length."""
    found = []
    for path in sorted(paths):
        length = len(path.read_text(encoding="utf-8").splitlines())
        if length > limit:
            found.append(f"{path.relative_to(root).as_posix()}: {length} lines (at most {limit})")
    return found


LAYERED = ("languages", "voice", "chats", "app")
"""The packages whose layers docs/ARCHITECTURE.md lists. `ui` is grouped by page instead."""


def test_the_page_lists_the_layers_of_each_layered_package() -> None:
    assert sorted(read_layers(PAGE.read_text(encoding="utf-8"))) == sorted(LAYERED)


@pytest.mark.parametrize("package", LAYERED)
def test_each_room_stands_in_one_layer(package: str) -> None:
    layers = read_layers(PAGE.read_text(encoding="utf-8"))[package]
    assert layer_problems(package, layers, rooms_of(package)) == []


@pytest.mark.parametrize("package", LAYERED)
def test_rooms_import_only_their_layer_or_below(package: str) -> None:
    layers = read_layers(PAGE.read_text(encoding="utf-8"))[package]
    assert upward_imports(layers, room_imports(package)) == []


@pytest.mark.parametrize("package", PACKAGES)
def test_rooms_import_one_another_without_a_cycle(package: str) -> None:
    cycle = find_cycle(room_imports(package))
    assert cycle == [], f"{package}'s rooms import one another in a loop: {' -> '.join(cycle)}"


def test_no_product_module_is_over_the_line_limit() -> None:
    assert too_long(path for package in PACKAGES for path in (ROOT / package).rglob("*.py")) == []


def test_every_package_folder_is_named_in_the_architecture_page() -> None:
    page = PAGE.read_text(encoding="utf-8")
    for package in PACKAGES:
        for folder in [ROOT / package, *(ROOT / package).rglob("*")]:
            if folder.is_dir() and (folder / "__init__.py").exists():
                name = folder.relative_to(ROOT).as_posix()
                assert f"`{name}/`" in page or f"`{name}`" in page, f"docs/ARCHITECTURE.md does not name {name}/"


@pytest.mark.parametrize("package", ["voice", "chats"])
def test_packages_keep_few_modules_at_their_top(package: str) -> None:
    top = [path for path in (ROOT / package).glob("*.py") if path.name != "__init__.py"]
    assert len(top) <= TOP_LEVEL_LIMIT, f"{package}/ has {len(top)} modules at its top"


# The checkers on made-up inputs: each can fail.


def test_a_loop_of_rooms_is_found_and_named() -> None:
    graph = {"p.a": {"p.b"}, "p.b": {"p.c"}, "p.c": {"p.a"}, "p.d": {"p.a"}}
    assert find_cycle(graph) == ["p.a", "p.b", "p.c", "p.a"]
    assert find_cycle({"p.a": {"p.b"}, "p.b": {"p.c"}, "p.d": {"p.a", "p.c"}}) == []


def test_imports_inside_functions_and_for_types_count(tmp_path: Path) -> None:
    (tmp_path / "p" / "b").mkdir(parents=True)
    (tmp_path / "p" / "__init__.py").write_text("")
    (tmp_path / "p" / "a.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from p.b.c import C\n", encoding="utf-8"
    )
    (tmp_path / "p" / "b" / "__init__.py").write_text("")
    (tmp_path / "p" / "b" / "c.py").write_text("def f() -> None:\n    from p import a\n", encoding="utf-8")
    assert room_imports("p", tmp_path) == {"p.a": {"p.b"}, "p.b": {"p.a"}}
    assert find_cycle(room_imports("p", tmp_path)) == ["p.a", "p.b", "p.a"]


def test_layers_are_read_from_a_page() -> None:
    page = "Text.\n```\na ─► b\n```\n```\np, bottom layer first\n1. p.a, p.b\n2. p.c\n```\n"
    assert read_layers(page) == {"p": [["p.a", "p.b"], ["p.c"]]}
    with pytest.raises(ValueError, match="layer 2"):
        read_layers("```\np, bottom layer first\n1. p.a\n3. p.c\n```\n")


def test_a_wrong_layer_list_is_told() -> None:
    rooms = {"p.a", "p.b", "p.c"}
    assert layer_problems("p", [["p.a"], ["p.b", "p.c"]], rooms) == []
    assert layer_problems("p", [["p.a", "p.b.x"], ["p.b", "p.a"], ["p.z"]], rooms) == [
        "p layer 1: p.b.x is inside p.b, whose modules share one layer",
        "p: p.a straddles layers 1 and 2",
        "p layer 3: p.z is not a room of p/",
        "p: p.c is in no layer",
    ]


def test_an_import_from_above_is_told() -> None:
    layers = [["p.a"], ["p.b", "p.c"]]
    assert upward_imports(layers, {"p.b": {"p.a", "p.c"}}) == []
    assert upward_imports(layers, {"p.a": {"p.c"}}) == ["p.a (layer 1) imports p.c (layer 2)"]


def test_a_long_module_is_named_with_its_length(tmp_path: Path) -> None:
    (tmp_path / "short.py").write_text("x = 1\n" * 400, encoding="utf-8")
    (tmp_path / "long.py").write_text("x = 1\n" * 401, encoding="utf-8")
    assert too_long(tmp_path.glob("*.py"), root=tmp_path) == ["long.py: 401 lines (at most 400)"]
