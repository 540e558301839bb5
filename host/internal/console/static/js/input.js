// The person's pointer and keyboard, sent only while they hold control from a CONTROL console. Typed text
// (keys that type, input methods) is gathered into bursts (typed through the agent's type path, so the audit log records a
// burst's length and keyed hash, never its keys); shortcuts and keys that type nothing go as key combos;
// composed (IME) and pasted text go as text.

const BURST_MS = 120;
// Keys sent to the guest as keys (KeyboardEvent.key names the broker maps to X keysyms).
const NAMED_KEYS = new Set(['Enter', 'Backspace', 'Tab', 'Escape', 'Delete', 'Insert', 'Home', 'End', 'PageUp',
  'PageDown', 'ArrowLeft', 'ArrowRight', 'ArrowUp', 'ArrowDown', 'ContextMenu', 'PrintScreen', 'Pause']);
const MOVE_MS = 16;

export class Input {
  constructor(conn, screen, stage, keys) {
    this.conn = conn;
    this.screen = screen;
    this.stage = stage;
    this.keys = keys;
    this.enabled = false;
    this.burst = '';
    this.burstTimer = 0;
    this.moveTimer = 0;
    this.pendingMove = null;
    this.wheel = { x: 0, y: 0 };
    this.bind();
  }

  setEnabled(on) {
    this.enabled = on;
    this.stage.classList.toggle('control', on);
  }

  flushText() {
    clearTimeout(this.burstTimer);
    if (this.burst) {
      this.conn.send({ t: 'text', text: this.burst });
      this.burst = '';
    }
  }

  flushMove() {
    clearTimeout(this.moveTimer);
    this.moveTimer = 0;
    if (this.pendingMove) {
      this.conn.send({ t: 'move', ...this.pendingMove });
      this.pendingMove = null;
    }
  }

  bind() {
    const canvas = this.screen.canvas;
    const focusKeys = () => this.keys.focus({ preventScroll: true });
    canvas.addEventListener('contextmenu', (ev) => ev.preventDefault());
    canvas.addEventListener('mousemove', (ev) => {
      if (!this.enabled) return;
      this.pendingMove = this.screen.toGuest(ev);
      if (!this.moveTimer) this.moveTimer = setTimeout(() => this.flushMove(), MOVE_MS);
    });
    canvas.addEventListener('mousedown', (ev) => {
      focusKeys();
      if (!this.enabled) return;
      ev.preventDefault();
      this.flushText();
      this.pendingMove = null;
      clearTimeout(this.moveTimer);
      this.moveTimer = 0;
      this.conn.send({ t: 'down', b: ev.button, ...this.screen.toGuest(ev) });
    });
    canvas.addEventListener('mouseup', (ev) => {
      if (!this.enabled) return;
      ev.preventDefault();
      this.flushMove();
      this.conn.send({ t: 'up', b: ev.button, ...this.screen.toGuest(ev) });
    });
    canvas.addEventListener('wheel', (ev) => {
      if (!this.enabled) return;
      ev.preventDefault();
      // Pixels (or lines) into wheel clicks: about 100 px or 3 lines a click.
      const unit = ev.deltaMode === 1 ? 3 : ev.deltaMode === 2 ? 0.1 : 100;
      this.wheel.x += ev.deltaX / unit;
      this.wheel.y += ev.deltaY / unit;
      const dx = Math.trunc(this.wheel.x), dy = Math.trunc(this.wheel.y);
      if (dx || dy) {
        this.wheel.x -= dx;
        this.wheel.y -= dy;
        this.flushText();
        this.conn.send({ t: 'wheel', dx: clamp(dx), dy: clamp(dy), ...this.screen.toGuest(ev) });
      }
    }, { passive: false });

    const keys = this.keys;
    keys.addEventListener('keydown', (ev) => {
      if (!this.enabled || ev.isComposing) return;
      const shortcut = ev.ctrlKey || ev.altKey || ev.metaKey;
      const printable = [...ev.key].length === 1;
      // A printable key types into the textarea; its input event adds the text to the burst. Keys that are
      // neither a shortcut nor one the guest is sent as a key (modifiers alone, Process, Dead, Unidentified)
      // are left to the textarea too.
      if (printable ? !shortcut : !NAMED_KEYS.has(ev.key) && !/^F[0-9]{1,2}$/.test(ev.key)) return;
      ev.preventDefault();
      this.flushText();
      const mods = [];
      if (ev.ctrlKey) mods.push('ctrl');
      if (ev.altKey) mods.push('alt');
      if (ev.shiftKey) mods.push('shift');
      if (ev.metaKey) mods.push('meta');
      this.conn.send({ t: 'key', key: ev.key, code: ev.code, mods });
    });
    // Everything typed lands in the textarea first (keys, an input method's composition, a virtual
    // keyboard): its text is taken once, when it is final, and cleared.
    const take = () => {
      if (!this.enabled) { keys.value = ''; return; }
      // Return and Tab go to the guest as keys (their keydown above); a line break or tab the textarea
      // inserted anyway (a synthetic char event) is not typed twice. Pasted text keeps its own.
      const text = keys.value.replace(/[\r\n\t]/g, '');
      keys.value = '';
      if (!text) return;
      this.burst += text;
      clearTimeout(this.burstTimer);
      this.burstTimer = setTimeout(() => this.flushText(), BURST_MS);
    };
    keys.addEventListener('compositionend', take);
    keys.addEventListener('input', (ev) => { if (!ev.isComposing) take(); });
    keys.addEventListener('paste', (ev) => {
      if (!this.enabled) return;
      ev.preventDefault();
      const text = ev.clipboardData.getData('text/plain');
      if (text) { this.burst += text; this.flushText(); }
    });
  }
}

function clamp(n) { return Math.max(-50, Math.min(50, n)); }
