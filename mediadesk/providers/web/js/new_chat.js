// new_chat: where to click, and how many answers are on the page before the click.
  const count = all(cfg.answer).length;
  const el = all(cfg.newChat).find(visible);
  if (!el) return {found: false, count};
  return {found: true, count, target: hitTarget(el)};
