// Helpers in scope of every page script of the driver (prepended to each one's body).
// A selector the browser rejects raises an error whose message starts with
// MEDIADESK_BAD_SELECTOR; the driver turns it into AdapterMismatch.
// `cfg` is the page function's argument (selectors and timings from the adapter). Every selector
// key is a LIST of selectors: the first one that matches is used. With `cfg.fallbacks` the usual
// parts of a chat page are found by role when a key is empty or matches nothing.
const sels = (s) => !s ? [] : (Array.isArray(s) ? s : [s]);
const qsa = (sel) => {
  try { return Array.from(document.querySelectorAll(sel)); }
  catch (e) { throw new Error('MEDIADESK_BAD_SELECTOR ' + sel); }
};
const checkSelectors = (...keys) => { for (const k of keys) for (const s of sels(k)) qsa(s); };
// Matches of the first selector of the list that matches anything.
const all = (sel) => {
  for (const s of sels(sel)) { const r = qsa(s); if (r.length) return r; }
  return [];
};
const visible = (el) => {
  if (!el || !el.isConnected) return false;
  const r = el.getBoundingClientRect();
  if (r.width <= 0 || r.height <= 0) return false;
  const v = getComputedStyle(el).visibility;
  return v !== 'hidden' && v !== 'collapse';
};
const anyVisible = (sel) => all(sel).some(visible);
// A short description of an element for messages: tag#id.class[role][aria-label] "text".
const describe = (el) => {
  if (!el || el.nodeType !== 1) return null;
  let d = el.tagName.toLowerCase();
  if (el.id) d += '#' + el.id;
  const cls = typeof el.className === 'string' ? el.className.trim().split(/\s+/).filter(Boolean) : [];
  if (cls.length) d += '.' + cls.slice(0, 3).join('.');
  for (const a of ['role', 'aria-label', 'aria-modal', 'data-testid']) {
    const v = el.getAttribute(a);
    if (v) d += '[' + a + '="' + v.slice(0, 40) + '"]';
  }
  const t = (el.innerText || '').trim().replace(/\s+/g, ' ');
  if (t) d += ' "' + t.slice(0, 60) + (t.length > 60 ? '…' : '') + '"';
  return d;
};
// The element the centre of `el` hits: {x, y} when it is `el` (or inside it), else {x, y, by}.
const aim = (el) => {
  let r = el.getBoundingClientRect();
  if (r.bottom < 0 || r.right < 0 || r.top > innerHeight || r.left > innerWidth) {
    el.scrollIntoView({block: 'center', inline: 'center'});
    r = el.getBoundingClientRect();
  }
  const x = r.left + r.width / 2, y = r.top + r.height / 2;
  const hit = document.elementFromPoint(x, y);
  if (hit && (hit === el || el.contains(hit))) return {x, y};
  return {x, y, by: describe(hit), hit};
};
const hitTarget = (el) => { const t = aim(el); return t.by === undefined ? {x: t.x, y: t.y} : null; };
// fn(true) on every DOM change, fn(false) from the slow safety-net interval.
const watchDom = (fn) => {
  const mo = new MutationObserver(() => fn(true));
  mo.observe(document.documentElement,
             {subtree: true, childList: true, characterData: true, attributes: true});
  const iv = setInterval(() => fn(false), cfg.pollMs);
  return () => { mo.disconnect(); clearInterval(iv); };
};
// --- what an answer's text is -------------------------------------------------------------------
// Never part of an answer: hidden and screen-reader-only text, icons (an icon font's ligature is text),
// controls, and status, toolbar and menu widgets.
// The site's thinking (the adapter's `reasoning` key) is never part of the answer either.
const JUNK = '[aria-hidden="true"], [hidden], button, [role="button"], svg, input, textarea, select, ' +
  '[role="status"], [role="toolbar"], [role="progressbar"], [role="tooltip"], [role="menu"], ' +
  '.sr-only, .visually-hidden, .screen-reader-only, [class*="material-icons"], [class*="material-symbols"]' +
  (cfg && cfg.reasoning && cfg.reasoning.length ? ', ' + cfg.reasoning.join(', ') : '');
