// Types shared by the browser entry (web/vit-relevance.d.ts) and the Node entry
// (runtime/node/index.d.ts) of the public API.

/** A relevance map, row-major: data.length === shape[0] * shape[1]. */
export interface RelevanceMap {
  shape: [number, number];
  data: Float32Array;
  /** A contrast's only: the Pearson r of the two classes' own maps (null when one is constant). Near 1 the method hardly tells the classes apart on this photo, and the contrast is the difference of two near-equal maps. */
  correlation?: number | null;
}

/** A method id (see `methods` of a loaded explainer). */
export type MethodId =
  | 'transformer_attribution' | 'attention_rollout' | 'raw_attention' | 'gradcam' | 'partial_lrp'
  | 'lrp_full' | 'generic_attention' | 'ablation_no_grad' | 'ablation_last_block' | 'ablation_second_block'
  | 'attnlrp' | 'cp_lrp'
  | (string & {});

/** A class: its id, its WordNet id ("n02108422") or one of its names ("bull mastiff"). */
export type ClassSpec = number | string;

/** null: the predicted class; { class, contrast }: why `class` (null: the predicted one) rather than `contrast`. */
export type TargetSpec = ClassSpec | null | { class?: ClassSpec | null; contrast?: ClassSpec | null };

export interface ExplainOptions {
  /** Default: [null], the predicted class. */
  targets?: TargetSpec | TargetSpec[];
  /** Method ids (or one comma-separated string). Default: ['transformer_attribution']. */
  methods?: MethodId[] | string;
  /** First block of the rollouts. Default 0. */
  startLayer?: number;
  signal?: AbortSignal;
}

export interface ClassProbability { id: number; label: string; prob: number }

/** A class named in a request, with where it stands among all classes for this photo. */
export interface ClassStanding extends ClassProbability {
  /** 1 = the most likely class; a class outside the top-5 has its rank too. */
  rank: number;
}

export interface ExplainedTarget extends ClassStanding {
  /** With a contrast, `maps` holds why `id` rather than `contrast`: the two classes' maps, each divided by its largest magnitude, subtracted (docs/contrast.md); methods that read only the attention are left out. */
  contrast?: ClassStanding;
  maps: Record<string, RelevanceMap>;
}

/** The part of the photo the model saw, in photo pixels. */
export interface Region { x: number; y: number; width: number; height: number }

export interface ExplainResult {
  top5: ClassProbability[];
  targets: ExplainedTarget[];
  /** null for an already-normalised input ({ pixels }). */
  region: Region | null;
  width: number | null;
  height: number | null;
  timings: { preprocessMs?: number; modelMs: number; relevanceMs: number; totalMs: number };
}

export interface LoadOptions {
  backend?: 'wasm' | 'webgpu';
  threads?: number;
  /** Bytes of the model files loaded so far. */
  onProgress?: (loaded: number, total: number) => void;
  signal?: AbortSignal;
}

export interface ExplainerMetadata {
  name: string;
  labels: string[];
  label_names?: string[];
  wnids?: string[];
  architecture: { blocks: number; heads: number; patch_size: number; image_size: [number, number]; grid: [number, number]; tokens: number; num_classes: number };
  [field: string]: unknown;
}

/** A method's entry in the core's registry (src/methods/registry.h). */
export interface MethodInfo {
  id: MethodId; name: string; shortName: string; description: string; paper: string;
  tensors: string[]; startLayer: boolean; tokenRow: boolean;
}

export interface ExplainerBase<Image> {
  metadata: ExplainerMetadata;
  methods: readonly MethodId[];
  /** The registry entry of a method (throws for an unknown id). */
  method(id: MethodId): MethodInfo;
  /** Class id from an id, WordNet id or name; throws naming close matches. */
  classId(spec: ClassSpec): number;
  label(id: number): string;
  explain(image: Image, options?: ExplainOptions): Promise<ExplainResult>;
  close(): void | Promise<void>;
}

export interface RenderOptions {
  colormap?: 'jet' | 'viridis' | 'inferno' | 'turbo' | 'gray' | 'rdbu';
  /** 'positive' (default): min-max; 'signed': 0 white, blue < 0 < red (the rdbu colormap, whatever `colormap` says). */
  scale?: 'positive' | 'signed';
  /** Opacity of the map over the photo, 0..1. */
  opacity?: number;
  threshold?: 'none' | 'mean' | 'otsu';
  display?: 'smooth' | 'grid';
  /** Longest side of the image returned without a photo (default 224, the map in its own proportions); with a photo the image is the photo's size. */
  size?: number;
  region?: Region | null;
}
