// run(), step 1: install the watcher (window.__mediadeskWatch; baseline taken now, before
// anything is sent), focus the prompt box and select its content so the inserted text
// replaces any draft, insert the text and wait until it can be sent.
  for (const s of [cfg.answer, cfg.busy, cfg.loggedIn, cfg.loggedOut, cfg.prompt, cfg.send,
                   cfg.error, cfg.stop, cfg.refused]) all(s);
  const KEY = '__mediadeskWatch';
  if (window[KEY]) window[KEY].dispose();
  const now = () => performance.now();
  const read = (el) => cfg.format === 'html' ? el.innerHTML : el.innerText;
  // Visible matches of a selector, counted by their text (a NEW match = more of a text than before).
  const textsOf = (sel) => {
    const m = new Map();
    for (const el of all(sel)) if (visible(el)) {
      const t = (el.innerText || '').trim(); m.set(t, (m.get(t) || 0) + 1);
    }
    return m;
  };
  const errorTexts = () => textsOf(cfg.error);
  const findPrompt = () => {
    const c = all(cfg.prompt); const el = c.find(visible) || c[0];
    if (!el) return null;
    if (el.matches('textarea, input')) return {el, kind: 'value'};
    if (el.isContentEditable) return {el, kind: 'editable'};
    const inner = el.querySelector('textarea, input, [contenteditable]:not([contenteditable=false])');
    if (inner) return {el: inner, kind: inner.matches('textarea, input') ? 'value' : 'editable'};
    return {el, kind: 'other'};
  };
  const promptText = (p) => p.kind === 'value' ? p.el.value : p.el.innerText;
  const norm = (s) => s.replace(/\r\n?/g, '\n');
  const loose = (s) => s.replace(/[\s\u00a0\u200b\ufeff]+/g, '');
  const sameText = (p, text) => p.kind === 'value' ? norm(promptText(p)) === norm(text)
                                                   : loose(promptText(p)) === loose(text);
  const loginLost = () => !document.querySelector(cfg.loggedIn)
                          || (!!cfg.loggedOut && anyVisible(cfg.loggedOut));
  const TERMINAL = new Set(['done', 'error', 'logged_out', 'no_start', 'disposed']);
  const w = {
    state: 'idle', version: 0, sentAt: 0, lastBusyAt: 0, lossAt: 0, busy: false,
    baseCount: all(cfg.answer).length, baseErrors: errorTexts(),
    baseRefused: textsOf(cfg.refused), refused: false,
    text: null, firstAt: null, lastChange: null, doneAt: null, error: null, errorAt: null,
    waiters: [], timer: 0, unwatch: null,
    // The site's own answer stream, as the driver sees it on the network (stream_watch.py):
    // 'none' (not seen: the DOM rule decides), 'open' (never done meanwhile), 'ended'.
    stream: 'none', streamAt: null, rule: null, held: false,
  };
  const rel = (t) => t === null ? null : t - w.sentAt;
  const snap = () => ({
    state: w.state, version: w.version, length: w.text === null ? 0 : w.text.length,
    busy: w.busy, text: w.state === 'done' ? w.text : null, error: w.error, refused: w.refused,
    first: rel(w.firstAt), last: rel(w.lastChange), done: rel(w.doneAt), rule: w.rule, held: w.held,
  });
  // Waiters are {res, progress}: progress waiters wake on every answer change, the others
  // (a caller without on_progress) only on a final state, saving a round trip per change.
  const flush = (final) => {
    const wake = w.waiters.filter((x) => final || x.progress);
    w.waiters = w.waiters.filter((x) => !(final || x.progress));
    const s = snap(); wake.forEach((x) => x.res(s));
  };
  const finish = (state) => {
    if (TERMINAL.has(w.state)) return;
    w.state = state; w.doneAt = now();
    if (w.unwatch) w.unwatch();
    clearTimeout(w.timer);
    flush(true);
  };
  const wakeIn = (ms) => {
    clearTimeout(w.timer);
    if (ms !== Infinity) w.timer = setTimeout(check, Math.ceil(Math.max(0, ms)) + 1);
  };
  function check() {
    if (TERMINAL.has(w.state)) return;
    const t = now();
    let wake = Infinity;
    if (loginLost()) {
      if (!w.lossAt) w.lossAt = t;
      const left = cfg.loginGraceMs - (t - w.lossAt);
      if (left <= 0) return finish('logged_out');
      wake = left;
    } else w.lossAt = 0;
    if (w.state !== 'armed') return wakeIn(wake);
    // A new `busy_selector` match: the site refused the run (busy / rate limited). It ends the run
    // like an error (same login grace); Python reads `refused` and makes it a refusal.
    if (cfg.refused && w.errorAt === null) {
      for (const [txt, n] of textsOf(cfg.refused)) {
        if (n > (w.baseRefused.get(txt) || 0)) { w.error = txt; w.errorAt = t; w.refused = true; break; }
      }
    }
    if (cfg.error && w.errorAt === null) {
      for (const [txt, n] of errorTexts()) {
        if (n > (w.baseErrors.get(txt) || 0)) { w.error = txt; w.errorAt = t; break; }
      }
    }
    if (w.errorAt !== null) {
      // Sites often show "session expired" and drop the login marker together: a logout wins
      // over the error it caused, so the error waits a moment and the login grace decides.
      if (w.lossAt) return wakeIn(wake);
      const left = cfg.errorGraceMs - (t - w.errorAt);
      if (left <= 0) return finish('error');
      return wakeIn(Math.min(wake, left));
    }
    const busy = anyVisible(cfg.busy);
    const streaming = w.stream === 'open';
    if (busy || streaming) w.lastBusyAt = t;
    w.busy = busy;
    const list = all(cfg.answer);
    const txt = list.length > w.baseCount ? read(list[list.length - 1]) : null;
    if (txt !== w.text) {
      if (w.firstAt === null && txt !== null) w.firstAt = t;
      w.text = txt; w.lastChange = t; w.version++; flush(false);
    }
    if (w.text === null || w.text.trim() === '') {
      if (!busy && !streaming) {
        const left = cfg.startTimeoutMs - (t - Math.max(w.sentAt, w.lastBusyAt));
        if (left <= 0) return finish('no_start');
        wake = Math.min(wake, left);
      }
    } else if (!busy && streaming) {
      // A stream the site keeps open across answers (a push channel opened by the first send) would
      // hold every run until max_run_s: after streamHoldMs with no busy and no change, the page decides.
      const left = cfg.streamHoldMs - (t - w.lastChange);
      if (left <= 0 && !w.lossAt) { w.rule = 'dom'; w.held = true; return finish('done'); }
      if (left > 0) wake = Math.min(wake, left);
    } else if (!busy) {
      // Once the stream ended, a short window catches the last DOM update (the network end can
      // precede it); without a stream, the answer must be still for the adapter's settle_ms.
      const ended = w.stream === 'ended';
      const left = ended ? cfg.streamSettleMs - (t - Math.max(w.lastChange, w.streamAt))
                         : cfg.settleMs - (t - w.lastChange);
      if (left <= 0 && !w.lossAt) {  // never "done" while logged out
        w.rule = ended ? 'stream' : 'dom';
        return finish('done');
      }
      if (left > 0) wake = Math.min(wake, left);
    }
    wakeIn(wake);
  }
  w.dispose = () => finish('disposed');
  w.setStream = (state) => {
    if (TERMINAL.has(w.state)) return;
    w.stream = state; w.streamAt = now();
    if (w.state === 'armed') check();
  };
  w.next = (v, progress) => new Promise((res) => {
    if (TERMINAL.has(w.state) || (progress && w.version !== v)) res(snap());
    else w.waiters.push({res, progress});
  });
  // Step 2 (also called alone by the fallbacks):
  // Wait until the text is in the box and the send button can be clicked, then arm. A text
  // mismatch gets a short grace (a framework may re-render the box); the button a longer one.
  w.readyToSend = (text) => new Promise((resolve) => {
    const t0 = now();
    let stop = null, timers = [], finished = false;
    const attempt = (final) => {
      if (finished) return true;
      const p = findPrompt();
      let why = '', target = null;
      if (!p) why = 'no_prompt';
      else if (!sameText(p, text)) why = 'text';
      else if (cfg.send) {
        const b = all(cfg.send).find(visible);
        if (!b) why = 'no_send';
        else if (b.disabled || b.getAttribute('aria-disabled') === 'true') why = 'disabled';
        else if (!(target = hitTarget(b))) why = 'covered';
      } else if (document.activeElement !== p.el && !p.el.contains(document.activeElement)) {
        p.el.focus();
      }
      const settled = !why || why === 'covered';
      const budget = why === 'text' || why === 'no_prompt' ? cfg.textGraceMs : cfg.sendReadyMs;
      if (!settled && !final && now() - t0 < budget) return false;
      finished = true;
      if (stop) stop();
      timers.forEach(clearTimeout);
      if (settled) { w.state = 'armed'; w.sentAt = now(); w.unwatch = watchDom(check); }
      resolve({why, target, seen: p ? promptText(p).slice(0, 120) : null});
      return true;
    };
    if (attempt(false)) return;
    stop = watchDom(() => attempt(false));
    timers = [setTimeout(() => attempt(false), cfg.textGraceMs + 1),
              setTimeout(() => attempt(true), cfg.sendReadyMs)];
  });
  // After the send click: resolve once the prompt left the box, busy shows, an answer started or
  // the watcher saw an error/logout; {ok: false, ...} with what the box shows after timeoutMs.
  w.confirmSent = (text, timeoutMs) => new Promise((resolve) => {
    let stop = null, tm = 0;
    const attempt = (final) => {
      const p = findPrompt();
      const left = !p || !sameText(p, text);
      const started = anyVisible(cfg.busy) || all(cfg.answer).length > w.baseCount
                      || w.errorAt !== null || TERMINAL.has(w.state);
      if (!left && !started && !final) return false;
      if (stop) stop();
      clearTimeout(tm);
      resolve({ok: left || started, seen: p ? promptText(p).slice(0, 120) : null});
      return true;
    };
    if (attempt(false)) return;
    stop = watchDom(() => attempt(false));
    tm = setTimeout(() => attempt(true), timeoutMs);
  });
  // Focus the box and select its content, so inserted text replaces any draft.
  w.selectPrompt = () => {
    const p = findPrompt();
    if (!p || p.kind === 'other') return p ? 'other' : null;
    p.el.focus();
    if (p.kind === 'value') p.el.select();
    else {
      const r = document.createRange(); r.selectNodeContents(p.el);
      const s = getSelection(); s.removeAllRanges(); s.addRange(r);
    }
    return p.kind;
  };
  window[KEY] = w;
  const kind = w.selectPrompt(), loggedIn = !loginLost();
  if (!loggedIn || !kind || kind === 'other') return {loggedIn, prompt: kind, ready: null};
  // Fast path, one round trip: insert as the browser's own editing command (trusted input
  // events, newlines inserted as text, not as Enter key presses). Python falls back to CDP
  // insertText and then Playwright's fill when the box does not end up holding the text.
  let inserted = false;
  try { inserted = document.execCommand('insertText', false, cfg.text); } catch (e) { inserted = false; }
  if (!inserted) return {loggedIn, prompt: kind, ready: null};
  return w.readyToSend(cfg.text).then((ready) => ({loggedIn, prompt: kind, ready}));
