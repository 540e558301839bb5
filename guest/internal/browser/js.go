package browser

// Page functions run with Runtime.callFunctionOn (this = the element) or Runtime.evaluate. They answer JSON;
// {err, detail} when they cannot act (see pageError). They only read the page or set what the action is about:
// clicks, keys and text go through Input.* as trusted input.

// jsQuery returns the one element a selector matches, or "code:detail" when it matches none or several.
const jsQuery = `function(sel) {
  let all;
  try { all = document.querySelectorAll(sel); } catch (e) { return 'selector:not a valid CSS selector'; }
  if (all.length === 0) return 'none:selector matches no element';
  if (all.length > 1) return 'many:selector matches ' + all.length + ' elements, it must match one';
  return all[0];
}`

// jsDescribe names an element for an error's untrusted metadata (page text): tag, id and classes, bounded.
const jsDescribe = `function describe(el) {
  if (!el) return 'nothing';
  let s = '<' + el.tagName.toLowerCase();
  if (el.id) s += ' id="' + el.id.slice(0, 32) + '"';
  if (typeof el.className === 'string' && el.className) s += ' class="' + el.className.slice(0, 32) + '"';
  return s + '>';
}`

// jsPoint scrolls the element into view when needed and returns the center of its first visible box, and
// whether it scrolled. With check, the element at that point must be the element or inside it, else the
// covering element is named.
const jsPoint = `function(check) {
  ` + jsDescribe + `
  if (!this.isConnected) return {err: 'gone', detail: 'element no longer in the document'};
  const el = this.nodeType === 1 ? this : this.parentElement;
  let r = el.getBoundingClientRect(), scrolled = false;
  if (r.top < 0 || r.left < 0 || r.bottom > innerHeight || r.right > innerWidth) {
    el.scrollIntoView({block: 'center', inline: 'center', behavior: 'instant'});
    r = el.getBoundingClientRect();
    scrolled = true;
  }
  if (r.width === 0 || r.height === 0) return {err: 'hidden', detail: 'element has no box (hidden or empty)'};
  const x = r.left + r.width / 2, y = r.top + r.height / 2;
  if (check) {
    const root = el.getRootNode();
    const hit = (root.elementFromPoint ? root : document).elementFromPoint(x, y);
    if (hit !== el && !el.contains(hit)) {
      return {err: 'covered', detail: 'the point (' + Math.round(x) + ',' + Math.round(y) + ') is covered by another element', untrusted: {cover: describe(hit)}};
    }
  }
  return {x: x, y: y, scrolled: scrolled};
}`

// jsFocusField focuses a text field (input, textarea, contenteditable), scrolled into view, and selects all
// of its text.
const jsFocusField = `function() {
  if (!this.isConnected) return {err: 'gone', detail: 'element no longer in the document'};
  const el = this;
  const field = el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement;
  if (!field && !el.isContentEditable) return {err: 'notfield', detail: 'the element is not a text field', untrusted: {tag: (el.tagName || '#text').toLowerCase()}};
  if (document.activeElement !== el) el.focus();
  if (field) { el.select(); } else {
    const r = document.createRange(); r.selectNodeContents(el);
    const s = getSelection(); s.removeAllRanges(); s.addRange(r);
  }
  return {kind: field ? 'field' : 'editable'};
}`

// jsValue reads a field's value back (text content for contenteditable, said by editable), and whether its whole
// non-empty text is selected (whole; also when a field type has no selection to tell by).
const jsValue = `function() {
  if (!this.isConnected) return {err: 'gone', detail: 'element no longer in the document'};
  if (this instanceof HTMLInputElement || this instanceof HTMLTextAreaElement) {
    let whole = true;
    try { whole = this.selectionStart === null || (this.value !== '' && this.selectionStart === 0 && this.selectionEnd === this.value.length); } catch (e) {}
    return {value: this.value, whole: whole};
  }
  const s = getSelection();
  return {value: this.innerText, editable: true, whole: !!s && !s.isCollapsed && this.contains(s.anchorNode) && this.contains(s.focusNode)};
}`

