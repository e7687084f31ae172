"""An answer's HTML as Markdown (``answer_format = "markdown"``).

Chat sites render the model's Markdown to HTML; ``innerText`` loses the markup and ``innerHTML`` carries the
site's chrome (copy buttons, icons, framework attributes). This cleans the answer's HTML first (chrome, code
editor widgets and code block headers out, CSS-drawn bold/italic back to ``strong``/``em``), then converts it
with markdownify (ATX headings, ``-`` bullets, pipe tables, fenced code with its language).
Pure function of its input; no I/O.
"""

from __future__ import annotations

import re

from bs4 import BeautifulSoup, Comment, PageElement, Tag
from bs4.builder._htmlparser import HTMLParserTreeBuilder
from markdownify import MarkdownConverter

__all__ = ["BOLD_ATTR", "ITALIC_ATTR", "html_to_markdown"]

#: Marks, set by the page-side reader, of an element drawn bold (computed font-weight >= 600, its
#: parent's lighter) or italic by CSS rather than by ``strong``/``em``.
BOLD_ATTR = "data-md-bold"
ITALIC_ATTR = "data-md-italic"

#: Elements that are never part of an answer's text: controls, icons, code and hidden templates.
_DROP = (
    "button", "svg", "script", "style", "noscript", "template", "iframe", "canvas", "object", "embed",
    "input", "select", "textarea", "form", "dialog",
)  # fmt: skip
#: Attributes that carry meaning for the conversion; every other one (class, style, data-*, aria-*,
#: Vue's data-v-*, event handlers ...) goes.
_KEEP_ATTRS = frozenset({"href", "src", "alt", "title", "colspan", "rowspan", "start"})
#: Elements whose whitespace-only text is kept as it is (BeautifulSoup collapses it to one space
#: elsewhere): an editor line's leading indentation is such a text node (``<div class="cm-line">    <span>``).
#: Outside code, markdownify normalises whitespace itself.
_KEEP_SPACES = frozenset({"pre", "textarea", "code", "div", "span", "td"})
_LANG_ATTR = "data-md-lang"
_ALIGN_ATTR = "data-md-align"
_ALIGN_STYLE = re.compile(r"text-align\s*:\s*(left|right|center)", re.IGNORECASE)
#: Class names of line-number and gutter elements inside code (hljs-ln, Prism, Shiki themes, editors).
_LINE_NUMBER_CLASS = re.compile(
    r"(^|[\s_-])(line-?numbers?(-rows)?|linenos?|linenumber|line-?num|ln-?num|ln|hljs-ln-n(umbers)?|gutter|"
    r"gutters?|cm-gutters?|cm-lineNumbers|CodeMirror-gutter\S*|CodeMirror-linenumber)($|[\s_-])",
    re.IGNORECASE,
)
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


def _classes(el: Tag) -> str:
    value = el.get("class")
    return " ".join(value) if isinstance(value, list) else str(value or "")


def _is_line_number(el: Tag) -> bool:
    return bool(_LINE_NUMBER_CLASS.search(_classes(el))) or (el.has_attr("data-line-number") and not el.get_text())


def _line_text(line: Tag) -> str:
    """One editor line's text: its text nodes in order, line numbers left out, ``<br>`` as nothing (an
    empty CodeMirror line is ``<div class="cm-line"><br></div>``), no-break spaces as spaces."""
    parts: list[str] = []
    for node in line.descendants:
        if isinstance(node, Tag):
            continue
        if isinstance(node, Comment):
            continue
        parent = node.parent
        skip = False
        while isinstance(parent, Tag) and parent is not line:
            if _is_line_number(parent) or parent.name in ("button", "svg"):
                skip = True
                break
            parent = parent.parent
        if not skip:
            parts.append(str(node))
    return "".join(parts).replace("\u00a0", " ").replace("\u200b", "").rstrip("\n")


