// @ts-check
// The one error type for mistakes a user can fix (a missing file, a bad option, a run
// folder holding other data...): the CLI prints its message as one line, without a stack,
// and exits with its exitCode; anything else is a bug. Environment-neutral (no Node
// imports), so the page and the Worker can throw and recognise it too.
export class UserError extends Error {
  constructor(message, { exitCode = 1 } = {}) {
    super(message);
    this.name = 'UserError';
    this.exitCode = exitCode;
  }
}
