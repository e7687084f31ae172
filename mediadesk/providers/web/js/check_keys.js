// adapter check: where each adapter key's selector lands on the page now. cfg.keys is a list of
// [key, selector]; for each: how many matches, how many visible, the first visible one's box, and
// whether the element at its centre is another element (covered: the page's hit test says so).
  const describeEl = (el) => {
    if (!el) return '';
    let s = el.tagName.toLowerCase();
    if (el.id) s += '#' + el.id;
    const cls = (el.getAttribute('class') || '').trim().split(/\s+/).filter(Boolean).slice(0, 3);
    if (cls.length) s += '.' + cls.join('.');
    const label = el.getAttribute('aria-label') || el.getAttribute('role') || '';
    if (label) s += ' [' + label.slice(0, 40) + ']';
    return s.slice(0, 120);
  };
  const out = [];
  for (const [key, sel] of cfg.keys) {
    let matches;
    try { matches = all(sel); } catch (e) { out.push({key, sel, invalid: true, count: 0, visible: 0}); continue; }
    const shown = matches.filter(visible);
    const row = {key, sel, invalid: false, count: matches.length, visible: shown.length,
                 box: null, coveredBy: null, element: describeEl(shown[0] || matches[0])};
    const el = shown[0];
    if (el) {
      let r = el.getBoundingClientRect();
      if (r.bottom < 0 || r.right < 0 || r.top > innerHeight || r.left > innerWidth) {
        el.scrollIntoView({block: 'center', inline: 'center'});
        r = el.getBoundingClientRect();
      }
      row.box = {x: r.left + scrollX, y: r.top + scrollY, w: r.width, h: r.height};
      const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
      if (hit && hit !== el && !el.contains(hit) && !hit.contains(el)) row.coveredBy = describeEl(hit);
    }
    out.push(row);
  }
  return out;