def _widget_language(el: Tag, *more: Tag | None) -> str:
    """The language named on the widget's content element or its ancestors (a few levels)."""
    for cand in (el, *more):
        node: Tag | None = cand
        for _ in range(6):
            if not isinstance(node, Tag):
                break
            lang = _language(node) or _mode_id(node)
            if lang:
                return lang
            node = node.parent
    return ""


def _mode_id(el: Tag) -> str:
    value = el.get("data-mode-id")  # Monaco
    return value.strip() if isinstance(value, str) and _LANG_NAME.match(value.strip()) else ""


def _top(el: Tag) -> float:
    m = re.search(r"top\s*:\s*(-?[\d.]+)px", str(el.get("style") or ""))
    return float(m.group(1)) if m else 0.0


def _code_widgets(soup: BeautifulSoup) -> list[tuple[Tag, list[str], str]]:
    """Editor widgets found: (the element to replace, the code's lines, its language)."""
    found: list[tuple[Tag, list[str], str]] = []
    seen: set[int] = set()

    def add(box: Tag, lines: list[str], lang: str) -> None:
        if id(box) not in seen:
            seen.add(id(box))
            found.append((box, lines, lang))

    for content in soup.select(".cm-content"):  # CodeMirror 6
        box = content.find_parent(class_="cm-editor") or content
        lines = [_line_text(ln) for ln in content.find_all(class_="cm-line", recursive=False)]
        add(box, lines, _widget_language(content, box))
    for code in soup.select(".CodeMirror-code"):  # CodeMirror 5
        box = code.find_parent(class_="CodeMirror") or code
        lines = [_line_text(ln) for ln in code.select("pre.CodeMirror-line")]
        add(box, lines, _widget_language(box))
    for view in soup.select(".view-lines"):  # Monaco: absolutely positioned lines, by their top
        box = view.find_parent(class_="monaco-editor") or view
        rows = sorted(view.find_all(class_="view-line", recursive=False), key=_top)
        add(box, [_line_text(ln) for ln in rows], _widget_language(box))
    for table in soup.select("table.hljs-ln"):  # highlight.js line numbers: one row per line
        parent = table.find_parent("pre")
        outer: Tag = parent if isinstance(parent, Tag) else table
        cells = [td for td in table.find_all("td") if "hljs-ln-code" in _classes(td)]
        code_el = table.find_parent("code")
        inner = code_el if isinstance(code_el, Tag) else table
        add(outer, [_line_text(td) for td in cells], _widget_language(inner, outer))
    return found


def _line_spans(pre: Tag) -> list[str] | None:
    """A ``pre`` whose code is one element per line (Shiki/Prism ``span.line``, ``[data-line]``), or
    None. Text between the line elements (the newlines) is ignored: each line element is one line."""
    code = pre.find("code")
    root = code if isinstance(code, Tag) else pre
    lines = [el for el in root.find_all(True, recursive=False)
             if "line" in _classes(el).split() or el.has_attr("data-line") or "code-line" in _classes(el)]
    if not lines:
        return None
    return [_line_text(el) for el in lines]


def _replace_code_widgets(soup: BeautifulSoup) -> None:
    for box, lines, lang in _code_widgets(soup):
        if box.decomposed:
            continue
        pre = soup.new_tag("pre")
        code = soup.new_tag("code")
        code.string = "\n".join(lines)
        pre.append(code)
        if lang:
            pre["data-language"] = lang
        box.replace_with(pre)
        if lang:
            _drop_language_label(pre, lang)
    for pre in soup.find_all("pre"):
        spans = _line_spans(pre)
        if spans is not None:
            first = pre.find("code")
            lang = _language(pre) or _widget_language(first if isinstance(first, Tag) else pre)
            fresh = soup.new_tag("code")
            fresh.string = "\n".join(spans)
            pre.clear()
            pre.append(fresh)
            if lang:
                pre["data-language"] = lang
        for el in pre.find_all(True):  # line numbers rendered as their own elements inside a pre
            if not el.decomposed and _is_line_number(el):
                el.decompose()


