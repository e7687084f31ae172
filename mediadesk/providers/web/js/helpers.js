// Helpers in scope of every page script of the driver (prepended to each one's body).
// A selector the browser rejects raises an error whose message starts with
// MEDIADESK_BAD_SELECTOR; the driver turns it into AdapterMismatch.
// `cfg` is the page function's argument (selectors and timings from the adapter).
const all = (sel) => {
  if (!sel) return [];
  try { return Array.from(document.querySelectorAll(sel)); }
  catch (e) { throw new Error('MEDIADESK_BAD_SELECTOR ' + sel); }
};
const visible = (el) => {
  if (!el.isConnected) return false;
  const r = el.getBoundingClientRect();
  if (r.width <= 0 || r.height <= 0) return false;
  const v = getComputedStyle(el).visibility;
  return v !== 'hidden' && v !== 'collapse';
};
const anyVisible = (sel) => all(sel).some(visible);
const hitTarget = (el) => {
  let r = el.getBoundingClientRect();
  if (r.bottom < 0 || r.right < 0 || r.top > innerHeight || r.left > innerWidth) {
    el.scrollIntoView({block: 'center', inline: 'center'});
    r = el.getBoundingClientRect();
  }
  const x = r.left + r.width / 2, y = r.top + r.height / 2;
  const hit = document.elementFromPoint(x, y);
  return hit && (hit === el || el.contains(hit)) ? {x, y} : null;
};
const watchDom = (fn) => {
  const mo = new MutationObserver(() => fn());
  mo.observe(document.documentElement,
             {subtree: true, childList: true, characterData: true, attributes: true});
  const iv = setInterval(() => fn(), cfg.pollMs);
  return () => { mo.disconnect(); clearInterval(iv); };
};
