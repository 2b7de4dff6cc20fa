"""The repository stands alone: README.md and docs/ point at nothing outside it. Every relative
link resolves to a file of the repository, and no text names the design notes, specification
catalogs or operator documents that live beside a development checkout (docs/ says what users
need in its own words: api.md, numerics.md, rules.md, architecture.md). docs/status.md, the
session notes, is not checked."""
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = ["README.md"] + sorted(f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md") if p.name != "status.md")
OUTSIDE = re.compile(r"DESIGN\.md|STYLE\.md|(?<![\w/])API\.md|\bspec/|\bshared/|\.\./|/work/")
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


@pytest.mark.parametrize("page", PAGES)
def test_names_nothing_outside_the_repository(page):
    text = (ROOT / page).read_text()
    assert [m.group(0) for m in OUTSIDE.finditer(text)] == []


@pytest.mark.parametrize("page", PAGES)
def test_relative_links_resolve_inside_the_repository(page):
    base = (ROOT / page).parent
    for target in LINK.findall((ROOT / page).read_text()):
        if re.match(r"^[a-z]+:", target):
            continue                                   # https:, mailto:
        path = (base / target).resolve()
        assert path.is_relative_to(ROOT) and path.exists(), f"{page}: {target}"


def test_the_check_sees_an_outside_reference():
    assert OUTSIDE.search("see ../shared/spec/API.md") and OUTSIDE.search("DESIGN.md's model")
    assert not OUTSIDE.search("docs/api.md and [api.md](api.md)")