def _drop_language_label(pre: Tag, lang: str) -> None:
    """Open WebUI-style: the language label is a small element near the editor (a few levels up),
    not inside it; its text must not become a paragraph of its own."""
    node = pre.parent
    for _ in range(3):
        if not isinstance(node, Tag):
            return
        for el in node.find_all(("div", "span")):
            if pre in el.parents or el is pre:
                continue
            if el.get_text(strip=True).lower() == lang.lower() and not el.find(("pre", "code")):
                el.decompose()
                return
        node = node.parent


#: Words of a code block's header that are controls, not content (English and Chinese UIs).
_CONTROL_WORDS = re.compile(
    r"(?<!\w)(copy code|copy|copied!?|run code|run|edit|download|复制代码|复制|已复制|运行|编辑|下载)(?!\w)",
    re.IGNORECASE,
)
#: A language label in a code block's header: one short word with a letter (``python``, ``c++``, ``c#``).
_LANG_WORD = re.compile(r"^(?=[^A-Za-z]*[A-Za-z])[A-Za-z0-9_+#.\-]{1,20}$")
#: Elements a code block's header may be; anything else beside a ``pre`` (a paragraph ...) is content.
_HEADER_TAGS = frozenset({"div", "span", "header", "button", "small", "label", "figcaption"})
#: Content that a header never holds.
_NOT_IN_HEADER = ("p", "pre", "code", "table", "ul", "ol", "li", "blockquote", "img",
                  "h1", "h2", "h3", "h4", "h5", "h6")  # fmt: skip
_HEADER_MAX = 40


def _header_text(el: Tag) -> str:
    """An element's visible text, its text nodes joined by spaces (``<span>bash</span><span>Copy</span>``
    is "bash Copy"), icons' text left out."""
    parts: list[str] = []
    for node in el.descendants:
        if isinstance(node, (Tag, Comment)):
            continue
        if node.find_parent(("svg", "script", "style")) is not None:
            continue
        parts.append(str(node))
    return " ".join(" ".join(parts).split())


def _header_label(el: Tag) -> str | None:
    """None if ``el`` is not a code block's header; else the language it names, or "" (controls only).
    A header is a short div/span-like element whose text is at most one language word plus control words
    (Copy, Copy code, Run, Edit, Download, 复制 ...), possibly with icons; the label may also be in a
    ``data-language``/``language-x`` or (on a non-button) an ``aria-label``."""
    if el.name not in _HEADER_TAGS or el.find(_NOT_IN_HEADER) is not None:
        return None
    text = _header_text(el)
    if len(text) > _HEADER_MAX:
        return None
    words = _CONTROL_WORDS.sub(" ", text).split()
    if [w.lower() for w in words] == ["plain", "text"]:
        words = ["text"]
    if len(words) > 1 or (words and not _LANG_WORD.match(words[0])):
        return None
    for node in (el, *el.find_all(True)):
        for attr in ("data-language", "data-lang"):  # not classes: a header's "lang-icon" names no language
            value = node.get(attr)
            if isinstance(value, str) and _LANG_WORD.match(value.strip()):
                return value.strip().lower()
    if words:
        return words[0].lower()
    for node in (el, *el.find_all(True)):
        aria = node.get("aria-label")
        if node.name != "button" and isinstance(aria, str) and _LANG_WORD.match(aria.strip()) \
                and not _CONTROL_WORDS.fullmatch(aria.strip()):
            return aria.strip().lower()
    return ""


