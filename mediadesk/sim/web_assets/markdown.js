// SimChat's Markdown renderer for `answer_style = "markdown"`: turns the streamed Markdown source into
// the kind of HTML real chat sites show (shaped after ChatGPT / Open WebUI): paragraphs, bold, italics,
// inline code, lists, and fenced code blocks with a header (language, a copy button with an SVG icon),
// plus the comment markers frameworks leave in the DOM (<!--[-->, <!---->). It renders half-written
// Markdown too (an unclosed fence is a code block to the end), since it runs again on every token.
// Personas (<body data-personas>): "code_header" (a code block as a header with the language and a
// Copy button over a bare <pre><code>), "css_bold" (bold and italics as styled spans, Tailwind-like),
// a site persona ("deepseek", "claude"..., sites.js: DeepSeek's markup: headings, nested and ordered
// lists, a code block as a banner with the language and buttons over a bare <pre>).
"use strict";
window.simchatMarkdown = (() => {
  const persona = (name) => (document.body.dataset.personas || "").split(/[\s,]+/).includes(name);
  const site = () => !!(window.simchatSites && window.simchatSites.name);
  const esc = (s) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
  const COPY_ICON = '<svg width="24" height="24" viewBox="0 0 24 24" fill="none" class="icon-sm" aria-hidden="true">' +
    '<path d="M7 5a3 3 0 0 1 3-3h9a3 3 0 0 1 3 3v9a3 3 0 0 1-3 3h-2v2a3 3 0 0 1-3 3H5a3 3 0 0 1-3-3v-9a3 3 0 0 1 3-3h2V5Z"' +
    ' fill="currentColor"></path></svg>';

  function inline(text) {
    let out = "";
    const parts = text.split(/(`[^`]*`)/);
    for (const part of parts) {
      if (part.length > 1 && part.startsWith("`") && part.endsWith("`")) {
        out += "<code>" + esc(part.slice(1, -1)) + "</code>";
        continue;
      }
      const css = persona("css_bold");
      out += esc(part)
        .replace(/\*\*([^*]+)\*\*/g, css ? '<span class="font-semibold">$1</span>' : '<strong data-start="0">$1</strong>')
        .replace(/\*([^*\s][^*]*)\*/g, css ? '<span class="italic">$1</span>' : "<em>$1</em>");
    }
    return out;
  }

  const KEYWORDS = /\b(def|if|not|return|None|for|in|while|class|import)\b/g;
  const highlight = (line) => esc(line).replace(KEYWORDS, '<span class="tok-kw">$1</span>');

  // Open WebUI-shaped CodeMirror 6 editor: a language label and buttons beside it, a gutter, lines.
  function codeMirror(label, lines) {
    const gutter = lines.map((_, i) => '<div class="cm-gutterElement">' + (i + 1) + "</div>").join("");
    const body = lines.map((l) => '<div class="cm-line">' + (l ? highlight(l) : "<br>") + "</div>").join("");
    return '<div class="relative my-2 flex flex-col rounded-lg" dir="ltr">' +
      '<div class="text-xs font-medium lang-label">' + esc(label) + "</div>" +
      '<div class="sticky flex"><button class="copy-code-button">Copy</button>' +
      '<button class="run-code-button">Run</button></div>' +
      '<div class="language-' + esc(label) + '"><div class="cm-editor"><div class="cm-scroller">' +
      '<div class="cm-gutters" aria-hidden="true"><div class="cm-gutter cm-lineNumbers">' + gutter + "</div></div>" +
      '<div class="cm-content" contenteditable="false" role="textbox" data-language="' + esc(label) + '">' +
      body + "</div></div></div></div></div>";
  }

  // Shiki-shaped: one span.line per line with its number as text.
  function numberedLines(label, lines) {
    const body = lines.map((l, i) => '<span class="line"><span class="line-number">' + (i + 1) + "</span>" +
      highlight(l) + "</span>").join("\n");
    return '<div class="code-block"><div class="code-header"><span>' + esc(label) + "</span>" +
      '<button class="copy-code">Copy</button></div><pre class="shiki github-light" tabindex="0">' +
      '<code data-language="' + esc(label) + '">' + body + "</code></pre></div>";
  }

  function table(rows) {
    const cells = (row) => row.replace(/^\s*\|/, "").replace(/\|\s*$/, "").split("|").map((c) => c.trim());
    const rule = cells(rows[1] || "");
    const aligns = rule.map((r) => r.startsWith(":") && r.endsWith(":") ? "center"
                                   : r.endsWith(":") ? "right" : r.startsWith(":") ? "left" : "");
    const cell = (tag, text, i) => "<" + tag + (aligns[i] ? ' style="text-align: ' + aligns[i] + '"' : "") + ">" +
      inline(text) + "</" + tag + ">";
    const head = "<thead><tr>" + cells(rows[0]).map((c, i) => cell("th", c, i)).join("") + "</tr></thead>";
    const body = rows.slice(2).map((r) => "<tr>" + cells(r).map((c, i) => cell("td", c, i)).join("") + "</tr>");
    return "<table>" + head + "<tbody>" + body.join("") + "</tbody></table>";
  }

  // deepseek: a list with nested lists, from its items ({indent, ordered, text}) starting at `at`.
  function nestedList(items, at) {
    const indent = items[at].indent;
    const tag = items[at].ordered ? "ol" : "ul";
    let html = "<" + tag + ">";
    let i = at;
    while (i < items.length && items[i].indent >= indent) {
      const item = items[i];
      i += 1;
      html += "<li>" + inline(item.text);
      if (i < items.length && items[i].indent > item.indent) {
        const [sub, next] = nestedList(items, i);
        html += sub;
        i = next;
      }
      html += "</li>";
    }
    return [html + "</" + tag + ">", i];
  }

  function codeBlock(lang, lines) {
    const label = lang || "text";
    if (site()) {
      return '<div class="md-code-block"><div class="md-code-block-banner-wrap"><div class="md-code-block-banner">' +
        '<span class="d813de27">' + esc(label) + '</span><div class="efa13877">' +
        '<button role="button" class="ds-button">Copy</button><button role="button" class="ds-button">Download</button>' +
        "</div></div></div><pre>" +
        esc(lines.join("\n")) + "</pre></div>";
    }
    const widget = document.body.dataset.codeWidget;
    if (widget === "codemirror") return codeMirror(label, lines);
    if (widget === "lines") return numberedLines(label, lines);
    if (persona("code_header")) {
      return '<div class="code-block"><div class="code-header"><span class="code-lang">' + esc(label) + "</span>" +
        '<button type="button" class="copy">Copy</button></div><pre><code>' + esc(lines.join("\n")) +
        "</code></pre></div>";
    }
    return '<pre class="overflow-visible!" data-v-4f1b2c><div class="contain-inline-size rounded-md">' +
      '<div class="flex items-center text-token-text-secondary px-4 py-2 text-xs">' + esc(label) +
      '<div class="flex gap-1 items-center"><button class="copy-code flex gap-1 items-center" aria-label="Copy">' +
      COPY_ICON + "Copy code</button></div></div>" +
      '<div class="overflow-y-auto p-4" dir="ltr"><code class="whitespace-pre! hljs language-' + esc(label) + '">' +
      esc(lines.join("\n")) + "</code></div></div></pre><!---->";
  }

  function render(source) {
    const lines = source.split("\n");
    const html = ["<!--[-->"];
    let para = [];
    let list = null;
    const flushPara = () => {
      if (para.length) html.push('<p data-start="0">' + inline(para.join(" ")) + "</p>");
      para = [];
    };
    const flushList = () => {
      if (list) html.push("<ul>" + list.map((li) => "<li><!---->" + inline(li) + "</li>").join("") + "</ul>");
      list = null;
    };
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i];
      const fence = line.match(/^```(\S*)\s*$/);
      if (fence) {
        flushPara(); flushList();
        const code = [];
        i += 1;
        while (i < lines.length && !/^```\s*$/.test(lines[i])) { code.push(lines[i]); i += 1; }
        html.push(codeBlock(fence[1], code));
        continue;
      }
      if (/^\s*\|/.test(line)) {
        flushPara(); flushList();
        const rows = [];
        while (i < lines.length && /^\s*\|/.test(lines[i])) { rows.push(lines[i]); i += 1; }
        i -= 1;
        if (rows.length >= 2) { html.push(table(rows)); continue; }
        para.push(line);
        continue;
      }
      const deep = site() && line.match(/^(\s*)([-*+]|\d+[.)]) (.*)$/);
      if (deep) { // DeepSeek: nested and ordered lists, headings
        flushPara(); flushList();
        const items = [];
        let m;
        while (i < lines.length && (m = lines[i].match(/^(\s*)([-*+]|\d+[.)]) (.*)$/))) {
          items.push({ indent: m[1].length, ordered: /\d/.test(m[2]), text: m[3] });
          i += 1;
        }
        i -= 1;
        html.push(nestedList(items, 0)[0]);
        continue;
      }
      const heading = site() && line.match(/^(#{1,6}) (.*)$/);
      if (heading) {
        flushPara(); flushList();
        html.push("<h" + heading[1].length + ">" + inline(heading[2]) + "</h" + heading[1].length + ">");
        continue;
      }
      const item = line.match(/^[-*] (.*)$/);
      if (item) { flushPara(); (list = list || []).push(item[1]); continue; }
      if (!line.trim()) { flushPara(); flushList(); continue; }
      flushList();
      para.push(line);
    }
    flushPara(); flushList();
    html.push("<!--]-->");
    return html.join("");
  }

  return { render };
})();
