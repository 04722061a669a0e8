// The page: a composition of feature modules (web/page/), each owning its part of the DOM,
// its listeners and its drawing. They share ONE page-state object (web/page/state.js:
// the controls' and the link's settings, the model's and the photo's results) and call
// each other's exported functions; no module does anything when imported: the bind*()
// calls below attach the listeners, then boot() opens the model. All heavy work happens in
// web/worker.js; the page only draws.
import { state, timeline } from './page/state.js';
import { bindStatus } from './page/status.js';
import { bindModel, boot, benchForward } from './page/model.js';
import { runtimeStats } from './vit-relevance.js';
import { bindAnalysis } from './page/analysis.js';
import { bindPhotoInput, loadSamples } from './page/photo-input.js';
import { bindClasses } from './page/classes.js';
import { bindSettings } from './page/settings.js';
import { bindReadout } from './page/tiles.js';
import { bindDownloads } from './page/downloads.js';
import { bindLink } from './page/link.js';
import { siteFiles } from './lib/site-files.js';

bindStatus();
bindLink();
bindAnalysis();
bindClasses();
bindSettings();
bindReadout();
bindDownloads();
bindPhotoInput();
bindModel();

// Hooks for the benchmark and the browser tests that time or count the Worker's work,
// through the public API (the tests otherwise read the page's DOM: data-* states on the
// body, the views' canvases and the panels). photoBitmap: the decoded photo, which tests/browser/trust.test.js compares
// with PIL's decoding.
window.__vitrel = { timeline, benchForward, workerStats: runtimeStats, photoBitmap: () => state.photo?.bitmap ?? null };

loadSamples();
boot(siteFiles(import.meta.url)); // app.js sits where the site's files are found from
