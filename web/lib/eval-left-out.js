// Stands in for runtime/core-eval.js in the site's bundles (scripts/build/bundle.js): the
// paper's evaluations run in Node only (`vit-relevance eval`), so the page, the API and the
// element ship without them, and their core has no evaluation functions.
export const evalApi = () => ({});
