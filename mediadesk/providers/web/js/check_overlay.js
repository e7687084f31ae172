// adapter check: outline and label each element found (cfg.boxes: [{label, x, y, w, h, bad}] in
// document coordinates) in an overlay that takes no clicks; cfg.remove drops it again.
  const ID = '__mediadeskCheckOverlay';
  const old = document.getElementById(ID);
  if (old) old.remove();
  if (cfg.remove) return true;
  const root = document.createElement('div');
  root.id = ID;
  root.style.cssText = 'position:absolute;left:0;top:0;width:0;height:0;z-index:2147483647;pointer-events:none';
  for (const b of cfg.boxes) {
    const color = b.bad ? '#d00' : '#0a0';
    const box = document.createElement('div');
    box.style.cssText = `position:absolute;left:${b.x - 2}px;top:${b.y - 2}px;width:${b.w}px;height:${b.h}px;` +
      `border:2px solid ${color};box-sizing:content-box;pointer-events:none`;
    const tag = document.createElement('div');
    tag.textContent = b.label;
    tag.style.cssText = `position:absolute;left:${b.x - 2}px;top:${Math.max(0, b.y - 20)}px;background:${color};` +
      'color:#fff;font:12px/18px monospace;padding:0 4px;white-space:nowrap;pointer-events:none';
    root.append(box, tag);
  }
  document.documentElement.append(root);
  return true;