// jsSetValue sets a form control's value with the native setter and fires input and change, as frameworks
// (React, Vue) expect; a select must have the option; a checkbox or radio takes true or false.
const jsSetValue = `function(v) {
  if (!this.isConnected) return {err: 'gone', detail: 'element no longer in the document'};
  const el = this;
  const fire = () => { el.dispatchEvent(new Event('input', {bubbles: true})); el.dispatchEvent(new Event('change', {bubbles: true})); };
  if (el instanceof HTMLSelectElement) {
    const opt = Array.from(el.options).find(o => o.value === v) || Array.from(el.options).find(o => o.text === v);
    if (!opt) return {err: 'nooption', detail: 'the select has no option with that value or text'};
    Object.getOwnPropertyDescriptor(HTMLSelectElement.prototype, 'value').set.call(el, opt.value);
    fire(); return {value: el.value};
  }
  if (el instanceof HTMLInputElement && (el.type === 'checkbox' || el.type === 'radio')) {
    if (v !== 'true' && v !== 'false') return {err: 'notfield', detail: 'a checkbox or radio takes "true" or "false"'};
    Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'checked').set.call(el, v === 'true');
    fire(); return {value: String(el.checked)};
  }
  if (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement) {
    const proto = el instanceof HTMLInputElement ? HTMLInputElement.prototype : HTMLTextAreaElement.prototype;
    Object.getOwnPropertyDescriptor(proto, 'value').set.call(el, v);
    fire(); return {value: el.value};
  }
  return {err: 'notfield', detail: 'the element is not a form control', untrusted: {tag: (el.tagName || '#text').toLowerCase()}};
}`

// jsSelectText finds prefix+text+suffix once in a field or contenteditable and selects text (or puts the caret
// before or after it). Offsets answered are in code points.
const jsSelectText = `function(prefix, text, suffix, caret) {
  if (!this.isConnected) return {err: 'gone', detail: 'element no longer in the document'};
  const el = this;
  const field = el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement;
  if (!field && !el.isContentEditable) return {err: 'notfield', detail: 'element is not an input, a textarea or contenteditable'};
  const full = field ? el.value : el.textContent;
  const needle = prefix + text + suffix;
  const i = full.indexOf(needle);
  if (i < 0) return {err: 'nomatch', detail: 'prefix+text+suffix does not occur in the element text'};
  if (full.indexOf(needle, i + 1) >= 0) return {err: 'ambiguous', detail: 'prefix+text+suffix occurs more than once; give a longer prefix or suffix'};
  let s = i + prefix.length, e = s + text.length;
  if (caret === 2) e = s; else if (caret === 3) s = e;
  el.focus();
  if (field) { el.setSelectionRange(s, e); } else {
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    let pos = 0, n, r = document.createRange(), startSet = false;
    while ((n = walker.nextNode())) {
      const len = n.data.length;
      if (!startSet && s <= pos + len) { r.setStart(n, s - pos); startSet = true; }
      if (startSet && e <= pos + len) { r.setEnd(n, e - pos); break; }
      pos += len;
    }
    const sel = getSelection(); sel.removeAllRanges(); sel.addRange(r);
  }
  const cp = str => Array.from(str).length;
  return {start: cp(full.slice(0, s)), end: cp(full.slice(0, e))};
}`

// jsPaste dispatches a paste event carrying text/plain and text/html to the element (the editing host of a part
// of a contenteditable; with no element, the focused one). When the page does not cancel it: insertHTML in
// contenteditable (done here), or 'text' for the caller to insert with Input.insertText.
const jsPaste = `function(text, html) {
  if (this && this.nodeType && !this.isConnected) return {err: 'gone', detail: 'element no longer in the document'};
  let el = !this || this === window ? document.activeElement : this.nodeType === 1 ? this : this.parentElement;
  if (!el || el === document.body && !el.isContentEditable) return {err: 'nofocus', detail: 'no element has the focus'};
  if (!el.isConnected) return {err: 'gone', detail: 'element no longer in the document'};
  // A part of a contenteditable (a text run, a paragraph) stands for its editing host, which takes the focus.
  while (el.isContentEditable && el.parentElement && el.parentElement.isContentEditable) el = el.parentElement;
  if (document.activeElement !== el) el.focus();
  // The data goes into the event's own DataTransfer: Firefox copies none from the one given to the constructor.
  const ev = new ClipboardEvent('paste', {clipboardData: new DataTransfer(), bubbles: true, cancelable: true, composed: true});
  ev.clipboardData.setData('text/plain', text);
  if (html) ev.clipboardData.setData('text/html', html);
  if (!el.dispatchEvent(ev)) return {path: 'event'};
  if (el.isContentEditable) {
    const esc = s => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\n/g, '<br>');
    document.execCommand('insertHTML', false, html || esc(text));
    return {path: 'html'};
  }
  if (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement) return {path: 'text'};
  return {err: 'notfield', detail: 'the paste was not consumed and the element takes no text'};
}`

