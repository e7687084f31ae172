"""An answer's HTML as Markdown (``answer_format = "markdown"``).

Chat sites render the model's Markdown to HTML; ``innerText`` loses the markup (bold, lists, code
fences) and ``innerHTML`` carries the site's chrome with it (copy buttons, SVG icons, framework
comments and attributes). This turns the answer element's HTML back into Markdown:

1. **Clean** (BeautifulSoup): drop comments, ``button``, ``svg``, ``script``/``style`` and other
   non-content elements, and every attribute but the few that carry meaning (``href``, ``src``,
   ``alt``, ``title``, table spans, a list's ``start``). A code block (``pre``) keeps only its
   ``code`` element: sites put a header with the language name and a copy button inside ``pre``, and
   that text must not end up in the code. The language is read first, from ``language-xxx`` /
   ``lang-xxx`` classes or a ``data-language`` attribute on the ``pre``/``code``.
2. **Convert** with `markdownify <https://pypi.org/project/markdownify/>`_ (MIT, maintained, typed):
   ATX headings, ``-`` bullets, ``**``/``*`` emphasis, pipe tables, fenced code with its language.

Pure function of its input; no I/O.
"""

from __future__ import annotations

import re

from bs4 import BeautifulSoup, Comment, Tag
from markdownify import MarkdownConverter

__all__ = ["html_to_markdown"]

#: Elements that are never part of an answer's text: controls, icons, code and hidden templates.
_DROP = (
    "button", "svg", "script", "style", "noscript", "template", "iframe", "canvas", "object", "embed",
    "input", "select", "textarea", "form", "dialog",
)  # fmt: skip
#: Attributes that carry meaning for the conversion; every other one (class, style, data-*, aria-*,
#: Vue's data-v-*, event handlers ...) goes.
_KEEP_ATTRS = frozenset({"href", "src", "alt", "title", "colspan", "rowspan", "start"})
_LANG_ATTR = "data-md-lang"
_LANG_CLASS = re.compile(r"^(?:language|lang)-([A-Za-z0-9_+#.\-]+)$")
_LANG_NAME = re.compile(r"^[A-Za-z0-9_+#.\-]{1,40}$")


def _language(el: Tag) -> str:
    """The code language named on a ``pre`` or ``code`` element (class ``language-x``/``lang-x``, or
    ``data-language``/``data-lang``), or ""."""
    for attr in ("data-language", "data-lang"):
        value = el.get(attr)
        if isinstance(value, str) and _LANG_NAME.match(value.strip()):
            return value.strip()
    classes = el.get("class")
    for cls in classes if isinstance(classes, list) else str(classes or "").split():
        m = _LANG_CLASS.match(cls)
        if m:
            return m.group(1)
    return ""


def _clean_code_blocks(soup: BeautifulSoup) -> None:
    for pre in soup.find_all("pre"):
        code = pre.find("code")
        lang = _language(pre) or (_language(code) if isinstance(code, Tag) else "")
        if isinstance(code, Tag):
            # Only the code stays: headers (language label, copy button) inside the pre go.
            code.extract()
            pre.clear()
            pre.append(code)
        if lang and lang.lower() not in ("text", "plaintext", "plain"):
            pre[_LANG_ATTR] = lang
        if lang and isinstance(pre.parent, Tag):
            # Open WebUI-style: the language label is a sibling div/span of the pre, not inside it.
            for sib in list(pre.parent.children):
                if (isinstance(sib, Tag) and sib is not pre and sib.name in ("div", "span")
                        and sib.get_text(strip=True).lower() == lang.lower()):
                    sib.decompose()


def _clean(soup: BeautifulSoup) -> None:
    for comment in soup.find_all(string=lambda s: isinstance(s, Comment)):
        comment.extract()
    for el in soup.find_all(_DROP):
        el.decompose()
    for el in soup.find_all(True):
        # hidden, or a decorative copy (icons, visually duplicated text); already-removed ones skipped
        if not el.decomposed and (el.has_attr("hidden") or el.get("aria-hidden") == "true"):
            el.decompose()
    _clean_code_blocks(soup)
    for el in soup.find_all(True):
        el.attrs = {k: v for k, v in el.attrs.items() if k in _KEEP_ATTRS or k == _LANG_ATTR}


def _code_language(el: Tag) -> str:
    value = el.get(_LANG_ATTR)
    return value if isinstance(value, str) else ""


_CONVERTER = MarkdownConverter(
    heading_style="ATX",
    bullets="-",
    strong_em_symbol="*",
    code_language_callback=_code_language,
    escape_misc=False,
    table_infer_header=True,
)


def html_to_markdown(html: str) -> str:
    """Markdown of an answer element's inner HTML (see the module docstring); stripped, with runs of
    blank lines collapsed to one."""
    soup = BeautifulSoup(html, "html.parser")
    _clean(soup)
    text: str = _CONVERTER.convert_soup(soup)
    text = re.sub(r"[ \t]+\n", "\n", text)  # trailing spaces (markdownify's hard breaks aside, none matter)
    return re.sub(r"\n{3,}", "\n\n", text).strip()
