// The JavaScript API: explain a photo for two classes and draw each map over the photo.
import { loadExplainer, render } from '../vit-relevance.js';

const explainer = await loadExplainer(); // default: the models/ folder beside vit-relevance.js
const photo = await explainer.open('samples/catdog.png');
const result = await photo.explain({ targets: ['bull mastiff', 'tiger cat'] });
for (const target of result.targets) {
  const image = await render(target.maps.transformer_attribution, {
    photo: photo.bitmap, region: result.region, opacity: 0.6, size: 224,
  });
  const canvas = document.createElement('canvas');
  canvas.width = image.width;
  canvas.height = image.height;
  canvas.getContext('2d').putImageData(image, 0, 0);
  canvas.setAttribute('role', 'img');
  canvas.setAttribute('aria-label', `Relevance map for ${target.label}`);
  document.querySelector('#api-output').append(canvas);
}
photo.close();