def _sibling_headers(holder: Tag) -> tuple[list[Tag], str] | None:
    """The siblings of ``holder`` (the element holding the code) when every one is a header: they and
    the language they name (no siblings: an empty list). None when a sibling is content, when there is
    loose text beside it, or when ``holder`` is at the top of the answer."""
    box = holder.parent
    if not isinstance(box, Tag) or isinstance(box, BeautifulSoup):
        return None
    headers: list[Tag] = []
    lang = ""
    for sib in box.children:
        if sib is holder or isinstance(sib, Comment):
            continue
        if not isinstance(sib, Tag):
            if str(sib).strip():
                return None
            continue
        label = _header_label(sib)
        if label is None:
            return None
        headers.append(sib)
        lang = lang or label
    return headers, lang


def _drop_code_headers(soup: BeautifulSoup) -> None:
    """A code block's header (language label, copy button) is not content. Inside a ``pre`` (ChatGPT:
    the header sits before the code's own wrapper) everything but the code goes later anyway; here its
    label is read. Outside, the header is a sibling of the ``pre`` (or of an element holding only it,
    up to 3 levels up) inside the block's wrapper: the wrapper's other children must all be headers,
    so a paragraph beside a code block is never taken for one. The label names the fence when the
    code names no language of its own."""
    for pre in soup.find_all("pre"):
        code = pre.find("code")
        own = _language(pre) or (_language(code) if isinstance(code, Tag) else "")
        lang = ""
        node: Tag | None = code if isinstance(code, Tag) else None
        while isinstance(node, Tag) and node is not pre and not lang:
            found = _sibling_headers(node)
            lang = found[1] if found else ""
            node = node.parent
        node = pre
        for _ in range(3):
            found = _sibling_headers(node)
            if found is None:
                break  # content beside the code: not a code block's wrapper
            if found[0]:
                for header in found[0]:
                    header.decompose()
                lang = lang or found[1]
                break
            parent = node.parent  # the code alone in its element: look one level up
            if not isinstance(parent, Tag):
                break
            node = parent
        if lang and not own:
            pre["data-language"] = lang


#: Elements whose content flows in a line; a CSS-emphasised element's runs of these are wrapped.
_INLINE = frozenset({
    "a", "abbr", "b", "bdi", "bdo", "br", "cite", "code", "data", "del", "dfn", "em", "i", "ins", "kbd",
    "mark", "q", "s", "samp", "small", "span", "strong", "sub", "sup", "time", "u", "var", "wbr", "font",
})  # fmt: skip


def _marked(el: Tag, attr: str) -> bool:
    value = el.get(attr)
    return value is not None and str(value).strip().lower() not in ("0", "false")


def _wrap_runs(soup: BeautifulSoup, el: Tag, names: list[str]) -> None:
    """Wrap each run of inline content of ``el`` in ``names`` (``strong``, ``em``: outermost first); a
    block child (a paragraph inside a bold ``div``) gets its own runs wrapped, code is left alone."""
    run: list[PageElement] = []

    def flush() -> None:
        while run and not isinstance(run[0], Tag) and not str(run[0]).strip():
            run.pop(0)
        while run and not isinstance(run[-1], Tag) and not str(run[-1]).strip():
            run.pop()
        if run and any(str(n).strip() if not isinstance(n, Tag) else n.get_text(strip=True) for n in run):
            outer = inner = soup.new_tag(names[0])
            for name in names[1:]:
                tag = soup.new_tag(name)
                inner.append(tag)
                inner = tag
            run[0].insert_before(outer)
            for n in run:
                inner.append(n.extract())
        run.clear()

    for child in list(el.children):
        if isinstance(child, Comment):
            continue
        if isinstance(child, Tag) and child.name not in _INLINE:
            flush()
            if child.name not in ("pre", "code"):
                _wrap_runs(soup, child, names)
        else:
            run.append(child)
    flush()


