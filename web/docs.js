// The example page shows the code of each live example: the markup of a demo block as it
// stands in docs.html, or the text of the script file that ran.
for (const code of document.querySelectorAll('code[data-source]')) {
  const demo = document.querySelector(code.dataset.source);
  code.textContent = demo.innerHTML.replace(/^\n+|\s+$/g, '').replaceAll('&amp;', '&');
}
for (const code of document.querySelectorAll('code[data-file]')) {
  fetch(code.dataset.file)
    .then((r) => (r.ok ? r.text() : Promise.reject(new Error(`HTTP ${r.status}`))))
    .then((text) => { code.textContent = text; }, (err) => { code.textContent = `(could not load ${code.dataset.file}: ${err.message})`; });
}