// Page chrome no turn of the conversation lives in: footers, navigation, status and alert widgets.
const CHROME = 'footer, nav, [role="contentinfo"], [role="navigation"], [role="status"], [role="toolbar"], ' +
  '[role="progressbar"], [role="alert"], [role="tooltip"], [role="menu"]';
const hasJunk = (el) => !!el.querySelector(JUNK);
const BLOCK_DISPLAY = /^(block|flex|grid|list-item|table|table-row|flow-root)$/;
const PARAGRAPH_TAGS = /^(P|H[1-6]|PRE|UL|OL|TABLE|BLOCKQUOTE)$/;
// The reader's text of an element without what JUNK names: its innerText when it holds none (the
// common case, one call), else the same text put together around the junk.
const plainOf = (el) => {
  if (!hasJunk(el)) return el.innerText || '';
  const out = [];
  const walk = (n) => {
    const pre = /^(pre|break-spaces)/.test(getComputedStyle(n).whiteSpace);
    for (let c = n.firstChild; c; c = c.nextSibling) {
      if (c.nodeType === 3) { out.push(pre ? c.data : c.data.replace(/\s+/g, ' ')); continue; }
      if (c.nodeType !== 1 || c.matches(JUNK)) continue;
      if (c.tagName === 'BR') { out.push('\n'); continue; }
      const st = getComputedStyle(c);
      if (st.display === 'none' || st.visibility === 'hidden' || st.visibility === 'collapse') continue;
      const gap = BLOCK_DISPLAY.test(st.display) ? (PARAGRAPH_TAGS.test(c.tagName) ? '\n\n' : '\n') : '';
      out.push(gap);
      if (hasJunk(c)) walk(c); else out.push(c.innerText || '');
      out.push(gap);
    }
  };
  walk(el);
  return out.join('').replace(/[ \t]*\n[ \t]*/g, '\n').replace(/\n{3,}/g, '\n\n').trim();
};
// The answer's HTML for the Markdown converter: a copy without what JUNK names or CSS hides, with bold
// and italics drawn by CSS (a class, no <strong>/<em>) marked data-md-bold / data-md-italic. Once per run.
const htmlOf = (el) => {
  const copy = el.cloneNode(true);
  const src = el.querySelectorAll('*'), dst = copy.querySelectorAll('*'), drop = [];
  for (let i = 0; i < src.length; i++) {
    const s = src[i];
    if (s.matches(JUNK)) { drop.push(dst[i]); continue; }
    const st = getComputedStyle(s);
    if (st.display === 'none' || st.visibility === 'hidden') { drop.push(dst[i]); continue; }
    if (s.closest('pre, code')) continue;
    const up = getComputedStyle(s.parentElement);
    if (parseInt(st.fontWeight, 10) >= 600 && parseInt(up.fontWeight, 10) < 600
        && !/^(B|STRONG|H[1-6]|TH)$/.test(s.tagName)) dst[i].setAttribute('data-md-bold', '1');
    if (st.fontStyle === 'italic' && up.fontStyle !== 'italic' && !/^(I|EM)$/.test(s.tagName)) {
      dst[i].setAttribute('data-md-italic', '1');
    }
  }
  drop.forEach((d) => d.remove());
  return copy.innerHTML;
};
const disabled = (b) => b.disabled || b.getAttribute('aria-disabled') === 'true';
// --- role-based finders ---------------------------------------------------------------------
const labelOf = (el) => [el.getAttribute('aria-label'), el.getAttribute('title'),
                         el.getAttribute('data-testid'), el.innerText || el.value || '']
  .filter(Boolean).join(' ').trim().toLowerCase();
const SEND_WORDS = ['send', 'submit', '发送', '發送', '提交', 'envoyer', 'senden', 'enviar'];
const STOP_WORDS = ['stop', '停止', '中止', 'cancel generation', 'arrêter', 'stoppen', 'detener'];
const startsWithWord = (label, words) => words.some((w) => {
  if (!label.startsWith(w)) return false;
  const next = label.charAt(w.length);
  return !next || !/[a-z]/.test(next);
});
const BUTTONS = 'button, [role="button"], input[type="submit"], input[type="button"]';
const TEXTBOXES = 'textarea, [contenteditable]:not([contenteditable="false"]), [role="textbox"], ' +
                  'input[type="text"], input:not([type])';
