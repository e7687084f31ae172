// prepare(), "new chat" in one round trip: find the button (as
// new_chat.js), click it from the page (a scripted click, element.click()), wait -- event driven --
// until it took effect, then wait until ready and type (ready.js + install.js, as prepare's own
// ready-and-type script). A scripted click is not a trusted input event, so its effect is proven
// before anything is typed: the answers on the page fewer than before, or the last run's answer gone
// from the document. Where nothing could prove it (no answer on the page) or nothing happened within
// cfg.effectMs (a site that only listens for pointer events), nothing is typed and the driver presses
// the button with a trusted click instead (a second "new chat" is harmless; a second send would not be).
// Resolves {nc} (not clicked: nc as new_chat.js returns it), {nc, clicked: true, effect: false, target}
// or {nc, clicked: true, effect: true, state, info} (state and info as prepare's ready-and-type script).
const nc = (() => {
__NEW_CHAT__
})();
if (!nc.found) return {nc};
const prev = window.__mediadeskWatch;
const prevAnswer = prev && prev.answerNode && prev.answerNode.isConnected ? prev.answerNode : null;
if (!(nc.count > 0 || prevAnswer)) return {nc};
const button = all(cfg.newChat).find(visible);
if (disabled(button)) return {nc};  // a scripted click on it would prove nothing
const gone = () => (nc.count > 0 && all(cfg.answer).length < nc.count)
                   || (prevAnswer !== null && (!prevAnswer.isConnected || !(prevAnswer.innerText || '').trim()));
button.click();
return new Promise((resolve) => {
  let stop = null, tm = 0;
  const attempt = (final) => {
    const ok = gone();
    if (!ok && !final) return false;
    if (stop) stop();
    clearTimeout(tm);
    resolve(ok);
    return true;
  };
  if (attempt(false)) return;
  stop = watchDom(() => attempt(false));
  tm = setTimeout(() => attempt(true), cfg.effectMs);
}).then((effect) => {
  if (!effect) {
    const again = all(cfg.newChat).find(visible);
    const t = again ? aim(again) : {};
    return {nc, clicked: true, effect: false, target: again && t.by === undefined ? {x: t.x, y: t.y} : null};
  }
  cfg.clearFrom = 0;
  return (() => {
__READY_TYPE__
  })().then((r) => ({nc, clicked: true, effect: true, state: r.state, info: r.info, busyWaitMs: r.busyWaitMs}));
});
