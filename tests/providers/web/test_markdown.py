"""``answer_format = "markdown"``: the answer's HTML back to Markdown, on markup shaped like real chat
sites (ChatGPT, Open WebUI), and end to end on the chat simulator rendering Markdown in a real Chromium."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from mediadesk.config.workspace import Workspace, resources_dir
from mediadesk.providers.web.adapter import AdapterError, parse_adapter
from mediadesk.providers.web.login import login_with_form
from mediadesk.providers.web.markdown import BOLD_ATTR, ITALIC_ATTR, html_to_markdown
from mediadesk.scheduler import Scheduler
from mediadesk.sim.web_server import WebSimConfig, WebSimServer, markdown_answer
from tests.support import make_config, tasks_of

# Shaped after ChatGPT's answer markup (2025): data-start/end attributes everywhere, a code block whose
# <pre> holds a header with the language and Copy/Edit buttons with SVG icons, React's <!-- --> comments.
CHATGPT = """
<div class="markdown prose w-full break-words dark:prose-invert light">
<p data-start="0" data-end="42">Here is <strong data-start="8"
data-end="14">bold</strong> and <em>italic</em><!-- --> text with <code>inline_code</code>.</p>
<h3 data-start="44" data-end="55">Steps</h3>
<ol data-start="57" data-end="120"><li data-start="57"><p data-start="60">First step</p></li>
<li><p>Read the <a href="https://example.com/docs" target="_blank" rel="noopener"
class="cursor-pointer">docs</a></p></li></ol>
<pre class="overflow-visible!" data-start="122"><div class="contain-inline-size rounded-2xl relative">
<div class="flex items-center text-token-text-secondary px-4 py-2 text-xs font-sans justify-between h-9">bash</div>
<div class="sticky top-9"><div class="absolute end-0 bottom-0 flex h-9 items-center pe-2"><div class="flex gap-4">
<button class="flex gap-1 items-center select-none py-1" aria-label="Copy"><svg width="24" height="24"
viewBox="0 0 24 24" fill="none" xmlns="http://www.w3.org/2000/svg" class="icon-xs"><path fill-rule="evenodd"
d="M7 5C7 3.34315 8.34315 2 10 2H19"></path></svg>Copy</button><span data-state="closed"><button
class="flex items-center gap-1 py-1 select-none"><svg width="24" height="24"><path d="M2 2"></path></svg>Edit</button>
</span></div></div></div><div class="overflow-y-auto p-4" dir="ltr"><code
class="whitespace-pre! language-bash"><span><span>pip install markdownify
</span></span><span>echo "a*b_c"</span></code></div></div></pre>
<table data-start="190"><thead><tr><th>Key</th><th>Value</th></tr></thead>
<tbody><tr><td>retries</td><td><strong>2</strong></td></tr><tr><td>mode</td><td>fast</td></tr></tbody></table>
<script>window.__oai_logHTML&&window.__oai_logHTML()</script><style>.x{color:red}</style>
</div>
"""

CHATGPT_MD = """Here is **bold** and *italic* text with `inline_code`.

### Steps

