// The WebSocket to the broker: JSON text messages both ways, binary messages for images (a 4-byte big-endian
// header length, a JSON header, the image bytes).

export class Connection extends EventTarget {
  constructor(url) {
    super();
    this.url = url;
    this.ws = null;
    this.backoff = 500;
    this.closedByUs = false;
  }

  open() {
    const ws = new WebSocket(this.url);
    ws.binaryType = 'arraybuffer';
    ws.onopen = () => { this.backoff = 500; this.emit('open'); };
    ws.onmessage = (ev) => {
      if (typeof ev.data === 'string') {
        let msg;
        try { msg = JSON.parse(ev.data); } catch { return; }
        this.emit(msg.type, msg);
        return;
      }
      const buf = ev.data;
      const n = new DataView(buf).getUint32(0);
      const header = JSON.parse(new TextDecoder().decode(new Uint8Array(buf, 4, n)));
      const bytes = new Uint8Array(buf, 4 + n);
      this.emit('image', { header, bytes });
    };
    ws.onclose = () => {
      this.emit('close');
      if (!this.closedByUs) {
        setTimeout(() => this.open(), this.backoff);
        this.backoff = Math.min(this.backoff * 2, 8000);
      }
    };
    this.ws = ws;
  }

  send(msg) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) {
      this.ws.send(JSON.stringify(msg));
    }
  }

  emit(type, detail) {
    this.dispatchEvent(new CustomEvent(type, { detail }));
  }
}
