// prepare(): wait until logged in and the prompt box exists (and old answers are gone after a
// `new_chat` click). Resolves 'ready' | 'logged_out' | 'no_login' | 'no_prompt'.
  for (const s of [cfg.loggedIn, cfg.loggedOut, cfg.prompt, cfg.answer]) all(s);
  const t0 = performance.now();
  return new Promise((resolve) => {
    let stop = null, timers = [];
    const finish = (v) => { if (stop) stop(); timers.forEach(clearTimeout); resolve(v); return true; };
    const attempt = (final) => {
      if (cfg.loggedOut && anyVisible(cfg.loggedOut)) return finish('logged_out');
      const inOk = !!document.querySelector(cfg.loggedIn);
      const prompt = all(cfg.prompt).length > 0;
      const cleared = cfg.clearFrom <= 0 || all(cfg.answer).length < cfg.clearFrom
                      || performance.now() - t0 >= cfg.clearGraceMs;
      if (inOk && prompt && cleared) return finish('ready');
      if (final) return finish(!inOk ? 'no_login' : (!prompt ? 'no_prompt' : 'ready'));
      return false;
    };
    if (attempt(false)) return;
    stop = watchDom(() => attempt(false));
    if (cfg.clearFrom > 0) timers.push(setTimeout(() => attempt(false), cfg.clearGraceMs + 1));
    timers.push(setTimeout(() => attempt(true), cfg.timeoutMs));
  });