1. First step
2. Read the [docs](https://example.com/docs)

```bash
pip install markdownify
echo "a*b_c"
```

| Key | Value |
| --- | --- |
| retries | **2** |
| mode | fast |"""

# Shaped after Open WebUI (Svelte 5): hydration comments <!--[--> <!--]--> <!---->, svelte-xxx classes,
# dir="auto" paragraphs, and a code block whose language label and copy button sit BESIDE the <pre>.
OPEN_WEBUI = """
<!--[--><div class="markdown-prose svelte-1ll7xq7"><!--[--><h2 dir="auto" class="svelte-1ll7xq7">Result</h2><!---->
<p dir="auto">Use <em>both</em> options:</p><!---->
<ul dir="auto"><!--[--><li class="text-start" dir="auto"><!--[-->fast mode<!--]--></li><li dir="auto">a <code
class="codespan cursor-pointer">--flag</code> for safety</li><!--]--></ul><!---->
<div class="relative my-2 flex flex-col rounded-lg" dir="ltr"><div class="text-text-300 absolute pl-4 py-1.5
text-xs font-medium">python</div><div class="sticky top-8 mb-1 py-1 pr-2.5 flex items-center justify-end z-10">
<div class="flex items-center gap-0.5"><button class="flex gap-1 items-center run-code-button">Run</button>
<button class="copy-code-button bg-none border-none">Copy</button></div></div>
<pre class="hljs p-4 px-5 overflow-x-auto"><code class="language-python rounded-t-none whitespace-pre text-sm"><span
class="hljs-keyword">for</span> i <span class="hljs-keyword">in</span> <span class="hljs-built_in">range</span>(<span
class="hljs-number">3</span>):
    <span class="hljs-built_in">print</span>(i)</code></pre><!----></div><!---->
<p dir="auto">Done.</p><!--]--></div><!--]-->
"""

OPEN_WEBUI_MD = """## Result

Use *both* options:

- fast mode
- a `--flag` for safety

```python
for i in range(3):
    print(i)
```

Done."""


def test_chatgpt_shaped_answer_keeps_markup_and_drops_chrome() -> None:
    out = html_to_markdown(CHATGPT)
    assert out == CHATGPT_MD
    for chrome in ("Copy", "Edit", "svg", "<!--", "data-start", "__oai", "color:red"):
        assert chrome not in out


def test_open_webui_shaped_answer_keeps_markup_and_drops_chrome() -> None:
    out = html_to_markdown(OPEN_WEBUI)
    assert out == OPEN_WEBUI_MD
    for chrome in ("Run", "Copy", "svelte", "<!--"):
        assert chrome not in out


def test_plain_text_and_special_characters() -> None:
    assert html_to_markdown("just text") == "just text"
    assert html_to_markdown("") == ""
    # Markdown characters typed by the model as text stay text (escaped), inside code they stay as they are
    assert html_to_markdown("<p>2*3 = 6 and a_b</p>") == r"2\*3 = 6 and a\_b"
    assert html_to_markdown("<p>中文 <strong>粗体</strong> 🚀</p>") == "中文 **粗体** 🚀"
    assert html_to_markdown("<pre><code>x = 1</code></pre>") == "```\nx = 1\n```"
    assert html_to_markdown('<pre data-language="rust"><code>fn main() {}</code></pre>') == "```rust\nfn main() {}\n```"


def test_adapter_accepts_markdown_and_rejects_other_formats() -> None:
    base = {"url": "http://127.0.0.1:1/chat", "logged_in": ".a", "prompt": "textarea", "answer": ".x",
            "busy": ".b", "send": "button"}
    assert parse_adapter({**base, "answer_format": "markdown"}, "t.toml").answer_format == "markdown"
    with pytest.raises(AdapterError, match="answer_format"):
        parse_adapter({**base, "answer_format": "md"}, "t.toml")


@pytest.mark.browser
@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.usefixtures("playwright_hub")  # its login and its lane share one Playwright driver
async def test_markdown_answer_from_a_site_that_renders_markdown(workspace: Workspace, tmp_path: Path) -> None:
    """The simulator renders its answer from Markdown (bold, list, a fenced code block with a copy
    button and an SVG icon, framework comments); the stored result is the Markdown it was made from."""
    sites = tmp_path / "sites"
    sites.mkdir()
    simchat = (resources_dir() / "sites" / "simchat.toml").read_text(encoding="utf-8")
    (sites / "simchat-md.toml").write_text(simchat + '\nanswer_format = "markdown"\n', encoding="utf-8")
    async with WebSimServer(WebSimConfig(time_scale=0.005, answer_style="markdown")) as sim:
        cfg = make_config(
            [{"name": "chat", "kind": "web", "site": "simchat-md", "url": sim.chat_url}],
            [{"name": "acct-md", "profile": "chat"}],
            browser={"sites_dir": str(sites)},
        )
        await login_with_form(cfg, workspace, "acct-md", sim.login_url,
                              fields={"#account": "acct-md", "#password": "pw"},
                              submit="button.login", logged_in=".avatar")
        prompts = {"m1": "explain doubling", "m2": "第二个问题 🚀"}
        async with Scheduler(cfg, workspace) as s:
            s.intake.submit([s.intake.new_task(t, "chat", p) for t, p in prompts.items()])
            await asyncio.wait_for(s.wait_idle(), 120)
        sent = {g["prompt"]: g["answer"] for g in sim.stats()["generations"]}
    tasks = tasks_of(workspace)
    for tid, prompt in prompts.items():
        assert tasks[tid].state == "success", (tasks[tid].state, tasks[tid].error_message)
        typed = next(p for p in sent if p.endswith(prompt))
        assert sent[typed] == markdown_answer(typed)  # the site streamed exactly this Markdown
        assert tasks[tid].result == markdown_answer(typed)
        assert "Copy code" not in (tasks[tid].result or "")


# --- code editor widgets and line-numbered code (issue: code stored as paragraphs, indentation lost) ---

CODE = "def first(items):\n    if not items:\n        return None\n\n    return items[0]  # 完毕"

# Open WebUI 0.12: a CodeMirror 6 editor, the language as a label beside it, Copy/Run buttons, a gutter.
OPEN_WEBUI_CM6 = """
<p>Here:</p>
<div class="relative flex flex-col rounded-lg my-2" dir="ltr">
  <div class="text-text-300 absolute pl-4 py-1.5 text-xs font-medium">python</div>
  <div class="sticky top-8 flex items-center"><button class="copy-code-button">Copy</button>
    <button class="run-code-button">Run</button></div>
  <div class="language-python rounded-t-lg"><div class="cm-editor ͼ1 ͼ2 ͼ4"><div class="cm-announced"
  aria-live="polite"></div><div tabindex="-1" class="cm-scroller"><div class="cm-gutters" aria-hidden="true">
  <div class="cm-gutter cm-lineNumbers"><div class="cm-gutterElement">1</div><div class="cm-gutterElement">2</div>
  </div></div><div spellcheck="false" autocorrect="off" translate="no" contenteditable="false"
  class="cm-content" role="textbox" aria-multiline="true" data-language="python"><div class="cm-line"><span
  class="ͼb">def</span> <span class="ͼg">first</span>(items):</div><div class="cm-line">    <span
  class="ͼb">if</span> <span class="ͼb">not</span> items:</div><div class="cm-line">        <span
  class="ͼb">return</span> <span class="ͼd">None</span></div><div class="cm-line"><br></div><div
  class="cm-line">    <span class="ͼb">return</span> items[<span class="ͼd">0</span>]  <span
  class="ͼm"># 完毕</span></div></div><div class="cm-layer cm-cursorLayer" aria-hidden="true"></div></div></div></div>
</div>
<p>Done.</p>
"""

# Monaco: a margin with line numbers, absolutely positioned lines (not in order), no-break spaces.
MONACO = """
<div class="monaco-editor no-user-select vs" data-mode-id="python" role="code"><div class="overflow-guard">
<div class="margin" role="presentation"><div class="margin-view-overlays"><div class="line-numbers">1</div>
<div class="line-numbers">2</div></div></div><div class="monaco-scrollable-element editor-scrollable vs">
<div class="lines-content monaco-editor-background"><div class="view-lines monaco-mouse-cursor-text">
<div style="top:19px;height:19px;" class="view-line"><span><span class="mtk1">&nbsp;&nbsp;&nbsp;&nbsp;</span><span
class="mtk6">if</span><span class="mtk1">&nbsp;</span><span class="mtk6">not</span><span
class="mtk1">&nbsp;items:</span></span></div>
<div style="top:0px;height:19px;" class="view-line"><span><span class="mtk6">def</span><span
class="mtk1">&nbsp;first(items):</span></span></div>
<div style="top:38px;height:19px;" class="view-line"><span><span
class="mtk1">&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;</span><span
class="mtk6">return</span><span class="mtk1">&nbsp;None</span></span></div>
<div style="top:57px;height:19px;" class="view-line"><span><span></span></span></div>
<div style="top:76px;height:19px;" class="view-line"><span><span
class="mtk1">&nbsp;&nbsp;&nbsp;&nbsp;return&nbsp;items[0]&nbsp;&nbsp;#&nbsp;完毕</span></span></div>
</div></div></div></div></div>
"""

# highlight.js with the line-numbers plugin: a table, numbers in their own cells.
HLJS_LN = """
<pre><code class="hljs language-python"><table class="hljs-ln"><tbody>
<tr><td class="hljs-ln-line hljs-ln-numbers" data-line-number="1"><div class="hljs-ln-n"
data-line-number="1"></div></td>
<td class="hljs-ln-line hljs-ln-code" data-line-number="1"><span class="hljs-keyword">def</span> first(items):</td></tr>
<tr><td class="hljs-ln-line hljs-ln-numbers"><div class="hljs-ln-n" data-line-number="2"></div></td>
<td class="hljs-ln-line hljs-ln-code">    <span class="hljs-keyword">if</span> not items:</td></tr>
<tr><td class="hljs-ln-line hljs-ln-numbers"><div class="hljs-ln-n" data-line-number="3"></div></td>
<td class="hljs-ln-line hljs-ln-code">        <span class="hljs-keyword">return</span> None</td></tr>
<tr><td class="hljs-ln-line hljs-ln-numbers"><div class="hljs-ln-n" data-line-number="4"></div></td>
<td class="hljs-ln-line hljs-ln-code"></td></tr>
<tr><td class="hljs-ln-line hljs-ln-numbers"><div class="hljs-ln-n" data-line-number="5"></div></td>
<td class="hljs-ln-line hljs-ln-code">    <span class="hljs-keyword">return</span> items[0]  # 完毕</td></tr>
</tbody></table></code></pre>
"""

# Shiki: one span.line per line, the number as visible text in its own span.
SHIKI_NUMBERED = (
    '<pre class="shiki github-dark" tabindex="0"><code data-language="python">'
    '<span class="line"><span class="line-number">1</span><span style="color:#F97583">def</span> first(items):</span>\n'
    '<span class="line"><span class="line-number">2</span>    <span style="color:#F97583">if</span> not items:</span>\n'
    '<span class="line"><span class="line-number">3</span>        return None</span>\n'
    '<span class="line"><span class="line-number">4</span></span>\n'
    '<span class="line"><span class="line-number">5</span>    return items[0]  # 完毕</span></code></pre>'
)

# Prism's line-numbers plugin: plain code plus an aria-hidden row of empty spans.
PRISM = (
    '<pre class="line-numbers language-python"><code class="language-python">'
    '<span class="token keyword">def</span> first(items):\n    <span class="token keyword">if</span> not items:\n'
    '        return None\n\n    return items[0]  # 完毕'
    '<span aria-hidden="true" class="line-numbers-rows"><span></span><span></span><span></span><span></span>'
    '<span></span></span></code></pre>'
)


@pytest.mark.parametrize("html", [OPEN_WEBUI_CM6, MONACO, HLJS_LN, SHIKI_NUMBERED, PRISM],
                         ids=["codemirror6", "monaco", "hljs-line-numbers", "shiki-numbered", "prism-line-numbers"])
def test_code_from_editor_widgets_is_one_fenced_block_with_exact_whitespace(html: str) -> None:
    md = html_to_markdown(html)
    assert f"```python\n{CODE}\n```" in md, md
    assert "Copy" not in md and "Run" not in md and "\n1\n" not in md


def test_open_webui_code_block_keeps_its_neighbours_and_drops_the_label() -> None:
    md = html_to_markdown(OPEN_WEBUI_CM6)
    assert md == f"Here:\n\n```python\n{CODE}\n```\n\nDone."


def test_table_column_alignment_is_kept() -> None:
    html = """<table><thead><tr><th>Name</th><th style="text-align: right">Count</th>
    <th align="center">State</th></tr></thead><tbody><tr><td>a</td><td style="text-align: right">12</td>
    <td align="center">ok</td></tr></tbody></table>"""
    assert html_to_markdown(html) == "| Name | Count | State |\n| --- | ---: | :---: |\n| a | 12 | ok |"
    left = "<table><tr><th align='left'>L</th></tr><tr><td align='left'>x</td></tr></table>"
    assert html_to_markdown(left) == "| L |\n| :--- |\n| x |"


# --- a code block's header (language label, copy button) beside the <pre> is not content ---

FENCED = "```python\ndef f():\n    return 1\n```"
PY = "<pre><code>def f():\n    return 1</code></pre>"

CODE_HEADERS = {
    # the header is the previous sibling of the pre in the block's wrapper, no language-* class anywhere
    "header-before-pre": f'<div class="code-block"><div class="code-header"><span class="code-lang">python</span>'
                         f'<button class="copy">Copy</button></div>{PY}</div>',
    # the header comes after the pre
    "header-after-pre": f'<div class="code-block">{PY}<div class="code-footer"><span>Python</span>'
                        f'<button><svg viewBox="0 0 1 1"><path d="M0 0"></path></svg>Download</button></div></div>',
    # ChatGPT-like: the header inside the pre, before a wrapped code element without a language class
    "header-inside-pre": '<pre><div class="flex items-center"><span>python</span><button><svg><path d="M1 1"></path>'
                         '</svg>Copy code</button></div><div class="overflow-y-auto"><code class="hljs">def f():\n'
                         '    return 1</code></div></pre>',
    # the label only in an attribute of the header
    "data-language": f'<div class="code-block"><div class="code-header" data-language="python"><button '
                     f'aria-label="Copy">Copy</button></div>{PY}</div>',
    "aria-label": f'<div class="code-block"><div class="code-header"><span class="lang-icon" aria-label="python">'
                  f'</span><button aria-label="Copy">复制代码</button></div>{PY}</div>',
    # a sticky header of two spans ("Copy" is a span, not a button); the pre one level further down
    "sticky-spans": '<div class="relative rounded"><div class="sticky top-0 flex justify-between"><span>python</span>'
                    f'<span class="cursor-pointer">Copy</span></div><div class="overflow-x-auto">{PY}</div></div>',
    # Chinese controls and two headers (label, then a toolbar) before the pre
    "label-and-toolbar": f'<div class="md-code"><div class="lang">python</div><div class="tools"><span>复制</span>'
                         f'<span>运行</span></div>{PY}</div>',
}


@pytest.mark.parametrize("html", list(CODE_HEADERS.values()), ids=list(CODE_HEADERS))
def test_code_header_is_dropped_and_its_label_names_the_fence(html: str) -> None:
    md = html_to_markdown(f"<p>Here:</p>{html}<p>Done.</p>")
    assert md == f"Here:\n\n{FENCED}\n\nDone.", md


def test_code_header_label_does_not_override_the_code_language() -> None:
    html = ('<div class="code-block"><div class="code-header"><span>text</span><button>Copy</button></div>'
            '<pre><code class="language-rust">fn main() {}</code></pre></div>')
    assert html_to_markdown(html) == "```rust\nfn main() {}\n```"
    controls_only = f'<div class="code-block"><div class="bar"><span>Copy code</span></div>{PY}</div>'
    assert html_to_markdown(controls_only) == "```\ndef f():\n    return 1\n```"


NOT_HEADERS = {
    # a paragraph naming the language right before a code block, not inside a wrapper with it
    "paragraph-before-pre": (f"<p>python</p>{PY}", f"python\n\n{FENCED.replace('python', '', 1)}"),
    "paragraph-before-wrapper": (f'<div class="answer"><p>python</p><div class="code-block">{PY}</div></div>',
                                 f"python\n\n{FENCED.replace('python', '', 1)}"),
    # a wrapper that also holds prose is not a code block's wrapper
    "wrapper-with-prose": (f'<div><div>python</div><p>Some prose.</p>{PY}</div>',
                           f"python\n\nSome prose.\n\n{FENCED.replace('python', '', 1)}"),
    # more than a label and controls
    "sentence-in-wrapper": (f'<div class="code-block"><div>Run this in python</div>{PY}</div>',
                            f"Run this in python\n\n{FENCED.replace('python', '', 1)}"),
    "two-labels": (f'<div class="code-block"><div>python bash</div>{PY}</div>',
                   f"python bash\n\n{FENCED.replace('python', '', 1)}"),
    # a one-word paragraph in ordinary prose
    "one-word-prose": ("<p>Intro.</p><p>Python</p><p>Copy</p><p>End.</p>", "Intro.\n\nPython\n\nCopy\n\nEnd."),
}


@pytest.mark.parametrize(("html", "expected"), list(NOT_HEADERS.values()), ids=list(NOT_HEADERS))
def test_text_that_is_not_a_code_header_stays_content(html: str, expected: str) -> None:
    assert html_to_markdown(html) == expected


# --- bold and italic drawn by CSS, marked by the page-side reader with data-md-bold / data-md-italic ---


def test_css_bold_and_italic_become_emphasis() -> None:
    assert (BOLD_ATTR, ITALIC_ATTR) == ("data-md-bold", "data-md-italic")
    html = (f'<p>A <span class="font-semibold" {BOLD_ATTR}="1">bold</span> word, an <span {ITALIC_ATTR}="1">'
            f'italic</span> one and <span {BOLD_ATTR}="1" {ITALIC_ATTR}="1">both</span>.</p>')
    assert html_to_markdown(html) == "A **bold** word, an *italic* one and ***both***."
    # whitespace at the edges stays outside the markers; nested marks; a block with paragraphs inside
    assert html_to_markdown(f'<p>x<span {BOLD_ATTR}="1"> y </span>z</p>') == "x **y** z"
    assert html_to_markdown(f'<p><span {BOLD_ATTR}="1">a <span {ITALIC_ATTR}="1">b</span></span></p>') == "**a *b***"
    block = f'<div {BOLD_ATTR}="1"><p>one</p><p>two <a href="https://e.x">link</a></p></div>'
    assert html_to_markdown(block) == "**one**\n\n**two [link](https://e.x)**"
    already = f'<p><strong {ITALIC_ATTR}="1">s</strong> <em {BOLD_ATTR}="1">e</em></p>'
    assert html_to_markdown(already) == "***s*** ***e***"
    # an element inside an already bold one is not bolded twice
    assert html_to_markdown(f'<p><strong>a <span {BOLD_ATTR}="1">b</span></strong></p>') == "**a b**"


def test_css_emphasis_never_marks_code() -> None:
    html = (f'<pre><code>x = <span {BOLD_ATTR}="1">1</span> * <span {ITALIC_ATTR}="1">y</span></code></pre>'
            f'<p>use <code><span {BOLD_ATTR}="1">f</span>()</code> now</p>')
    assert html_to_markdown(html) == "```\nx = 1 * y\n```\n\nuse `f()` now"
    assert html_to_markdown(f'<p><span {BOLD_ATTR}="1">   </span>x</p>') == "x"
