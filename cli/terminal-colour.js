// Colours in the terminal, where it shows them: a TTY, and NO_COLOR (no-color.org) not set
// to a non-empty value. 24-bit colour where COLORTERM says so, else the 256-colour cube.

/** @param {NodeJS.WriteStream} stream */
export function colourSupported(stream, env = process.env) {
  return Boolean(stream.isTTY) && !env.NO_COLOR;
}

const cube = (v) => (v < 48 ? 0 : v < 115 ? 1 : Math.floor((v - 35) / 40));

// `text` on the background [r, g, b] (dark backgrounds get white text).
export function onBackground(text, [r, g, b], env = process.env) {
  const bg = /truecolor|24bit/i.test(env.COLORTERM ?? '') ? `48;2;${r};${g};${b}` : `48;5;${16 + 36 * cube(r) + 6 * cube(g) + cube(b)}`;
  const fg = 0.299 * r + 0.587 * g + 0.114 * b > 140 ? '30' : '97';
  return `\x1b[${bg};${fg}m${text}\x1b[0m`;
}
