// adapter new (teach mode): window.__mediadeskTeach.pick(step, text) shows a banner asking the
// operator to click a part of the page and resolves with a selector for what was clicked:
//   'prompt': the message box (a textbox or contenteditable around the click);
//   'send':   the send button (the click goes through: it sends the test prompt);
//   'answer': the answer (the click is swallowed); the busy indicator is what was visible only
//             between the send and now.
// Selectors are role-based where the page allows it (aria-label, role, name, placeholder, a tag
// that is unique), then stable classes, then a path from the nearest element with an id.
  const KEY = '__mediadeskTeach';
  if (window[KEY]) return true;
  const BANNER = '__mediadeskTeachBanner';
  const esc = (v) => (window.CSS && CSS.escape) ? CSS.escape(v) : v.replace(/["\\]/g, '\\$&');
  const attr = (name, v) => `[${name}="${v.replace(/["\\]/g, '\\$&')}"]`;
  const stableClass = (c) => c.length < 40 && !/\d{3,}|^(css|sc|jsx|svelte|emotion|tw)-|[_-][a-z0-9]{5,}$|^[a-z]{1,2}\d|:/i.test(c);
  const visibleAll = (sel) => { try { return all(sel).filter(visible); } catch (e) { return []; } };
  const matchesOnly = (sel, el) => { const v = visibleAll(sel); return v.length === 1 && v[0] === el; };
  const lastIs = (sel, el) => { let m; try { m = all(sel); } catch (e) { return false; } return m.length > 0 && m[m.length - 1] === el; };
  const candidates = (el) => {
    const tag = el.tagName.toLowerCase(), out = [];
    for (const a of ['aria-label', 'data-testid', 'name']) {
      const v = el.getAttribute(a);
      if (v && v.length < 80) out.push(tag + attr(a, v));
    }
    const role = el.getAttribute('role');
    if (role) out.push(`${tag}[role="${role}"]`);
    if (el.isContentEditable && el.getAttribute('contenteditable') !== null) out.push(`${tag}[contenteditable]`);
    if (el.id && stableClass(el.id)) out.push('#' + esc(el.id));
    const type = el.getAttribute('type');
    if (type) out.push(`${tag}[type="${type}"]`);
    out.push(tag);
    const cls = Array.from(el.classList).filter(stableClass);
    for (const c of cls) out.push(`${tag}.${esc(c)}`);
    if (cls.length > 1) out.push(tag + cls.map((c) => '.' + esc(c)).join(''));
    for (const a of ['placeholder', 'title']) {  // words a site may translate: last
      const v = el.getAttribute(a);
      if (v && v.length < 80) out.push(tag + attr(a, v));
    }
    return out;
  };
  const pathTo = (el) => {
    const parts = [];
    for (let n = el; n && n !== document.documentElement; n = n.parentElement) {
      if (n.id && stableClass(n.id) && n !== el) { parts.unshift('#' + esc(n.id)); break; }
      const sib = Array.from(n.parentElement ? n.parentElement.children : []).filter((s) => s.tagName === n.tagName);
      parts.unshift(n.tagName.toLowerCase() + (sib.length > 1 ? `:nth-of-type(${sib.indexOf(n) + 1})` : ''));
    }
    return parts.join(' > ');
  };
  const uniqueSelector = (el) => candidates(el).find((s) => matchesOnly(s, el)) || pathTo(el);
  const composer = (el) => {
    for (let n = el; n; n = n.parentElement) {
      if (n.matches('textarea, input[type=text], input:not([type])') || n.isContentEditable && (!n.parentElement || !n.parentElement.isContentEditable)) return n;
    }
    return el.querySelector('textarea, [contenteditable]:not([contenteditable=false])') || el;
  };
  const buttonOf = (el) => el.closest('button, [role=button], input[type=submit]') || el;
  const userTurn = () => {
    // The deepest visible element showing exactly the test prompt: the operator's own turn.
    const want = t.prompt.trim();
    if (!want) return null;
    let found = null;
    for (const n of all('body *')) {
      if (n.id === BANNER || n.matches('textarea, input') || !visible(n)) continue;
      if ((n.innerText || '').trim() === want) found = n;
    }
    return found;
  };
  const touches = (m, u) => !!u && (m.contains(u) || u.contains(m));
  const answerOf = (el, user) => {
    // The largest ancestor that holds the clicked text but not the operator's turn.
    let best = el;
    for (let n = el.parentElement; n && n !== document.body; n = n.parentElement) {
      if (touches(n, user)) break;
      best = n;
      if (n.parentElement && n.parentElement.children.length > 1
          && Array.from(n.parentElement.children).filter((c) => c.tagName === n.tagName).length > 1) break;
    }
    return best;
  };
  const answerSelector = (el, user) => {
    // Every answer must match (the LAST match is this run's), so a unique selector is not wanted:
    // one that ends on this element and matches no user turn.
    const own = candidates(el).filter((s) => s !== el.tagName.toLowerCase());
    const parent = el.parentElement;
    const tries = [...own];
    if (parent) for (const p of candidates(parent)) for (const s of own) tries.push(`${p} > ${s}`);
    return tries.find((s) => lastIs(s, el) && !all(s).some((m) => touches(m, user))) || pathTo(el);
  };
  const t = {prompt: '', before: new Set(), during: new Set(), timer: 0};
  const banner = (text) => {
    let b = document.getElementById(BANNER);
    if (!b) {
      b = document.createElement('div'); b.id = BANNER;
      b.style.cssText = 'position:fixed;left:0;right:0;top:0;z-index:2147483647;background:#1a56db;color:#fff;' +
        'font:15px/1.4 sans-serif;padding:8px 12px;pointer-events:none;text-align:center';
      document.documentElement.append(b);
    }
    b.textContent = text;
  };
  const buttons = () => all('button, [role=button], [aria-busy=true], [role=progressbar]').filter(visible);
  const ASK = {
    prompt: 'MediaDesk: click the message box (where you type a prompt)',
    send: 'MediaDesk: click the send button',
    answer: 'MediaDesk: when the answer is complete, click on the answer',
  };
  t.pick = (step, text) => new Promise((resolve) => {
    banner(ASK[step]);
    document.documentElement.dataset.mediadeskTeach = step;
    if (step === 'send') {
      t.prompt = text || '';
      t.before = new Set(buttons());
    }
    const onClick = (e) => {
      const el = e.target;
      if (step === 'answer') { e.preventDefault(); e.stopPropagation(); }
      document.removeEventListener('click', onClick, true);
      let out;
      if (step === 'prompt') {
        const c = composer(el); out = {selector: uniqueSelector(c)};
      } else if (step === 'send') {
        const b = buttonOf(el); out = {selector: uniqueSelector(b)};
        t.during = new Set();
        t.timer = setInterval(() => { for (const x of buttons()) if (!t.before.has(x)) t.during.add(x); }, 50);
      } else {
        clearInterval(t.timer);
        const user = userTurn();
        const a = answerOf(el, user);
        const gone = Array.from(t.during).filter((x) => !x.isConnected || !visible(x));
        const stop = gone.find((x) => /stop|停止|cancel/i.test((x.getAttribute('aria-label') || '') + ' ' + x.innerText)) || gone[0];
        let busy = null;
        if (stop && stop.isConnected) busy = candidates(stop).find((s) => { try { return all(s).length === 1; } catch (err) { return false; } }) || pathTo(stop);
        out = {selector: answerSelector(a, user), busy, text: a.innerText.slice(0, 200)};
        const b = document.getElementById(BANNER); if (b) b.remove();
        delete document.documentElement.dataset.mediadeskTeach;
      }
      resolve(out);
    };
    document.addEventListener('click', onClick, true);
  });
  window[KEY] = t;
  return true;
