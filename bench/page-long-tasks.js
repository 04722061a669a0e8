// Main-thread long tasks (over 50 ms, as the browser's 'longtask' entries report them)
// while the page reads and shows a large photo, in the single view and in the grid view
// (bench/browser.js). The observer is installed before the page's scripts run.
import sharp from 'sharp';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { untilPage } from './page-state.js';

export const OBSERVE_LONG_TASKS = () => {
  window.__longTasks = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) window.__longTasks.push({ start: e.startTime, ms: e.duration });
  }).observe({ type: 'longtask', buffered: true });
};

// A photo of width×height with the detail of a real one (a sample scaled up), as a JPEG
// file named `name` in a fresh temporary folder → its path. A file on disk, not a buffer:
// playwright builds a buffer's File in the page's JavaScript, itself a long task.
export async function largePhoto(samplePath, width, height, name) {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'vitrel-large-')), name);
  await sharp(readFileSync(samplePath)).resize(width, height, { fit: 'fill' }).jpeg({ quality: 90 }).toFile(file);
  return file;
}

// Chooses the photo file in `view` ('single' or 'grid') and waits for its first heat map;
// → the long tasks (ms) from choosing it to the heat map being drawn.
export async function longTasksWhileShowing(page, file, view) {
  const name = path.basename(file);
  await page.click(`[role="tab"][data-view="${view}"]`);
  const from = await page.evaluate(() => performance.now());
  await page.setInputFiles('#file-input', file);
  await untilPage(page, ([n, v]) => document.body.dataset.photo === n
    && document.querySelector(`#view-${v} canvas[data-rendered="heat"]`), [name, view], { timeout: 180_000 });
  await page.waitForTimeout(300); // let a task still running end and be reported
  return page.evaluate((t) => window.__longTasks.filter((e) => e.start >= t).map((e) => Math.round(e.ms)), from);
}
