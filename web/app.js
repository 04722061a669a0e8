// The page: one controller (web/page/controller.js) owns the flow model → photo →
// explanation → maps and writes what each step gives into one store that announces
// changes (web/page/state.js). The feature modules of web/page/ (status, link, model,
// photo input, classes, settings, attribution panel, views, readout, downloads, the text
// input and the text view) each own
// their part of the DOM: they show the state as it changes and ask the controller for
// changes by intents; none imports another (the views draw with web/page/tiles.js, which
// no other imports). No module does anything when imported: the bind*() calls below
// subscribe the features, then the controller starts. All heavy work
// happens in web/worker.js; the page only draws.
import { state, timeline } from './page/state.js';
import { startController, benchForward } from './page/controller.js';
import { runtimeStats } from './vit-relevance.js';
import { bindStatus } from './page/status.js';
import { bindLink } from './page/link.js';
import { bindModel } from './page/model.js';
import { bindPhotoInput, loadSamples } from './page/photo-input.js';
import { bindClasses } from './page/classes.js';
import { bindSettings } from './page/settings.js';
import { bindAttribution } from './page/attribution.js';
import { bindReadout } from './page/readout.js';
import { bindViews } from './page/views.js';
import { bindDownloads } from './page/downloads.js';
import { bindTextInput } from './page/text-input.js';
import { bindTextView } from './page/text-view.js';
import { siteFiles } from './lib/site-files.js';

bindStatus();
bindModel();
bindPhotoInput();
bindClasses();
bindSettings();
bindAttribution();
bindReadout();
bindViews();
bindDownloads();
bindTextInput();
bindTextView();
bindLink();

// Hooks for the benchmark and the browser tests that time or count the Worker's work,
// through the public API (the tests otherwise read the page's DOM: data-* states on the
// body, the views' canvases and the panels). photoBitmap: the decoded photo, which tests/browser/trust.test.js compares
// with PIL's decoding.
window.__vitrel = { timeline, benchForward, workerStats: runtimeStats, photoBitmap: () => state.photo?.bitmap ?? null };

loadSamples();
startController(siteFiles(import.meta.url)); // app.js sits where the site's files are found from
