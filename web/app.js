// The page: a composition of feature modules (web/page/), each owning its part of the DOM,
// its listeners and its drawing. They share ONE page-state object (web/page/state.js:
// the controls' and the link's settings, the model's and the photo's results) and call
// each other's exported functions; no module does anything when imported: the bind*()
// calls below attach the listeners, then boot() opens the model. All heavy work happens in
// web/worker.js; the page only draws.
import { state, timeline } from './page/state.js';
import { bindStatus } from './page/status.js';
import { bindModel, boot, benchForward, workerStats } from './page/model.js';
import { bindAnalysis, attribution } from './page/analysis.js';
import { bindPhotoInput, loadSamples } from './page/photo-input.js';
import { bindClasses } from './page/classes.js';
import { bindSettings } from './page/settings.js';
import { bindReadout } from './page/tiles.js';
import { bindDownloads } from './page/downloads.js';
import { bindLink } from './page/link.js';

bindStatus();
bindLink();
bindAnalysis();
bindClasses();
bindSettings();
bindReadout();
bindDownloads();
bindPhotoInput();
bindModel();

// Hooks for the browser tests and the benchmark (timestamps of the last photo and class).
window.__vitrel = {
  state,
  timeline,
  attribution,
  benchForward,
  workerStats,
};

loadSamples();
boot();
