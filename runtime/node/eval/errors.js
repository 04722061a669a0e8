// The error evaluations throw for mistakes the user can fix (a missing folder, a label
// file naming unknown classes, a run folder holding other settings...). Its name is one
// the CLI prints as a single line without a stack (cli/vit-relevance.js isUserError).
export class EvalError extends Error {
  constructor(message) {
    super(message);
    this.name = 'InputError';
  }
}

// "a, b, c, d, e and 7 more": long lists of files in one readable line.
export function listSome(names, max = 5) {
  const shown = names.slice(0, max).join(', ');
  return names.length > max ? `${shown} and ${names.length - max} more` : shown;
}
