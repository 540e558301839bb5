// The side panels and the header: guest state, control, help requests, sessions and the audit tail. Every
// string from the broker (agent-written help text included) is set as text, never as HTML.

const $ = (id) => document.getElementById(id);

function cell(tr, text) {
  const td = document.createElement('td');
  td.textContent = text ?? '';
  tr.appendChild(td);
}

function age(s) {
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  return `${Math.floor(s / 3600)}h${Math.floor((s % 3600) / 60)}m`;
}

export class Panels {
  constructor(conn) {
    this.conn = conn;
    this.state = null;
    $('take').addEventListener('click', () => conn.send({ t: 'take' }));
    $('release').addEventListener('click', () => {
      conn.send({ t: 'release', note: $('release-note').value });
      $('release-note').value = '';
    });
  }

  render(st) {
    this.state = st;
    $('guest').textContent = st.guest;
    const gs = $('guest-state');
    gs.textContent = st.state.replace('GUEST_STATE_', '').toLowerCase();
    gs.className = 'pill ' + (st.state === 'GUEST_STATE_READY' ? 'ok' : 'bad');
    $('mode').textContent = st.mode === 'VIEWER_MODE_CONTROL' ? 'control' : 'view only';
    const c = st.control;
    const control = st.mode === 'VIEWER_MODE_CONTROL';
    $('control-state').textContent = c.held ? (c.mine ? 'you hold control' : `held by ${c.holder}`) : 'agents in control';
    $('take').hidden = !control || c.held;
    $('release').hidden = !control || !c.mine;
    $('release-note').hidden = !control || !c.mine;

    const help = $('help');
    help.replaceChildren();
    for (const h of st.help || []) {
      const li = document.createElement('li');
      li.dataset.id = h.id;
      const reason = document.createElement('div');
      reason.className = 'reason';
      reason.textContent = h.reason;
      const who = document.createElement('div');
      who.className = 'note';
      who.textContent = `${h.principal} · ${h.state.replace('HELP_STATE_', '').toLowerCase()}${h.taken_by ? ' by ' + h.taken_by : ''}`;
      li.append(reason, who);
      if (h.instructions) {
        const ins = document.createElement('div');
        ins.className = 'instructions';
        ins.textContent = h.instructions;
        li.append(ins);
      }
      if (control && h.state === 'HELP_STATE_PENDING' && (!c.held || c.mine)) {
        const b = document.createElement('button');
        b.type = 'button';
        b.textContent = 'Take control for this';
        b.className = 'take-help';
        b.addEventListener('click', () => this.conn.send({ t: 'take', help_id: h.id }));
        li.append(b);
      }
      help.append(li);
    }
    if (!help.children.length) {
      const li = document.createElement('li');
      li.className = 'note';
      li.textContent = 'none';
      help.append(li);
    }

    const sessions = $('sessions').tBodies[0];
    sessions.replaceChildren();
    for (const s of st.sessions || []) {
      const tr = document.createElement('tr');
      tr.dataset.id = s.id;
      cell(tr, s.principal + (s.label ? ` (${s.label})` : ''));
      cell(tr, age(s.age_s));
      cell(tr, s.last_action ? s.last_action.split('/').pop() : '');
      cell(tr, (s.held || []).join(', '));
      sessions.append(tr);
    }

    $('audit-note').textContent = st.audit_note || '';
    const audit = $('audit').tBodies[0];
    audit.replaceChildren();
    for (const r of (st.audit || []).slice().reverse()) {
      const tr = document.createElement('tr');
      cell(tr, String(r.seq));
      cell(tr, r.rpc.split('/').pop() + (r.phase === 'AUDIT_PHASE_INTENT' ? ' (intent)' : ''));
      cell(tr, r.principal + (r.source ? ` [${r.source.replace('AUDIT_SOURCE_', '').toLowerCase()}]` : ''));
      cell(tr, r.code + (r.reason ? ` ${r.reason}` : ''));
      audit.append(tr);
    }
  }
}
