// Browser / Worker entry of the public API ("vit-relevance").
import type { ExplainerBase, ExplainOptions, ExplainResult, LoadOptions, RelevanceMap, RenderOptions, Region, ClassProbability } from '../runtime/explain-types.js';
export type * from '../runtime/explain-types.js';

/** What explain() and open() take in the browser. A string is a URL (relative to the document). */
export type BrowserImage = Blob | ImageBitmap | HTMLImageElement | ImageData | string | URL;

/** A browser explanation: also the backend that ran and what the maps leave out. */
export interface BrowserExplainResult extends ExplainResult {
  /** The backend that ran: 'wasm' where 'webgpu' was asked for but cannot run. */
  backend: 'wasm' | 'webgpu';
  /** Sentences: methods a contrast left out (they cannot contrast), and the explainer's backendNote. */
  notes: string[];
}

/** A photo decoded once, kept in the Worker for several explanations. */
export interface Photo {
  readonly width: number;
  readonly height: number;
  readonly bitmap: ImageBitmap;
  /** After the first explain(). */
  readonly top5: ClassProbability[] | null;
  readonly region: Region | null;
  explain(options?: ExplainOptions): Promise<BrowserExplainResult>;
  /** Frees its tensors in the Worker. */
  close(): void;
}

export interface Explainer extends ExplainerBase<BrowserImage> {
  /** The backend that runs (see backendNote). */
  backend: 'wasm' | 'webgpu';
  /** Why the backend that runs is not the one asked for (no WebGPU here, or the page's model already open on WebAssembly); null when it is. */
  backendNote: string | null;
  threads: number;
  explain(image: BrowserImage, options?: ExplainOptions): Promise<BrowserExplainResult>;
  open(image: BrowserImage, options?: { signal?: AbortSignal }): Promise<Photo>;
  close(): void;
}

export interface BrowserLoadOptions extends LoadOptions {
  /** URL of a built models folder, or of one model's metadata JSON. Default: the site's models/. */
  model?: string | URL;
}

/** Loads (once per page) and opens a model in the page's shared inference Worker. */
export function loadExplainer(options?: BrowserLoadOptions): Promise<Explainer>;

/** A pixel map's patch map (attnlrp, cp_lrp, lrp_full): its sum over each patch of `grid` = [rows, cols] (metadata.architecture.grid), signed. */
export function patchMap(map: RelevanceMap, grid: [number, number]): Promise<RelevanceMap>;

/** The map as an image, drawn as the page draws it (the core's heat image); with `photo` drawn over it at `opacity`, at the photo's size. */
export function render(map: RelevanceMap, options?: RenderOptions & {
  photo?: { bitmap?: CanvasImageSource; image?: CanvasImageSource; width: number; height: number } | ImageBitmap;
}): Promise<ImageData>;

/** What the page's shared Worker holds and has done (for checking that embeds share it). */
export function runtimeStats(): Promise<{ sessions: number; graphRuns: number; photos: number; workerId: string }>;

/** Loads the WebAssembly core render() uses (once). */
export function loadRenderer(): Promise<unknown>;

