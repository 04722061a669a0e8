// @ts-check
// load() → a function giving the Promise of its one load; a failed load is forgotten, so
// the next call tries again. For what the Worker loads on first need.
export function onceRetrying(load) {
  let loading = null;
  const get = () => {
    if (!loading) {
      loading = load();
      loading.catch(() => { loading = null; });
    }
    return loading;
  };
  get.started = () => loading; // the load under way or done, without starting one
  return get;
}
