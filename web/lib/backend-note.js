// A result with its explainer's backend note first (why the backend that ran is not the
// one asked for): photos are shared between the explainers of one model, which may have
// asked for different backends, so the note is the explainer's, not the photo's.
export const withBackendNote = (result, note) => (note ? { ...result, notes: [note, ...result.notes] } : result);
