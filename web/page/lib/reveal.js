// Brings a result into view when it lies below the first screen: after a photo is chosen
// on a phone the photo panel fills the screen and the prediction and map come 1,000 px
// down. Where it is already in view (a wide window's columns) nothing moves.
export function reveal(element) {
  if (!element) return;
  const { top } = element.getBoundingClientRect();
  if (top >= 0 && top < window.innerHeight * 0.6) return;
  const smooth = !window.matchMedia('(prefers-reduced-motion: reduce)').matches;
  element.scrollIntoView({ block: 'start', behavior: smooth ? 'smooth' : 'auto' });
}
