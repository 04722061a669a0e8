// Every way a photo gets in: file picker, drag and drop, paste, and the sample gallery.
// Each hands a Blob (with a name) to `onPhoto`.

export function bindPhotoSources({ dropzone, fileInput, gallery, onPhoto, onError }) {
  const take = (file) => { if (file) onPhoto(file, file.name || 'pasted image'); };

  dropzone.addEventListener('click', () => fileInput.click());
  dropzone.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); fileInput.click(); }
  });
  fileInput.addEventListener('change', () => {
    take(fileInput.files[0]);
    fileInput.value = ''; // choosing the same file again must fire again
  });

  // Drops anywhere on the page count; the zone only highlights.
  let depth = 0;
  document.addEventListener('dragenter', (e) => { e.preventDefault(); depth++; dropzone.classList.add('over'); });
  document.addEventListener('dragleave', () => { if (--depth <= 0) { depth = 0; dropzone.classList.remove('over'); } });
  document.addEventListener('dragover', (e) => e.preventDefault());
  document.addEventListener('drop', (e) => {
    e.preventDefault();
    depth = 0;
    dropzone.classList.remove('over');
    const file = e.dataTransfer?.files?.[0];
    if (file) take(file);
    else onError('Nothing to use in that drop: drop an image file.');
  });

  document.addEventListener('paste', (e) => {
    if (e.target instanceof HTMLInputElement && e.target.type === 'text') return; // class search
    const item = [...(e.clipboardData?.items ?? [])].find((i) => i.kind === 'file');
    if (!item) return;
    e.preventDefault();
    const file = item.getAsFile();
    take(file && (file.name ? file : new File([file], 'pasted image', { type: file.type })));
  });

  return { loadGallery: (names) => fillGallery(gallery, names, onPhoto, onError) };
}

function fillGallery(list, names, onPhoto, onError) {
  list.replaceChildren(...names.map((name) => {
    const li = document.createElement('li');
    const button = document.createElement('button');
    button.type = 'button';
    button.dataset.sample = name;
    button.setAttribute('aria-pressed', 'false');
    button.setAttribute('aria-label', `Sample photo ${name}`);
    const img = document.createElement('img');
    img.src = `samples/${encodeURIComponent(name)}`;
    img.alt = '';
    img.loading = 'lazy';
    button.append(img);
    button.addEventListener('click', async () => {
      for (const b of list.querySelectorAll('button')) b.setAttribute('aria-pressed', String(b === button));
      try {
        const response = await fetch(img.src);
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
        onPhoto(await response.blob(), name);
      } catch (err) {
        onError(`Could not load the sample ${name}: ${err.message}`);
      }
    });
    li.append(button);
    return li;
  }));
}
