// The "working" indicator: a spinner and the elapsed time, so a slow run never looks frozen.
// It ticks five times a second from one timer, not as a 60 fps CSS animation: every frame
// costs the page CPU that the model's WebAssembly threads need (measured: a continuous
// spinner slowed the explainer graph by about 8 % on two cores). Only the label is
// announced to screen readers; the ticking time is hidden from them.
const TICK_MS = 200;
const STEP_DEG = 45;

export class Busy {
  constructor(box) {
    this.box = box;
    this.label = box.querySelector('.busy-label');
    this.time = box.querySelector('.busy-time');
    this.spinner = box.querySelector('.spinner');
    this.timer = null;
    this.still = globalThis.matchMedia?.('(prefers-reduced-motion: reduce)').matches ?? false;
  }

  start(label) {
    this.stop();
    const started = performance.now();
    let step = 0;
    const tick = () => {
      this.time.textContent = `${((performance.now() - started) / 1000).toFixed(1)} s`;
      if (!this.still) this.spinner.style.transform = `rotate(${(step++ * STEP_DEG) % 360}deg)`;
    };
    this.label.textContent = label;
    tick();
    this.box.hidden = false;
    this.timer = setInterval(tick, TICK_MS);
  }

  stop() {
    clearInterval(this.timer);
    this.timer = null;
    this.box.hidden = true;
  }
}
