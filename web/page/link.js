// The link: the address bar follows the page, so a link reopens this view
// (web/lib/url-state.js); what the page could not take from its link is said on the page.
import { $, state, link } from './state.js';
import { compare, comparePicker } from './photo-input.js';

export function writeLink() {
  link.write(state, { model: state.model?.name, photo: state.photo?.name, photo2: compare.photo?.name });
}

const linkNotes = [];
export function showLinkNotices(...more) {
  const ignored = link.drainNotices();
  if (ignored.length) linkNotes.push(`Ignored from the link: ${ignored.join('; ')}.`);
  linkNotes.push(...more);
  $('link-notice-text').textContent = linkNotes.join(' ');
  $('link-notice').hidden = !linkNotes.length;
}

// The link's photos: samples open at once; an uploaded photo cannot come back by link.
export function openLinkedPhotos(samples) {
  const notes = [];
  for (const key of ['photo', 'photo2']) {
    const name = link.checked(key);
    if (name === undefined) continue;
    if (!samples.includes(name)) {
      notes.push(`The link names the photo “${name}”, which is not one of the samples: a photo you upload stays on your device, so a link cannot bring it back. `
        + `Choose “${name}” again ${key === 'photo' ? 'to see the linked view' : 'as the second photo'}.`);
      if (key === 'photo2') link.forget(key);
    } else if (key === 'photo') {
      $('gallery').querySelector(`button[data-sample="${CSS.escape(name)}"]`).click();
    } else {
      link.forget(key);
      comparePicker.choose(name);
    }
  }
  showLinkNotices(...notes);
}

export function bindLink() {
  $('link-notice-close').addEventListener('click', () => { linkNotes.length = 0; $('link-notice').hidden = true; });
}
