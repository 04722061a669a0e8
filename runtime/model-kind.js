// @ts-check
// The kind of model a metadata file describes (`kind`: "image", the default, or "text"),
// which decides whether an explainer reads photos or texts, and the one line that refuses
// an input of the other kind. Environment-neutral; small, so the photo path's scripts
// carry it without the text models' own checks (runtime/text-metadata.js).

export const MODEL_KINDS = ['image', 'text'];

// 'text' or 'image' (the field is absent on image models).
export const modelKind = (metadata) => metadata?.kind ?? 'image';

// The one line for an input of the wrong kind, or null when it fits: `given` is 'text' or
// 'image' (a photo, pixels), `name` the model's.
export function kindMismatch(metadata, given, name = metadata.name) {
  const kind = modelKind(metadata);
  if (kind === given) return null;
  return kind === 'text'
    ? `${name} is a text model: it explains texts, not photos (give a string, or --text / --text-file in the CLI)`
    : `${name} is an image model: it explains photos, not texts (a text needs a text model, e.g. bert-mini-sst2-movies)`;
}
