// Adds up the pass/fail/skip counts that ctest, pytest, node:test and scripts/fuzz.js
// print, so `npm test` ends with one plain line: "tests: N passed, N failed, N skipped".
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const lastNumber = (text, re) => {
  const all = [...text.matchAll(re)];
  return all.length ? Number(all[all.length - 1][1]) : 0;
};

function countsOf(text) {
  const fuzz = text.match(/^fuzz targets: (\d+) passed, (\d+) failed/m);  // scripts/fuzz.js
  if (fuzz) return { passed: Number(fuzz[1]), failed: Number(fuzz[2]), skipped: 0 };
  const ctest = text.match(/tests passed, (\d+) tests? failed out of (\d+)/);
  if (ctest) {
    const failed = Number(ctest[1]);
    const skipped = lastNumber(text, /(\d+) tests? (?:were |was )?(?:not run|skipped)/g);
    return { passed: Number(ctest[2]) - failed - skipped, failed, skipped };
  }
  if (/^# pass \d+/m.test(text)) {
    return {
      passed: lastNumber(text, /^# pass (\d+)/gm),
      failed: lastNumber(text, /^# fail (\d+)/gm),
      skipped: lastNumber(text, /^# skipped (\d+)/gm),
    };
  }
  const pytest = text.match(/^=*\s*(.*\b(?:passed|failed|skipped|error)\b.*) in [\d.]+s/m);
  if (pytest) {
    const n = (word) => Number((pytest[1].match(new RegExp(`(\\d+) ${word}`)) || [0, 0])[1]);
    return { passed: n('passed'), failed: n('failed') + n('error'), skipped: n('skipped') };
  }
  return { passed: 0, failed: 0, skipped: 0 };
}

const dir = process.argv[2];
const total = { passed: 0, failed: 0, skipped: 0 };
for (const file of readdirSync(dir).sort()) {
  const c = countsOf(readFileSync(path.join(dir, file), 'utf8'));
  console.log(`${path.basename(file, '.log')}: ${c.passed} passed, ${c.failed} failed, ${c.skipped} skipped`);
  for (const k of Object.keys(total)) total[k] += c[k];
}
console.log(`tests: ${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped`);
