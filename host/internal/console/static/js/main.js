// Wires the console: one connection, the screen, the panels and the person's input.
import { Connection } from './connection.js';
import { Screen } from './canvas.js';
import { Input } from './input.js';
import { Panels } from './panels.js';

const $ = (id) => document.getElementById(id);
const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
const conn = new Connection(`${scheme}//${location.host}/ws`);
const screen = new Screen($('screen'), $('cursor'));
const input = new Input(conn, screen, $('stage'), $('keys'));
const panels = new Panels(conn);

conn.addEventListener('open', () => { $('conn').textContent = 'live'; $('conn').className = 'pill ok'; });
conn.addEventListener('close', () => { $('conn').textContent = 'reconnecting'; $('conn').className = 'pill bad'; });
conn.addEventListener('image', (ev) => screen.image(ev.detail));
conn.addEventListener('cursor', (ev) => screen.cursor(ev.detail));
conn.addEventListener('state', (ev) => {
  panels.render(ev.detail);
  const st = ev.detail;
  input.setEnabled(st.mode === 'VIEWER_MODE_CONTROL' && st.control.mine);
  document.body.dataset.control = st.control.mine ? 'mine' : st.control.held ? 'held' : 'free';
  document.body.dataset.generation = String(st.control.generation);
});
conn.addEventListener('error', (ev) => {
  $('error').textContent = ev.detail.error;
  setTimeout(() => { if ($('error').textContent === ev.detail.error) $('error').textContent = ''; }, 5000);
});
window.addEventListener('resize', () => screen.placeCursor());
// For tests and people at the developer tools: what the page has drawn.
window.glovebox = { screen, conn, input, panels };
conn.open();