// jsScroll scrolls the element (a scrolling container) or the page by dx, dy (pixels, or pages of its client
// size) and answers the positions before and after.
const jsScroll = `function(dx, dy, pages) {
  const page = !this || this === window || this.nodeType !== 1;
  const el = page ? document.scrollingElement : this;
  if (!page && !el.isConnected) return {err: 'gone', detail: 'element no longer in the document'};
  const w = pages ? (page ? innerWidth : el.clientWidth) : 1, h = pages ? (page ? innerHeight : el.clientHeight) : 1;
  const before = {x: el.scrollLeft, y: el.scrollTop};
  el.scrollBy({left: dx * w, top: dy * h, behavior: 'instant'});
  return {before: before, after: {x: el.scrollLeft, y: el.scrollTop}};
}`

// jsVisible answers whether a selector matches a visible element.
const jsVisible = `function(sel) {
  let el;
  try { el = document.querySelector(sel); } catch (e) { return {err: 'selector', detail: 'not a valid CSS selector'}; }
  if (!el) return {visible: false};
  const st = getComputedStyle(el), r = el.getBoundingClientRect();
  return {visible: st.visibility !== 'hidden' && st.display !== 'none' && r.width > 0 && r.height > 0};
}`

// jsFramePoint answers, on an iframe element, where the point (x, y) of its frame's viewport is in the iframe's
// document's viewport, scrolling the iframe into view first when the point is outside, and whether it scrolled.
// With check, the element at that point must be the iframe, else the covering element is named.
const jsFramePoint = `function(x, y, check) {
  ` + jsDescribe + `
  if (!this.isConnected) return {err: 'gone', detail: 'the iframe is no longer in the document'};
  const at = () => {
    const r = this.getBoundingClientRect(), c = getComputedStyle(this);
    return {x: r.left + this.clientLeft + parseFloat(c.paddingLeft) + x, y: r.top + this.clientTop + parseFloat(c.paddingTop) + y};
  };
  const out = p => p.x < 0 || p.y < 0 || p.x >= innerWidth || p.y >= innerHeight;
  let p = at(), scrolled = out(p);
  if (out(p)) { this.scrollIntoView({block: 'center', inline: 'center', behavior: 'instant'}); p = at(); }
  if (out(p)) scrollBy({left: p.x < 0 || p.x >= innerWidth ? p.x - innerWidth / 2 : 0, top: p.y < 0 || p.y >= innerHeight ? p.y - innerHeight / 2 : 0, behavior: 'instant'}), p = at();
  if (out(p)) return {err: 'hidden', detail: 'the point is outside the iframe\'s document viewport'};
  if (check) {
    const root = this.getRootNode();
    const hit = (root.elementFromPoint ? root : document).elementFromPoint(p.x, p.y);
    if (hit !== this) return {err: 'covered', detail: 'the point (' + Math.round(p.x) + ',' + Math.round(p.y) + ') is covered by ' + describe(hit)};
  }
  return {x: p.x, y: p.y, scrolled: scrolled};
}`

// jsFrames waits until the page has rendered twice (two animation frames), at most 250 ms (a hidden tab renders
// none): the browser routes input to an out-of-process iframe by where the last rendered frame showed it.
const jsFrames = `new Promise(done => {
  let n = 0;
  const next = () => ++n >= 2 ? done() : requestAnimationFrame(next);
  requestAnimationFrame(next);
  setTimeout(done, 250);
})`
