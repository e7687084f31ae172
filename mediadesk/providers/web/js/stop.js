// Cancel/timeout: drop the watcher and return where to click `stop` (or click it from JS when
// it cannot be hit-tested). Returns null when nothing stoppable is visible.
  const w = window.__mediadeskWatch;
  if (w) w.dispose();
  const el = findStop();
  if (!el) return null;
  const t = hitTarget(el);
  if (!t) { el.click(); return {js: true}; }
  return t;
