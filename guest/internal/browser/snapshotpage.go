package browser

// jsSnapshot walks a frame's flat tree (open shadow roots included; an iframe is one element, whose frame the
// caller enters with another jsSnapshot in that frame, see framesnap.go) in the page and answers the elements a snapshot reports, in document order: role, name, value, description, states, depth,
// parent index, bounds (of the elements that need them) and value range. Roles and names follow Chromium's
// accessibility tree (its role names, HTML-AAM's implicit roles, accname's label, labelledby, alt, title and
// name-from-content rules); containers without meaning of their own (generic, none, presentation) and text
// repeating its parent's name are left out and their children take their place.
//
// Run in the page rather than through Accessibility.getFullAXTree, it costs one Runtime.evaluate whose answer
// holds only what the snapshot reports: Chromium's tree of the benchmark page is over 1 MB of JSON (name
// sources of every node, inline text boxes) and takes most of a snapshot's time to build and send.
//
// With a key, the elements stay in the page, under a symbol of the document, as the snapshot's refs: ref eN is
// element N-1 of that snapshot (see jsRef); a new document drops them with it.
//
// The iframe elements (role Iframe, in node order) stay under the symbol glovebox.frames.<frames> of the
// document for the caller to find the frames they show.
//
// Arguments: {key, maxNodes, maxDepth, boundsAll, frames}. Answer, as a JSON string: {nodes: [{r, n, v, d, s, p,
// k, b, m, o}], complete, vw, vh}; b is [x, y, width, height] in CSS pixels of the frame's viewport, m is [min,
// max] when a range is known, o the [x, y] origin of an iframe's content box (where its frame's viewport is).
const jsSnapshot = `function(o) {
  const INTERACTIVE = new Set(['button','link','textbox','searchbox','checkbox','radio','combobox','listbox','option',
    'menuitem','menuitemcheckbox','menuitemradio','tab','switch','slider','spinbutton','treeitem','scrollbar']);
  const FROM_CONTENT = new Set(['button','link','heading','cell','gridcell','columnheader','rowheader','option','tab',
    'menuitem','menuitemcheckbox','menuitemradio','treeitem','checkbox','radio','switch','tooltip','DisclosureTriangle']);
  const SKIP = new Set(['SCRIPT','STYLE','HEAD','TEMPLATE','NOSCRIPT','TITLE','META','LINK','BR','WBR','PARAM','SOURCE','TRACK']);
  const TAGS = {ARTICLE:'article', ASIDE:'complementary', BUTTON:'button', BLOCKQUOTE:'blockquote', CAPTION:'caption',
    CODE:'code', DD:'definition', DETAILS:'group', DIALOG:'dialog', DL:'list', DT:'term', EM:'emphasis',
    STRONG:'strong', FIELDSET:'group', FIGURE:'figure', FIGCAPTION:'Figcaption', FORM:'form', H1:'heading',
    H2:'heading', H3:'heading', H4:'heading', H5:'heading', H6:'heading', HR:'separator', IFRAME:'Iframe', FRAME:'Iframe',
    LABEL:'LabelText', LEGEND:'Legend', LI:'listitem', MAIN:'main', MENU:'list', NAV:'navigation', OL:'list',
    UL:'list', OPTION:'option', OPTGROUP:'group', P:'paragraph', PROGRESS:'progressbar', METER:'meter',
    TABLE:'table', THEAD:'rowgroup', TFOOT:'rowgroup', TR:'row', TD:'cell', TEXTAREA:'textbox',
    SUMMARY:'DisclosureTriangle', MARK:'mark', TIME:'time', DEL:'deletion', INS:'insertion', SUB:'subscript',
    SUP:'superscript', OUTPUT:'status', ADDRESS:'group', SEARCH:'search', CANVAS:'Canvas', VIDEO:'Video',
    AUDIO:'Audio', PRE:'generic', DFN:'term', MATH:'math'};
  const INPUTS = {button:'button', submit:'button', reset:'button', image:'button', file:'button', checkbox:'checkbox',
    radio:'radio', range:'slider', number:'spinbutton', search:'searchbox', color:'ColorWell'};
  const LANDMARK_SCOPE = 'article,aside,main,nav,section,[role=article],[role=complementary],[role=main],[role=navigation],[role=region]';
  const ARIA = new Set(['alert','alertdialog','application','article','banner','blockquote','button','caption','cell',
    'checkbox','code','columnheader','combobox','complementary','contentinfo','definition','deletion','dialog',
    'directory','document','emphasis','feed','figure','form','generic','grid','gridcell','group','heading','img',
    'image','insertion','link','list','listbox','listitem','log','main','marquee','math','menu','menubar',
    'menuitem','menuitemcheckbox','menuitemradio','meter','navigation','none','note','option','paragraph',
    'presentation','progressbar','radio','radiogroup','region','row','rowgroup','rowheader','scrollbar','search',
    'searchbox','separator','slider','spinbutton','status','strong','subscript','superscript','switch','tab',
    'table','tablist','tabpanel','term','textbox','time','timer','toolbar','tooltip','tree','treegrid','treeitem']);
  const styles = new Map();
  const style = el => {
    let s = styles.get(el);
    if (!s) { const c = getComputedStyle(el); s = {none: c.display === 'none', hidden: c.visibility !== 'visible'}; styles.set(el, s); }
    return s;
  };
  const excluded = el => SKIP.has(el.tagName) || el.getAttribute('aria-hidden') === 'true' || style(el).none;
  const kids = n => n.shadowRoot ? n.shadowRoot.childNodes : n.tagName === 'SLOT' && n.assignedNodes().length ? n.assignedNodes() : n.childNodes;
  const attr = (el, a) => { const v = el.getAttribute(a); return v === null ? '' : v.trim(); };
  const squash = s => s.replace(/\s+/g, ' ');
  const role = el => {
    if (el.tagName === 'IFRAME' || el.tagName === 'FRAME') return 'Iframe';
    for (const t of attr(el, 'role').split(/\s+/)) if (ARIA.has(t)) return t === 'img' ? 'image' : t === 'presentation' ? 'none' : t;
    const tag = el.tagName;
    switch (tag) {
    case 'A': case 'AREA': return el.hasAttribute('href') ? 'link' : 'generic';
    case 'IMG': return el.getAttribute('alt') === '' && !el.hasAttribute('aria-label') ? 'none' : 'image';
    case 'INPUT': { const t = el.type; if (t === 'hidden') return 'none'; if ((t === 'text' || t === 'search') && el.list) return 'combobox'; return INPUTS[t] || 'textbox'; }
    case 'SELECT': return el.multiple || el.size > 1 ? 'listbox' : 'combobox';
    case 'HEADER': return el.parentElement && el.parentElement.closest(LANDMARK_SCOPE) ? 'generic' : 'banner';
    case 'FOOTER': return el.parentElement && el.parentElement.closest(LANDMARK_SCOPE) ? 'generic' : 'contentinfo';
    case 'SECTION': return attr(el, 'aria-label') || attr(el, 'aria-labelledby') ? 'region' : 'generic';
    case 'TH': return el.scope === 'row' ? 'rowheader' : 'columnheader';
    case 'svg': return 'image';
    }
    return TAGS[tag] || (el.namespaceURI === 'http://www.w3.org/1999/xhtml' ? 'generic' : 'none');
  };
  const control = el => el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement || el instanceof HTMLSelectElement;
  const selectText = el => { const o = el.selectedOptions && el.selectedOptions[0]; return o ? squash(o.text).trim() : ''; };
  // text is an element's name from its content (accname's recursion; text nodes, alt, embedded controls).
  const text = (n, top) => {
    if (n.nodeType === 3) return n.data;
    if (n.nodeType !== 1 || !top && excluded(n)) return '';
    if (!top) {
      const l = attr(n, 'aria-label'); if (l) return ' ' + l + ' ';
      const r = role(n);
      if (n instanceof HTMLInputElement || n instanceof HTMLTextAreaElement) return ' ' + (r === 'button' ? n.value : r === 'checkbox' || r === 'radio' ? '' : n.value) + ' ';
      if (n instanceof HTMLSelectElement) return ' ' + selectText(n) + ' ';
      if (n.tagName === 'IMG' || n.tagName === 'AREA') return ' ' + attr(n, 'alt') + ' ';
    }
    let s = '';
    for (const c of kids(n)) { s += text(c, false); if (s.length > 4096) break; }
    if (n.tagName !== 'SPAN' && n.tagName !== 'A' && n.tagName !== 'EM' && n.tagName !== 'STRONG' && n.tagName !== 'B' && n.tagName !== 'I') s = ' ' + s + ' ';
    return s;
  };
  const byIds = ids => ids.split(/\s+/).map(id => { const e = document.getElementById(id); return e ? squash(attr(e, 'aria-label') || text(e, true)).trim() : ''; }).filter(Boolean).join(' ');
  const name = (el, r) => {
    const lb = attr(el, 'aria-labelledby');
    if (lb) { const s = byIds(lb); if (s) return s; }
    const l = attr(el, 'aria-label'); if (l) return l;
    if (r === 'generic' || r === 'none') return '';
    const tag = el.tagName;
    if (tag === 'INPUT' && (el.type === 'button' || el.type === 'submit' || el.type === 'reset')) return el.value || (el.type === 'submit' ? 'Submit' : el.type === 'reset' ? 'Reset' : '');
    if (tag === 'INPUT' && el.type === 'image') return attr(el, 'alt') || el.value || 'Submit';
    if (control(el) && el.labels && el.labels.length) {
      const s = Array.from(el.labels).map(lab => { let t = ''; for (const c of kids(lab)) if (c !== el) t += text(c, false); return squash(t).trim(); }).filter(Boolean).join(' ');
      if (s) return s;
    }
    if (tag === 'IMG' || tag === 'AREA') { const a = attr(el, 'alt'); if (a) return a; }
    if (tag === 'FIELDSET') { const lg = el.querySelector(':scope > legend'); if (lg) return squash(text(lg, true)).trim(); }
    if (tag === 'TABLE' && el.caption) return squash(text(el.caption, true)).trim();
    if (tag === 'svg') { const t = el.querySelector(':scope > title'); if (t) return squash(t.textContent).trim(); }
    if (FROM_CONTENT.has(r)) { const s = squash(text(el, true)).trim(); if (s) return s; }
    const t = attr(el, 'title'); if (t) return t;
    if ((r === 'textbox' || r === 'searchbox' || r === 'combobox') && el.placeholder) return el.placeholder;
    return '';
  };
  const focused = (() => { let a = document.activeElement; while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement; return a; })();
  const states = (el, r) => {
    const s = [], a = n => el.getAttribute(n);
    if ((el.tabIndex >= 0 || el.hasAttribute('tabindex') || el.isContentEditable && !(el.parentElement && el.parentElement.isContentEditable)) && !el.matches(':disabled')) s.push('focusable');
    if (el === focused && el !== document.body) s.push('focused');
    if (el.matches(':disabled') || a('aria-disabled') === 'true') s.push('disabled');
    if (r === 'option' && el instanceof HTMLOptionElement ? el.selected : a('aria-selected') === 'true') s.push('selected');
    if (el.required || a('aria-required') === 'true') s.push('required');
    if (el.readOnly && control(el) || a('aria-readonly') === 'true') s.push('readonly');
    if (el instanceof HTMLTextAreaElement || a('aria-multiline') === 'true' || r === 'textbox' && el.isContentEditable) s.push('multiline');
    if (a('aria-modal') === 'true' || el.tagName === 'DIALOG' && el.matches(':modal')) s.push('modal');
    if (a('aria-busy') === 'true') s.push('busy');
    const checked = el instanceof HTMLInputElement && (el.type === 'checkbox' || el.type === 'radio') ? (el.indeterminate ? 'mixed' : String(el.checked)) : a('aria-checked');
    if (checked === 'true') s.push('checked'); else if (checked === 'mixed') s.push('mixed');
    const pressed = a('aria-pressed'); if (pressed === 'true' || pressed === 'mixed') s.push('pressed');
    const exp = a('aria-expanded');
    if (exp !== null) s.push(exp === 'true' ? 'expanded' : 'collapsed');
    else if (r === 'combobox' && el instanceof HTMLSelectElement) s.push('collapsed');
    else if (r === 'DisclosureTriangle' && el.parentElement instanceof HTMLDetailsElement) s.push(el.parentElement.open ? 'expanded' : 'collapsed');
    if ((r === 'textbox' || r === 'searchbox' || r === 'spinbutton' || r === 'combobox' && el instanceof HTMLInputElement) && control(el) || el.isContentEditable) s.push('editable');
    const inv = a('aria-invalid'); if (inv !== null && inv !== 'false') s.push('invalid');
    return s;
  };
  const value = (el, r) => {
    if (el instanceof HTMLInputElement) return el.type === 'password' || r === 'button' || r === 'checkbox' || r === 'radio' ? '' : el.value;
    if (el instanceof HTMLTextAreaElement) return el.value;
    if (el instanceof HTMLSelectElement) return r === 'combobox' ? selectText(el) : '';
    if (el instanceof HTMLProgressElement || el instanceof HTMLMeterElement) return el.position === -1 ? '' : String(el.value);
    if (r === 'textbox' && el.isContentEditable) return el.textContent;
    return attr(el, 'aria-valuetext') || attr(el, 'aria-valuenow');
  };
  const range = (el, r) => {
    if (el instanceof HTMLInputElement && (r === 'slider' || r === 'spinbutton')) {
      return r === 'slider' ? [el.min === '' ? 0 : +el.min, el.max === '' ? 100 : +el.max] : [+el.min || 0, +el.max || 0];
    }
    if (el instanceof HTMLProgressElement) return [0, el.max];
    if (el instanceof HTMLMeterElement) return [el.min, el.max];
    const lo = attr(el, 'aria-valuemin'), hi = attr(el, 'aria-valuemax');
    return lo || hi ? [+lo || 0, +hi || 0] : null;
  };
  const box = el => {
    const b = el.getBoundingClientRect();
    return b.width === 0 && b.height === 0 && b.x === 0 && b.y === 0 ? null : [Math.floor(b.x), Math.floor(b.y), Math.ceil(b.width), Math.ceil(b.height)];
  };
  const origin = el => {
    const b = el.getBoundingClientRect(), c = getComputedStyle(el);
    return [b.x + el.clientLeft + parseFloat(c.paddingLeft), b.y + el.clientTop + parseFloat(c.paddingTop)];
  };
  const nodes = [], els = [], frames = [];
  let complete = true;
  const add = (n, el, r, nm, p, k) => {
    if (nodes.length >= o.maxNodes) { complete = false; return -1; }
    nodes.push(n); els.push(el); n.r = r; n.n = nm; n.p = p; n.k = k;
    return nodes.length - 1;
  };
  const walk = (n, p, k, pname, hiddenParent) => {
    if (!complete) return;
    if (n.nodeType === 3) {
      if (hiddenParent) return;
      const t = squash(n.data);
      if (t === ' ' || t === '' || t === pname) return;
      if (o.maxDepth > 0 && k > o.maxDepth) return;
      add({}, n, 'StaticText', t, p, k);
      return;
    }
    if (n.nodeType !== 1 || excluded(n)) return;
    const r = role(n), hidden = style(n).hidden;
    if (r === 'Iframe' || r === 'image' && n.tagName === 'svg') {
      if (hidden || o.maxDepth > 0 && k > o.maxDepth) return;
      const e = {};
      if (r === 'Iframe') { e.o = origin(n); const b = box(n); if (b) e.b = b; }
      if (add(e, n, r, name(n, r), p, k) >= 0 && r === 'Iframe') frames.push(n);
      return;
    }
    const nm = hidden ? '' : name(n, r);
    let here = p, ck = k, cname = pname;
    if (!hidden && !((r === 'generic' || r === 'none') && nm === '')) {
      if (o.maxDepth > 0 && k > o.maxDepth) return;
      const e = {};
      const s = states(n, r);
      if (s.length) e.s = s;
      const v = value(n, r); if (v) e.v = v;
      const d = attr(n, 'aria-describedby') ? byIds(attr(n, 'aria-describedby')) : nm !== attr(n, 'title') ? attr(n, 'title') : '';
      if (d) e.d = d;
      const m = range(n, r); if (m) e.m = m;
      if (o.boundsAll || INTERACTIVE.has(r) || s.includes('focusable')) { const b = box(n); if (b) e.b = b; }
      here = add(e, n, r, nm, p, k);
      if (here < 0) return;
      ck = k + 1; cname = nm;
    }
    // A closed details shows its summary only.
    const closed = n.tagName === 'DETAILS' && !n.open;
    for (const c of kids(n)) if (!closed || c.tagName === 'SUMMARY') walk(c, here, ck, cname, hidden);
  };
  add({}, document, 'RootWebArea', document.title, -1, 0);
  if (document.documentElement) walk(document.documentElement, 0, 1, document.title, false);
  if (o.key) Object.defineProperty(document, Symbol.for('glovebox.refs'), {value: {key: o.key, els: els}, configurable: true});
  if (o.frames && frames.length) Object.defineProperty(document, Symbol.for('glovebox.frames.' + o.frames), {value: frames, configurable: true});
  // One string: Chromium serializes a returned object value by value far slower than JSON.stringify.
  return JSON.stringify({nodes: nodes, complete: complete, vw: innerWidth, vh: innerHeight});
}`

// jsRef answers element i of the snapshot key kept by jsSnapshot, or null when the page holds another snapshot
// (a newer one, or none since a new document).
const jsRef = `function(key, i) {
  const h = document[Symbol.for('glovebox.refs')];
  return h && h.key === key && h.els[i] || null;
}`
