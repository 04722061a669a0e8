// The "working" indicator: a spinner and the elapsed time, so a slow run never looks frozen.
export class Busy {
  constructor(box, text) {
    this.box = box;
    this.text = text;
    this.timer = null;
  }

  start(label) {
    this.stop();
    const started = performance.now();
    const tick = () => {
      this.text.textContent = `${label} ${((performance.now() - started) / 1000).toFixed(1)} s`;
    };
    tick();
    this.box.hidden = false;
    this.timer = setInterval(tick, 100);
  }

  stop() {
    clearInterval(this.timer);
    this.timer = null;
    this.box.hidden = true;
  }
}
