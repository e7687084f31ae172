"""The README and docs/ stay true to the repository: the two commands CI runs, and links that lead
somewhere (every relative link and image of README.md and docs/*.md names a file that exists, and a
``#fragment`` names a heading of that file)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
_LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
_FENCE = re.compile(r"^```.*?^```", re.S | re.M)


def anchors(text: str) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation dropped, spaces as hyphens, repeats numbered."""
    out: set[str] = set()
    seen: dict[str, int] = {}
    for line in _FENCE.sub("", text).splitlines():
        m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not m:
            continue
        slug = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else f"{slug}-{n}")
    return out


def broken_links(page: Path) -> list[str]:
    bad = []
    for link in _LINK.findall(_FENCE.sub("", page.read_text(encoding="utf-8"))):
        if re.match(r"^[a-z]+:", link):  # http:, https:, mailto:
            continue
        path, _, fragment = link.partition("#")
        target = (page.parent / path).resolve() if path else page
        if not target.exists():
            bad.append(f"{link}: no such file")
        elif fragment and target.suffix == ".md" and fragment not in anchors(target.read_text(encoding="utf-8")):
            bad.append(f"{link}: no such heading")
    return bad


def test_the_readme_says_the_two_commands_and_ci_runs_the_test_one() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "./dev app" in readme and "./dev test" in readme
    ci = [ln for ln in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
          if ln.strip() and not ln.startswith("#")]
    assert ci[-1] == "exec ./dev test"


def test_the_readme_is_a_first_read() -> None:
    assert len((ROOT / "README.md").read_text(encoding="utf-8").splitlines()) <= 200


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_links_lead_somewhere(page: Path) -> None:
    assert broken_links(page) == []


def test_a_broken_link_or_heading_is_found(tmp_path: Path) -> None:
    (tmp_path / "other.md").write_text("# A title: with punctuation\n\n## Twice\n\n## Twice\n", encoding="utf-8")
    page = tmp_path / "page.md"
    page.write_text(
        "[ok](other.md#a-title-with-punctuation) [ok](other.md#twice-1) [ok](#here)\n"
        "[bad](missing.md) [bad](other.md#nowhere) ![bad](gone.png) [web](https://example.invalid/x)\n"
        "```\n[not a link](inside-a-fence.md)\n```\n# Here\n",
        encoding="utf-8",
    )
    assert broken_links(page) == ["missing.md: no such file", "other.md#nowhere: no such heading",
                                  "gone.png: no such file"]
