// prepare(): wait until logged in and the prompt box exists (and old answers are gone after a
// `new_chat` click) and the site shows no busy indicator. Resolves 'ready' | 'logged_out' | 'no_login' |
// 'no_prompt' | 'busy'.
  checkSelectors(cfg.loggedIn, cfg.loggedOut, cfg.prompt, cfg.answer);
  const t0 = performance.now();
  let busySince = 0;  // when a generation in progress was first seen (how long we waited: for the task log)
  window.__mediadeskBusyWaitMs = 0;
  return new Promise((resolve) => {
    let stop = null, timers = [];
    const finish = (v) => {
      if (busySince) window.__mediadeskBusyWaitMs = performance.now() - busySince;
      if (stop) stop(); timers.forEach(clearTimeout); resolve(v); return true;
    };
    const attempt = (final) => {
      if (shownLoggedOut()) return finish('logged_out');
      const inOk = isLoggedIn();
      const prompt = !!findPrompt();
      const cleared = cfg.clearFrom <= 0 || all(cfg.answer).length < cfg.clearFrom
                      || performance.now() - t0 >= cfg.clearGraceMs;
      // The site is idle before we type: its busy indicator still showing is a generation in progress
      // (an earlier one of ours that was stopped, or the site's own): wait for it to go.
      const idle = !busyNow();
      if (!idle && !busySince) busySince = performance.now();
      if (inOk && prompt && cleared && idle) return finish('ready');
      if (final && !prompt && !sels(cfg.loggedIn).length) return finish('no_prompt');
      if (final) return finish(!inOk ? 'no_login' : (!prompt ? 'no_prompt' : (!idle ? 'busy' : 'ready')));
      return false;
    };
    if (attempt(false)) return;
    stop = watchDom(() => attempt(false));
    if (cfg.clearFrom > 0) timers.push(setTimeout(() => attempt(false), cfg.clearGraceMs + 1));
    timers.push(setTimeout(() => attempt(true), cfg.timeoutMs));
  });
