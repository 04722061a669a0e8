// The model's controls: the backend picker (with WebGPU where this browser offers it), the
// model picker (web/page/model-picker.js) and the load's bar, shown from the state; opening
// a model is an intent (the controller loads it: web/page/model-load.js).
import { webGpuOffer } from '../lib/webgpu-adapter.js';
import { $, page, state, link, showError, addNotices } from './state.js';
import { createModelPicker } from './model-picker.js';

// The WebGPU option, labelled (and explained in its tooltip) when the adapter is software.
async function offerWebGpu() {
  const offer = await webGpuOffer();
  if (!offer) return;
  const option = new Option(offer.label, 'webgpu');
  option.dataset.software = String(offer.software);
  if (offer.reason) option.title = offer.reason;
  $('backend-select').append(option);
}

// The download's bar, shown only while bytes come from the network.
function showLoad() {
  const load = state.load;
  if (!load) {
    $('load-progress').hidden = true;
    $('load-bar').value = 0;
    return;
  }
  const { loaded, total } = load;
  if (!loaded) return;
  if (loaded < total) $('load-progress').hidden = false; // a real download, not the cache
  $('load-bar').value = total ? loaded / total : 0;
  $('load-text').textContent = `${(loaded / 1048576).toFixed(1)}${total ? ` / ${(total / 1048576).toFixed(1)}` : ''} MB`;
}

// The picker: the site's models and those kept in this browser, once the link is read.
async function pickModel() {
  const picker = createModelPicker({
    box: $('model-box'), select: $('model-select'), openButton: $('model-open'), folderInput: $('model-folder'), removeButton: $('model-remove'),
    siteBase: state.site.models.href, link, onError: showError, onNotice: (text) => addNotices(text), statusLine: $('engine-status'),
    open: (entry, base, { verify = false } = {}) => page.dispatch('open-model', { entry, base, verify }),
  });
  await picker.load(); // opens the linked model, else the first
  addNotices();
}

export function bindModel() {
  offerWebGpu(); // never the default: WebAssembly stays selected
  $('backend-select').addEventListener('change', (e) => page.dispatch('backend', e.target.value));
  page.subscribe(['backend'], () => { $('backend-select').value = state.backend; });
  page.subscribe(['model'], () => { $('backend-select').disabled = false; });
  page.subscribe(['load'], showLoad);
  page.subscribe(['site'], pickModel);
}