def _mark_css_emphasis(soup: BeautifulSoup) -> None:
    """Bold and italic drawn by CSS (a ``font-semibold`` span), marked by the page-side reader with
    ``data-md-bold``/``data-md-italic``, become ``strong``/``em``; never inside code, never doubled."""
    for el in soup.find_all(True):
        if el.decomposed or el.name in ("pre", "code") or el.find_parent(("pre", "code")) is not None:
            continue
        names: list[str] = []
        if _marked(el, BOLD_ATTR) and el.name not in ("b", "strong", "th", "h1", "h2", "h3", "h4", "h5", "h6") \
                and el.find_parent(("b", "strong", "th", "h1", "h2", "h3", "h4", "h5", "h6")) is None:
            names.append("strong")
        if _marked(el, ITALIC_ATTR) and el.name not in ("i", "em") and el.find_parent(("i", "em")) is None:
            names.append("em")
        if names:
            _wrap_runs(soup, el, names)


def _mark_alignment(soup: BeautifulSoup) -> None:
    for cell in soup.find_all(("th", "td")):
        align = cell.get("align")
        m = _ALIGN_STYLE.search(str(cell.get("style") or ""))
        value = (align if isinstance(align, str) else "") or (m.group(1) if m else "")
        if value.lower() in ("left", "right", "center"):
            cell[_ALIGN_ATTR] = value.lower()


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
    _replace_code_widgets(soup)  # before anything is dropped: gutters are aria-hidden, lines are divs
    _drop_code_headers(soup)  # before the buttons go: they tell a header from content
    _mark_alignment(soup)
    for el in soup.find_all(_DROP):
        el.decompose()
    for el in soup.find_all(True):
        # hidden, or a decorative copy (icons, visually duplicated text); already-removed ones skipped
        if not el.decomposed and (el.has_attr("hidden") or el.get("aria-hidden") == "true"):
            el.decompose()
    _clean_code_blocks(soup)
    _mark_css_emphasis(soup)  # before the data-* attributes go
    for el in soup.find_all(True):
        el.attrs = {k: v for k, v in el.attrs.items() if k in _KEEP_ATTRS or k in (_LANG_ATTR, _ALIGN_ATTR)}


def _code_language(el: Tag) -> str:
    value = el.get(_LANG_ATTR)
    return value if isinstance(value, str) else ""


_RULE = {"left": ":---", "right": "---:", "center": ":---:"}


class _Converter(MarkdownConverter):
    """markdownify, with a table's column alignment kept in its header rule."""

    def convert_tr(self, el: Tag, text: str, parent_tags: set[str]) -> str:
        out: str = super().convert_tr(el, text, parent_tags)  # type: ignore[misc]
        lines = out.split("\n")
        if len(lines) < 2 or not re.fullmatch(r"\|( --- \|)+", lines[-2]):
            return out
        aligns: list[str] = []
        for cell in el.find_all(("td", "th")):
            span = cell.get("colspan")
            n = max(1, min(1000, int(span))) if isinstance(span, str) and span.isdigit() else 1
            value = cell.get(_ALIGN_ATTR)
            aligns += [value if isinstance(value, str) else ""] * n
        if not any(aligns):
            nxt = el.find_next("tr")
            if isinstance(nxt, Tag):
                aligns = [str(c.get(_ALIGN_ATTR) or "") for c in nxt.find_all(("td", "th"))]
        if not any(aligns):
            return out
        cols = lines[-2].count("---")
        rule = [(_RULE.get(aligns[i], "---") if i < len(aligns) else "---") for i in range(cols)]
        lines[-2] = "| " + " | ".join(rule) + " |"
        return "\n".join(lines)


_CONVERTER = _Converter(
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
    soup = BeautifulSoup(html, builder=HTMLParserTreeBuilder(preserve_whitespace_tags=_KEEP_SPACES))
    _clean(soup)
    text: str = _CONVERTER.convert_soup(soup)
    text = re.sub(r"[ \t]+\n", "\n", text)  # trailing spaces (markdownify's hard breaks aside, none matter)
    return re.sub(r"\n{3,}", "\n\n", text).strip()
