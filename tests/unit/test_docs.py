"""The prose documentation holds together: every relative link of README.md, docs/**/*.md and spec/README.md reaches
a file (and, for a Markdown page, the heading its anchor names), the README stays a guide, and the README's layout
table and ``conformance/__init__.py``'s module map name every subpackage of ``conformance/``."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import autoswitch.conformance

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted([ROOT / "README.md", ROOT / "spec" / "README.md", *(ROOT / "docs").rglob("*.md")])
README_MAX_LINES = 350  # issue 42: a guide a newcomer reads in ten minutes; the long sections are pages of docs/

_LINK = re.compile(r"(?<!!)\[[^\]\n]*\]\(([^()\s]+)\)|!\[[^\]\n]*\]\(([^()\s]+)\)")
_FENCE = re.compile(r"^```.*?^```", re.S | re.M)
_CODE = re.compile(r"`[^`\n]*`")


def _links(text: str) -> list[str]:
    """The link targets of a Markdown page, outside code blocks and code spans."""
    text = _CODE.sub("", _FENCE.sub("", text))
    return [a or b for a, b in _LINK.findall(text)]


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens."""
    text = heading.strip().lower().replace("`", "")
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    seen: dict[str, int] = {}
    anchors = set()
    for line in _FENCE.sub("", page.read_text()).splitlines():
        m = re.match(r"#{1,6} (.*)", line)
        if m:
            slug = _slug(m.group(1))
            n = seen.get(slug, 0)
            seen[slug] = n + 1
            anchors.add(slug if n == 0 else f"{slug}-{n}")
    return anchors


def broken_links(page: Path) -> list[str]:
    """The relative links of ``page`` whose file is missing, or whose anchor names no heading of its page."""
    broken = []
    for target in _links(page.read_text()):
        if re.match(r"[a-z]+:", target):  # https:, mailto:
            continue
        path, _, anchor = target.partition("#")
        dest = (page.parent / path).resolve() if path else page
        if not dest.exists():
            broken.append(f"{target}: no such file")
        elif anchor and dest.suffix == ".md" and anchor not in _anchors(dest):
            broken.append(f"{target}: no such heading")
    return broken


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_reaches_a_file(page: Path) -> None:
    assert broken_links(page) == []


def test_the_link_check_finds_a_broken_link(tmp_path: Path) -> None:
    (tmp_path / "there.md").write_text("# A heading: `code`\n")
    page = tmp_path / "page.md"
    page.write_text("[ok](there.md) [ok](there.md#a-heading-code) [web](https://example.org/x) `[code](nowhere.md)`\n"
                    "[gone](missing.md) [bad anchor](there.md#nothing) ![img](missing.png)\n")
    assert broken_links(page) == ["missing.md: no such file", "there.md#nothing: no such heading", "missing.png: no such file"]


def test_the_readme_is_a_guide() -> None:
    assert len((ROOT / "README.md").read_text().splitlines()) <= README_MAX_LINES


def _subpackages() -> list[str]:
    return sorted(p.parent.name for p in (ROOT / "conformance").glob("*/__init__.py"))


def test_the_module_map_and_the_layout_table_name_every_subpackage() -> None:
    doc = autoswitch.conformance.__doc__ or ""
    readme = (ROOT / "README.md").read_text()
    assert "logs" in _subpackages() and "cluster" in _subpackages()
    assert [s for s in _subpackages() if f"``{s}``" not in doc] == []
    assert [s for s in _subpackages() if f"`conformance/{s}/`" not in readme] == []
