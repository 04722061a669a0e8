// Node entry of the public API ("vit-relevance/node").
import type { ExplainerBase, LoadOptions, RelevanceMap, RenderOptions } from '../explain-types.js';
export type * from '../explain-types.js';

/** A photo file path, an encoded photo, or an already-normalised input (3·H·W floats). */
export type NodeImage = string | Uint8Array | { pixels: Float32Array };

export interface NodeExplainer extends ExplainerBase<NodeImage> {
  engine: 'web' | 'node';
  close(): Promise<void>;
}

export interface NodeLoadOptions extends Omit<LoadOptions, 'backend'> {
  /** An explainer graph .onnx (metadata .json beside it) or a models folder. Default: the package's build/models. */
  model?: string;
  /** 'web': onnxruntime-web as in the page (default); 'node': onnxruntime-node; 'auto'. */
  engine?: 'web' | 'node' | 'auto';
}

export function loadExplainer(options?: NodeLoadOptions): Promise<NodeExplainer>;

/** A pixel map's patch map (attnlrp, cp_lrp, lrp_full): its sum over each patch of `grid` = [rows, cols] (metadata.architecture.grid), signed. */
export function patchMap(map: RelevanceMap, grid: [number, number]): Promise<RelevanceMap>;

/** RGBA pixels of the map, drawn as the page draws it (core.renderHeat); with `photo`, drawn over it at the photo's size (the photo shows where the threshold removes the map). */
export function render(map: RelevanceMap, options?: RenderOptions & {
  photo?: { rgba: Uint8Array | Uint8ClampedArray; width: number; height: number };
}): Promise<{ data: Uint8ClampedArray; width: number; height: number }>;