const roleComposer = () => {
  const c = qsa(TEXTBOXES).filter((el) => visible(el) && !el.disabled && !el.readOnly
    && !(el.parentElement && el.parentElement.closest('[contenteditable]:not([contenteditable="false"])'))
    && !el.closest('form[action*="login"], [aria-hidden="true"]'));
  if (!c.length) return null;
  const a = document.activeElement;
  const focused = c.find((el) => el === a || el.contains(a));
  if (focused) return focused;
  // Chat composers sit at the bottom: the candidate whose bottom edge is lowest.
  return c.reduce((best, el) => el.getBoundingClientRect().bottom >= best.getBoundingClientRect().bottom ? el : best);
};
const roleSend = (box) => {
  if (!box) return null;
  let scope = box.parentElement;
  for (let depth = 0; scope && depth < 6; depth++, scope = scope.parentElement) {
    const b = Array.from(scope.querySelectorAll(BUTTONS))
      .find((el) => visible(el) && !el.contains(box) && startsWithWord(labelOf(el), SEND_WORDS));
    if (b) return b;
  }
  const form = box.closest('form');
  if (form) {
    const subs = Array.from(form.querySelectorAll('button[type="submit"], input[type="submit"], button:not([type])'))
      .filter((el) => visible(el) && !startsWithWord(labelOf(el), STOP_WORDS));
    if (subs.length) return subs[subs.length - 1];
  }
  return null;
};
const roleStop = () => qsa(BUTTONS).find((el) => visible(el) && startsWithWord(labelOf(el), STOP_WORDS)) || null;
const passwordShown = () => qsa('input[type="password"]').some(visible);
// --- the parts, by key first ----------------------------------------------------------------
// via: 'selector' (a key matched), 'role' (found by role), and `fellBack` when a key was set but
// matched nothing (the driver warns: the adapter needs an update).
const findPrompt = () => {
  const c = all(cfg.prompt);
  let el = c.find(visible) || c[0], via = 'selector';
  if (!el && cfg.fallbacks) { el = roleComposer(); via = 'role'; }
  if (!el) return null;
  const fellBack = via === 'role' && sels(cfg.prompt).length > 0;
  if (el.matches('textarea, input')) return {el, kind: 'value', via, fellBack};
  if (el.isContentEditable) return {el, kind: 'editable', via, fellBack};
  const inner = el.querySelector('textarea, input, [contenteditable]:not([contenteditable=false])');
  if (inner) return {el: inner, kind: inner.matches('textarea, input') ? 'value' : 'editable', via, fellBack};
  return {el, kind: 'other', via, fellBack};
};
const findSend = (p) => {
  let b = all(cfg.send).find(visible), via = 'selector';
  if (!b && cfg.fallbacks && !cfg.sendKey) { b = roleSend(p ? p.el : null); via = 'role'; }
  if (!b) return null;
  return {el: b, via, fellBack: via === 'role' && sels(cfg.send).length > 0};
};
// Busy: the `busy` key when set (many sites render their stop button only while generating, so
// "matches nothing" means "not busy", never "stale"); without the key, a visible stop button or
// aria-busy.
const busyNow = () => {
  if (sels(cfg.busy).length) return anyVisible(cfg.busy);
  if (!cfg.fallbacks) return false;
  return !!roleStop() || qsa('[aria-busy="true"]').some(visible);
};
const findStop = () => {
  const el = all(cfg.stop).find(visible);
  if (el || !cfg.fallbacks) return el || null;
  return roleStop();
};
const isLoggedIn = () => {
  if (sels(cfg.loggedOut).length && anyVisible(cfg.loggedOut)) return false;
  if (sels(cfg.loggedIn).length) return all(cfg.loggedIn).length > 0;
  return !passwordShown() && !!findPrompt();
};
const shownLoggedOut = () => (sels(cfg.loggedOut).length && anyVisible(cfg.loggedOut))
                             || (!sels(cfg.loggedIn).length && passwordShown());
// Click away whatever `dismiss` names that shows now; returns the descriptions of what was clicked.
const dismissOverlays = () => {
  const clicked = [];
  for (const s of sels(cfg.dismiss)) {
    for (const el of qsa(s)) {
      if (!visible(el)) continue;
      clicked.push(describe(el));
      el.click();
    }
  }
  return clicked;
};
