// run(), step 1: install the watcher (window.__mediadeskWatch; baseline taken now, before
// anything is sent), focus the prompt box and select its content so the inserted text
// replaces any draft, insert the text and wait until it can be sent.
  checkSelectors(cfg.answer, cfg.busy, cfg.loggedIn, cfg.loggedOut, cfg.prompt, cfg.send,
                 cfg.error, cfg.stop, cfg.refused, cfg.dismiss, cfg.reasoning);
  const KEY = '__mediadeskWatch';
  if (window[KEY]) window[KEY].dispose();
  const now = () => performance.now();
  // What is compared to see the answer change (its HTML, or its text without junk), and its text.
  const read = (el) => cfg.format === 'html' ? el.innerHTML : plainOf(el);
  // Text that was on the page before the send is never the answer, even re-rendered as a new element
  // (a framework that redraws its footer): loose texts of small elements, counted now.
  const SMALL = 8;
  const looseTexts = () => {
    const m = new Map();
    const els = document.body ? document.body.getElementsByTagName('*') : [];
    for (let i = 0; i < els.length && i < 30000; i++) {
      if (els[i].childElementCount > SMALL) continue;
      const k = loose(els[i].textContent || '');
      if (k && k.length <= 2000) m.set(k, (m.get(k) || 0) + 1);
    }
    return m;
  };
  // Visible matches of a selector, counted by their text (a NEW match = more of a text than before).
  const textsOf = (sel) => {
    const m = new Map();
    for (const el of all(sel)) if (visible(el)) {
      const t = (el.innerText || '').trim(); m.set(t, (m.get(t) || 0) + 1);
    }
    return m;
  };
  const errorTexts = () => textsOf(cfg.error);
  const promptText = (p) => p.kind === 'value' ? p.el.value : p.el.innerText;
  const norm = (s) => s.replace(/\r\n?/g, '\n');
  const loose = (s) => s.replace(/[\s\u00a0\u200b\ufeff]+/g, '');
  const sameText = (p, text) => p.kind === 'value' ? norm(promptText(p)) === norm(text)
                                                   : loose(promptText(p)) === loose(text);
  const loginLost = () => !isLoggedIn();
  const TERMINAL = new Set(['done', 'error', 'logged_out', 'no_start', 'disposed', 'cut', 'answer_not_found',
                            'empty']);
  const w = {
    state: 'idle', version: 0, sentAt: 0, lastBusyAt: 0, lossAt: 0, busy: false,
    baseCounts: sels(cfg.answer).map((s) => qsa(s).length), baseErrors: errorTexts(),
    baseRefused: textsOf(cfg.refused), refused: false,
    text: null, firstAt: null, lastChange: null, doneAt: null, error: null, errorAt: null,
    waiters: [], timer: 0, unwatch: null,
    // The site's own answer stream, as the driver sees it on the network (stream_watch.py):
    // 'none' (not seen: the DOM rule decides), 'open' (never done meanwhile), 'ended'.
    stream: 'none', streamAt: null, rule: null, held: false,
    // The page's own view of those streams' ends (Resource Timing, see rtEnded): what the driver
    // said is open ({url: requests to it since arming}), whether a socket streams, the entries seen.
    streamNeed: null, streamWs: false, rt: [], rtObs: null, pressAt: null, endVia: null,
    sentText: cfg.text, added: new Set(), addedObs: null, userTurn: null,
    via: {}, probe: null, answerFallback: false, answerNode: null,
    // The answer's text without junk (emptiness is judged on it), its final form (set at 'done'), the
    // last DOM change, the page's texts before the send, and whether the answer key is known to work
    // here (it matched earlier turns: a miss now is a reason to wait, never to guess).
    plain: null, final: null, lastMut: 0, baseTexts: looseTexts(), why: null,
    keyKnown: !!cfg.keyKnown,
    // The site's thinking blocks (the adapter's `reasoning` key) on the page before the send, and the
    // text of the newest one after it (set at 'done'; a collapsed block is read by its text content).
    baseReasoning: new Set(sels(cfg.reasoning).flatMap(qsa)), reasoning: null,
  };
  w.keyKnown = w.keyKnown || w.baseCounts.some((n) => n > 0);
  // Role-based answer: remember every element added or changed from now on (the answer is the
  // one that grew after sending). Only when the answer key may need it.
  if (cfg.fallbacks) {
    // Elements only, added once armed (a ticking clock that rewrites its text is not "new").
    w.addedObs = new MutationObserver((recs) => {
      if (w.state !== 'armed') return;
      for (const r of recs) {
        if (w.added.size > 20000) return;
        r.addedNodes.forEach((n) => { if (n.nodeType === 1) w.added.add(n); });
      }
    });
    w.addedObs.observe(document.documentElement, {subtree: true, childList: true});
  }
  // An HTTP stream's end, seen in the page itself: the browser adds a Resource Timing entry when a
  // response body has been received whole (a streamed fetch, XHR or EventSource included), with its
  // end on the page's own clock. The driver hears of the same end through Chromium's network events
  // and Playwright (several ms later on a loaded machine), and only the driver can tell which request
  // is the answer's stream, so it says which URLs are open and how many requests to each started since
  // arming; once the page holds that many entries for each, started after the send press, every
  // stream the driver knows of has ended. WebSockets have no such entry: their end is the driver's news.
  if (typeof PerformanceObserver === 'function') {
    try {
      w.rtObs = new PerformanceObserver((list) => {
        for (const e of list.getEntries()) {
          if (w.sentAt > 0 && e.startTime >= w.sentAt && w.rt.length < 2000) w.rt.push({name: e.name, start: e.startTime, end: e.responseEnd});
        }
        if (w.state === 'armed' && w.stream === 'open' && rtEnded()) check();
      });
      w.rtObs.observe({type: 'resource'});
    } catch (e) { w.rtObs = null; }
  }
  function rtEnded() {
    const need = w.streamNeed;
    if (!need || w.streamWs || w.pressAt === null) return false;
    const urls = Object.keys(need);
    if (!urls.length) return false;
    let last = 0;
    for (const url of urls) {
      const seen = w.rt.filter((e) => e.name === url && e.start >= w.pressAt);
      if (seen.length < need[url]) return false;
      for (const e of seen) last = Math.max(last, e.end);
    }
    w.stream = 'ended'; w.streamAt = Math.min(last, now()); w.endVia = 'page';
    return true;
  }
  const looseSent = () => loose(w.sentText || '');
  // The user's own new turn: the outermost new element whose text (without junk: an avatar's icon is
  // not text) is the prompt; it may sit inside what was added (a turn with its avatar around it).
  const findUserTurn = () => {
    if (w.userTurn && w.userTurn.isConnected) return w.userTurn;
    const want = looseSent();
    if (!want) return null;
    const p = findPrompt();
    for (const n of w.added) {
      if (!n.isConnected || (p && (p.el === n || p.el.contains(n) || n.contains(p.el)))) continue;
      const text = loose(plainOf(n));
      if (!text.includes(want)) continue;
      let t = text === want ? n : null;
      if (!t) {
        for (const d of n.querySelectorAll('*')) if (loose(plainOf(d)) === want) { t = d; break; }
      }
      if (!t) continue;
      while (t.parentElement && w.added.has(t.parentElement) && loose(plainOf(t.parentElement)) === want) {
        t = t.parentElement;
      }
      while (t.parentElement && t.parentElement !== n.parentElement && n.contains(t.parentElement)
             && loose(plainOf(t.parentElement)) === want) t = t.parentElement;
      w.userTurn = t;
      return t;
    }
    return null;
  };
  // The element that grew after sending: new, visible, with text, outside the prompt box and the
  // user's turn, not a control; the outermost such, the last one in document order.
  const grown = () => {
    const p = findPrompt();
    const box = p ? (p.el.closest('form') || p.el) : null;
    const user = findUserTurn();
    const bad = (t) => !t.isConnected || (box && (box === t || box.contains(t) || t.contains(box)))
                       || (user && (user === t || user.contains(t)))
                       || !!t.closest(BUTTONS) || !!t.closest('[aria-hidden="true"]') || !!t.closest(CHROME)
                       || t.matches(JUNK);
    const cands = [];
    const consider = (t) => {
      if (user && t.contains(user)) {  // a container re-rendered with the user's turn in it
        for (const ch of t.children) if (ch !== user) consider(ch);
        return;
      }
      if (!bad(t) && visible(t) && plainOf(t).trim() && !preexisting(t)) cands.push(t);
    };
    for (const n of w.added) {
      if (bad(n)) continue;
      let t = n;
      while (t.parentElement && w.added.has(t.parentElement) && !(box && t.parentElement.contains(box))
             && !(user && t.parentElement.contains(user))) t = t.parentElement;
      consider(t);
    }
    let best = null;
    for (const t of cands) {
      if (!best || (best.compareDocumentPosition(t) & Node.DOCUMENT_POSITION_FOLLOWING && !best.contains(t))) best = t;
      else if (t.contains(best)) best = t;
    }
    // Wrappers that hold nothing but one element are skipped down to that element.
    while (best && best.children.length === 1
           && loose(best.children[0].innerText || '') === loose(best.innerText || '')) best = best.children[0];
    return best;
  };
  // A candidate whose text was on the page before the send (as many elements held it then as now). The
  // verdict is kept per element and text: a redrawn footer is judged once, not at every DOM change.
  const seenBefore = new WeakMap();
  const preexisting = (t) => {
    if (t.childElementCount > SMALL) return false;
    const k = loose(t.textContent || '');
    const before = w.baseTexts.get(k);
    if (!before) return false;
    const kept = seenBefore.get(t);
    if (kept && kept.k === k) return kept.pre;
    const pre = (looseTexts().get(k) || 0) <= before;
    seenBefore.set(t, {k, pre});
    return pre;
  };
  // This run's answer: the last match of the first answer selector with more matches than before
  // sending; else (fallbacks) the element that grew.
  const answerEl = () => {
    const list = sels(cfg.answer);
    for (let i = 0; i < list.length; i++) {
      const m = qsa(list[i]);
      if (m.length > w.baseCounts[i]) return {el: m[m.length - 1], via: 'selector'};
    }
    if (!cfg.fallbacks || (list.length && !w.answerFallback)) return null;
    const el = grown();
    return el ? {el, via: 'role'} : null;
  };
  const rel = (t) => t === null ? null : t - w.sentAt;
  const snap = () => ({
    state: w.state, version: w.version, length: w.plain === null ? 0 : w.plain.length,
    busy: w.busy, text: w.state === 'done' ? w.final : null, error: w.error, refused: w.refused, why: w.why,
    first: rel(w.firstAt), press: rel(w.pressAt), last: rel(w.lastChange), done: rel(w.doneAt), rule: w.rule, held: w.held, endVia: w.endVia,
    via: w.via, reasoning: w.state === 'done' ? w.reasoning : null,
  });
  // Waiters are {res, progress}: progress waiters wake on every answer change, the others
  // (a caller without on_progress) only on a final state, saving a round trip per change.
  const flush = (final) => {
    const wake = w.waiters.filter((x) => final || x.progress);
    w.waiters = w.waiters.filter((x) => !(final || x.progress));
    const s = snap(); wake.forEach((x) => x.res(s));
  };
  const finish = (state, why) => {
    if (TERMINAL.has(w.state)) return;
    if (state === 'done') {
      const el = w.answerNode;
      w.final = !el ? '' : (cfg.format === 'html' ? htmlOf(el) : plainOf(el));
      const thinking = sels(cfg.reasoning).flatMap(qsa).filter((r) => !w.baseReasoning.has(r));
      const last = thinking[thinking.length - 1];
      if (last) { // its text as written (a collapsed block's too), without its "Thought for 12 s" label
        const copy = last.cloneNode(true);
        copy.querySelectorAll('summary').forEach((label) => label.remove());
        w.reasoning = (copy.textContent || '').trim() || null;
      }
    }
    w.state = state; w.doneAt = now(); w.why = why || null;
    if (w.unwatch) w.unwatch();
    if (w.addedObs) w.addedObs.disconnect();
    if (w.rtObs) w.rtObs.disconnect();
    if (w.probeOff) w.probeOff();
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
    const busy = busyNow();
    const streaming = w.stream === 'open';
    if (busy || streaming) w.lastBusyAt = t;
    w.busy = busy;
    const ans = answerEl();
    if (ans) { w.via.answer = ans.via; w.answerNode = ans.el; }
    const txt = ans ? read(ans.el) : null;
    if (txt !== w.text) {
      if (w.firstAt === null && txt !== null) w.firstAt = t;
      w.text = txt; w.plain = ans ? (cfg.format === 'html' ? plainOf(ans.el) : txt) : null;
      w.lastChange = t; w.version++; flush(false);
    }
    if (w.plain === null || w.plain.trim() === '') {
      // No answer yet (or one with no text). The site visibly worked on this run when its busy
      // indicator came or our stream ran; until then nothing here may settle the run.
      const started = w.lastBusyAt > 0 || w.stream !== 'none';
      if (!busy && !streaming) {
        const left = cfg.startTimeoutMs - (t - Math.max(w.sentAt, w.lastBusyAt, w.streamAt || 0));
        const quiet = cfg.settleMs - (t - w.lastMut);
        if (started || left <= 0) {
          // The page settles first, then we look (a page that never stops changing: the start timeout).
          if (quiet > 0 && left > 0) return wakeIn(Math.min(wake, quiet, left));
          if (ans) return finish('empty', 'the answer holds no text');
          if (sels(cfg.answer).length && !w.answerFallback && cfg.fallbacks && (!w.keyKnown || left <= 0)) {
            // A key that matches nothing new: the role fallback may look, with the same proofs as the key
            // (new since the send, not text the page showed before, not chrome). A key known to work here
            // gets the whole start timeout first (an answer rendered late, after a restart).
            w.answerFallback = true;
            return wakeIn(0);
          }
          if (left <= 0) {
            return finish(started ? 'answer_not_found' : 'no_start',
                          started ? (sels(cfg.answer).length ? 'the answer key matched nothing new'
                                                              : 'nothing new on the page qualified as the answer')
                                  : null);
          }
        }
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
  w.setStream = (state, news) => {
    if (TERMINAL.has(w.state)) return;
    if (state === 'cut') { w.stream = 'cut'; return finish('cut', news && news.why); }
    if (news) { w.streamNeed = news.urls; w.streamWs = !!news.ws; }
    if (state === 'ended' && w.stream === 'ended') return;  // the page saw the end first: its time stands
    if (state === 'open' && rtEnded()) { if (w.state === 'armed') check(); return; }  // a short stream, ended already
    w.stream = state; w.streamAt = now(); w.endVia = state === 'ended' ? 'network' : null;
    if (w.state === 'armed') check();
  };
  // The driver heard of a stream still open that the page was not told of in time (that news
  // travels Chromium -> Playwright -> the driver -> the page, late on a loaded machine): a decision
  // the DOM rule made without it is taken back, and the run waits on.
  w.resume = (state) => {
    if (w.state !== 'done' || w.rule !== 'dom' || w.held) return false;
    w.state = 'armed'; w.doneAt = null; w.rule = null;
    w.stream = state; w.streamAt = now();
    w.unwatch = watchDom((changed) => { if (changed) w.lastMut = now(); check(); });
    if (w.addedObs) w.addedObs.observe(document.documentElement, {subtree: true, childList: true});
    if (w.rtObs) w.rtObs.observe({type: 'resource'});
    check();
    return true;
  };
  w.next = (v, progress) => new Promise((res) => {
    if (TERMINAL.has(w.state) || (progress && w.version !== v)) res(snap());
    else w.waiters.push({res, progress});
  });
  // Step 2 (also called alone by the fallbacks):
  // Wait until the text is in the box and the send button can be clicked, then arm. A text
  // mismatch gets a short grace (a framework may re-render the box); the button a longer one.
  // No send button at all (no `send` key matching, none found by role): Enter, after a short grace.
  w.readyToSend = (text) => new Promise((resolve) => {
    const t0 = now();
    let stop = null, timers = [], finished = false;
    const attempt = (final) => {
      if (finished) return true;
      const p = findPrompt();
      let why = '', target = null, by = null, enter = false;
      const via = {};
      if (p) via.prompt = p.fellBack ? 'fallback' : p.via;
      if (!p) why = 'no_prompt';
      else if (!sameText(p, text)) why = 'text';
      else if (!cfg.sendKey) {
        const b = findSend(p);
        if (b) via.send = b.fellBack ? 'fallback' : b.via;
        if (!b) {
          if (cfg.fallbacks && now() - t0 >= cfg.textGraceMs) enter = true;
          else why = 'no_send';
        } else if (disabled(b.el)) why = 'disabled';
        else {
          const t = aim(b.el);
          if (t.by !== undefined) { why = 'covered'; by = t.by; } else target = {x: t.x, y: t.y};
        }
      }
      if (p && (cfg.sendKey || enter) && document.activeElement !== p.el && !p.el.contains(document.activeElement)) {
        p.el.focus();
      }
      const settled = !why || why === 'covered';
      const budget = why === 'text' || why === 'no_prompt' ? cfg.textGraceMs
                     : (why === 'no_send' && cfg.fallbacks ? cfg.textGraceMs : cfg.sendReadyMs);
      if (!settled && !final && now() - t0 < budget) return false;
      if (why === 'no_send' && cfg.fallbacks && p) { why = ''; enter = true; }
      finished = true;
      if (stop) stop();
      timers.forEach(clearTimeout);
      if (!why || why === 'covered') {
        w.state = 'armed'; w.sentAt = now(); w.lastMut = w.sentAt;
        w.unwatch = watchDom((changed) => { if (changed) w.lastMut = now(); check(); });
      }
      resolve({why, target, by, enter, via, seen: p ? promptText(p).slice(0, 120) : null});
      return true;
    };
    if (attempt(false)) return;
    stop = watchDom(() => attempt(false));
    timers = [setTimeout(() => attempt(false), cfg.textGraceMs + 1),
              setTimeout(() => attempt(true), cfg.sendReadyMs)];
  });
  // The send click, resolved and checked at click time in one round trip: the button (by key or
  // role), visible, enabled, and the element at its centre is the button itself (not an overlay).
  // Arms a one-shot probe that records where the next press lands, so the driver knows
  // whether its click reached the button. {why: '' | 'no_send' | 'disabled' | 'covered', x, y, by}.
  w.aimSend = () => {
    const s = findSend(findPrompt());
    if (!s) return {why: 'no_send'};
    if (disabled(s.el)) return {why: 'disabled', by: describe(s.el)};
    const t = aim(s.el);
    if (t.by !== undefined) return {why: 'covered', x: t.x, y: t.y, by: t.by};
    if (w.probeOff) w.probeOff();
    const b = s.el, probe = {landed: null, target: null};
    const on = (e) => {
      w.pressAt = now();
      probe.landed = e.target === b || b.contains(e.target);
      if (!probe.landed) probe.target = describe(e.target);
      w.probeOff();
      if (w.onProbe) w.onProbe();  // a did-it-leave check already waiting hears of a miss at once
    };
    // pointerdown, captured at the window: it fires before any of the site's own handlers, so its
    // target is the hit test of the press itself (a miss means the button never got the press).
    w.probeOff = () => { window.removeEventListener('pointerdown', on, true); w.probeOff = null; };
    window.addEventListener('pointerdown', on, true);
    w.probe = probe;
    return {why: '', x: t.x, y: t.y, via: s.fellBack ? 'fallback' : s.via};
  };
  // Wait (event driven) until `what` ('send' | 'prompt') is no longer covered, up to timeoutMs;
  // resolves {covered: false} or {covered: true, by}.
  w.waitUncovered = (what, timeoutMs) => new Promise((resolve) => {
    let stop = null, tm = 0;
    const attempt = (final) => {
      const p = findPrompt();
      const el = what === 'prompt' ? (p && p.el) : (findSend(p) || {}).el;
      const t = el ? aim(el) : {};
      const covered = t.by !== undefined;
      if (covered && !final) return false;
      if (stop) stop();
      clearTimeout(tm);
      resolve({covered, by: covered ? t.by : null});
      return true;
    };
    if (attempt(false)) return;
    stop = watchDom(() => attempt(false));
    tm = setTimeout(() => attempt(true), timeoutMs);
  });
  w.dismiss = () => dismissOverlays();
  w.holds = (text) => { const p = findPrompt(); return !!p && sameText(p, text); };
  // "Did it leave?" After the send input (or sent together with it: the driver's direct send):
  // resolve once the prompt left the box, busy shows, the user's new turn or an answer appeared, or
  // the watcher saw an error/logout; {ok: false, ...} with what the box shows after timeoutMs -- at
  // once when the probe saw the click land elsewhere.
  w.confirmSent = (text, timeoutMs) => new Promise((resolve) => {
    let stop = null, tm = 0;
    const attempt = (final) => {
      const p = findPrompt();
      let how = '';
      if (!p || !sameText(p, text)) how = 'the prompt left the box';
      else if (busyNow()) how = 'busy shows';
      else if (answerEl()) how = 'an answer started';
      else if (findUserTurn()) how = 'a new user turn shows';
      else if (w.errorAt !== null || TERMINAL.has(w.state)) how = 'the page reacted (' + w.state + ')';
      const missed = !!w.probe && w.probe.landed === false;
      if (!how && !final && !missed) return false;
      if (stop) stop();
      clearTimeout(tm);
      w.onProbe = null;
      const probe = w.probe || {};
      resolve({ok: !!how, how, landed: probe.landed === undefined ? null : probe.landed,
               missed: probe.target || null, seen: p ? promptText(p).slice(0, 120) : null});
      return true;
    };
    if (attempt(false)) return;
    w.onProbe = () => attempt(false);
    stop = watchDom(() => attempt(false));
    tm = setTimeout(() => attempt(true), timeoutMs);
  });
  // Mark the prompt box / send button found (by key or role) for Playwright's own locators.
  w.mark = (what) => {
    const p = findPrompt();
    const el = what === 'prompt' ? (p && p.el) : (findSend(p) || {}).el;
    document.querySelectorAll('[data-mediadesk="' + what + '"]').forEach((e) => e.removeAttribute('data-mediadesk'));
    if (!el) return false;
    el.setAttribute('data-mediadesk', what);
    return true;
  };
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
  // Overlays first: click away what `dismiss` names; a prompt box still covered is reported
  // before anything is typed (the driver tries Escape once, then types anyway).
  const dismissed = dismissOverlays();
  const kind = w.selectPrompt(), loggedIn = !loginLost();
  if (!loggedIn || !kind || kind === 'other') return {loggedIn, prompt: kind, ready: null, dismissed};
  if (cfg.checkCover) {
    // Covered = something outside the composer is over the box's centre (a placeholder layered over
    // an editor inside the same composer does not count).
    const el = findPrompt().el, t = aim(el), scope = el.closest('form') || el.parentElement;
    if (t.by !== undefined && !(scope && t.hit && scope.contains(t.hit))) {
      return {loggedIn, prompt: kind, ready: null, dismissed, covered: t.by};
    }
  }
  // Fast path, one round trip: insert as the browser's own editing command (trusted input
  // events, newlines inserted as text, not as Enter key presses). Python falls back to CDP
  // insertText and then Playwright's fill when the box does not end up holding the text.
  let inserted = false;
  try { inserted = document.execCommand('insertText', false, cfg.text); } catch (e) { inserted = false; }
  if (!inserted) return {loggedIn, prompt: kind, ready: null, dismissed};
  // Ready: aim the send click now, in the same round trip. A `then` callback runs after the
  // microtasks the input queued (a box that grows on input has grown by then).
  return w.readyToSend(cfg.text).then((ready) => ({
    loggedIn, prompt: kind, ready, dismissed,
    aim: ready.why === '' && !ready.enter && !cfg.sendKey ? w.aimSend() : null,
  }));
