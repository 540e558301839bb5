// The guest's screen on a canvas: full frames resize it, tiles are drawn at their positions, in arrival
// order (the broker sends them in order, a full frame before the tiles newer than it). The cursor is an image
// over the canvas, so the canvas holds exactly the guest's pixels.

export class Screen {
  constructor(canvas, cursorImg) {
    this.canvas = canvas;
    this.ctx = canvas.getContext('2d', { alpha: false });
    this.cursorImg = cursorImg;
    this.hot = { x: 0, y: 0 };
    this.pos = null;
    // Images decode asynchronously; a chain keeps them drawn in arrival order.
    this.chain = Promise.resolve();
    this.frames = 0;
    this.firstFrameAt = 0;
  }

  image({ header, bytes }) {
    const type = header.fmt === 'png' ? 'image/png' : 'image/jpeg';
    const blob = new Blob([bytes], { type });
    if (header.k === 'cursor') {
      const url = URL.createObjectURL(blob);
      const old = this.cursorImg.src;
      this.cursorImg.src = url;
      if (old.startsWith('blob:')) URL.revokeObjectURL(old);
      this.hot = { x: header.hx || 0, y: header.hy || 0 };
      this.placeCursor();
      return;
    }
    const decoded = createImageBitmap(blob);
    this.chain = this.chain.then(async () => {
      let bmp;
      try { bmp = await decoded; } catch { return; }
      if (header.k === 'full' && (this.canvas.width !== header.w || this.canvas.height !== header.h)) {
        this.canvas.width = header.w;
        this.canvas.height = header.h;
      }
      this.ctx.drawImage(bmp, header.x, header.y);
      bmp.close();
      this.frames++;
      if (!this.firstFrameAt && header.k === 'full') {
        this.firstFrameAt = performance.now();
      }
      this.lastSeq = header.seq || this.lastSeq;
      this.canvas.dataset.frames = String(this.frames);
      this.canvas.dataset.seq = String(this.lastSeq || 0);
    });
  }

  cursor({ x, y }) {
    this.pos = { x, y };
    this.placeCursor();
  }

  placeCursor() {
    if (!this.pos || !this.cursorImg.src) return;
    const k = this.scale();
    this.cursorImg.hidden = false;
    this.cursorImg.style.left = `${(this.pos.x - this.hot.x) / k}px`;
    this.cursorImg.style.top = `${(this.pos.y - this.hot.y) / k}px`;
    this.cursorImg.style.width = `${this.cursorImg.naturalWidth / k}px`;
  }

  // scale is guest pixels per CSS pixel of the canvas as shown.
  scale() {
    const shown = this.canvas.getBoundingClientRect().width;
    return shown > 0 ? this.canvas.width / shown : 1;
  }

  // toGuest maps a pointer event on the canvas to guest coordinates, clamped to the screen.
  toGuest(ev) {
    const r = this.canvas.getBoundingClientRect();
    const k = this.canvas.width / r.width;
    const x = Math.round((ev.clientX - r.left) * k);
    const y = Math.round((ev.clientY - r.top) * (this.canvas.height / r.height));
    return {
      x: Math.max(0, Math.min(this.canvas.width - 1, x)),
      y: Math.max(0, Math.min(this.canvas.height - 1, y)),
    };
  }
}
