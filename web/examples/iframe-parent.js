// Put this on the page that embeds embed.html in <iframe>s: each frame gets the height of
// its content (and you can listen for its explanation too).
window.addEventListener('message', (event) => {
  if (event.data?.source !== 'vit-relevance') return;
  for (const frame of document.querySelectorAll('iframe')) {
    if (frame.contentWindow !== event.source) continue;
    if (event.data.type === 'size') frame.style.height = `${event.data.height}px`;
    if (event.data.type === 'explained') frame.dataset.top1 = event.data.result.top5[0].label;
  }
});
