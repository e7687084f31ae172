// After a stop click: resolve true once `busy` is gone (the site really stopped), false at
// timeout (cfg.timeoutMs).
  return new Promise((resolve) => {
    let stop = null, tm = 0;
    const attempt = (final) => {
      const idle = !busyNow();
      if (!idle && !final) return false;
      if (stop) stop();
      clearTimeout(tm);
      resolve(idle);
      return true;
    };
    if (attempt(false)) return;
    stop = watchDom(() => attempt(false));
    tm = setTimeout(() => attempt(true), cfg.timeoutMs);
  });
