// new_chat: where to click, and how many answers are on the page before the click. Overlays named
// by `dismiss` are clicked away first; a button still covered is reported (the driver then loads
// `url` instead of clicking through an overlay).
  const dismissed = dismissOverlays();
  const count = all(cfg.answer).length;
  const el = all(cfg.newChat).find(visible);
  if (!el) return {found: false, count, dismissed};
  const t = aim(el);
  if (t.by !== undefined) return {found: false, count, dismissed, covered: t.by};
  return {found: true, count, dismissed, target: {x: t.x, y: t.y}};
