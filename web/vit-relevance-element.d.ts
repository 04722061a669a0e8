// The <vit-relevance> custom element ("vit-relevance/element"): importing it defines the element.
import type { BrowserExplainResult as ExplainResult } from './vit-relevance.js';

export interface VitRelevanceEventMap {
  /** The model is ready. */
  load: CustomEvent<{ metadata: import('./vit-relevance.js').ExplainerMetadata }>;
  /** Bytes of the model files downloaded. */
  progress: CustomEvent<{ loaded: number; total: number }>;
  explained: CustomEvent<ExplainResult>;
  error: CustomEvent<{ message: string }>;
}

export class VitRelevanceElement extends HTMLElement {
  src: string | null;
  model: string | null;
  target: string | null;
  contrast: string | null;
  /** One method id, or several separated by commas (a small grid). */
  method: string;
  colormap: string;
  opacity: string;
  threshold: string;
  display: string;
  /** Colour scale: "auto" (signed for lrp_full, attnlrp, cp_lrp and contrasts), "positive" (min-max) or "signed" (0 white, blue < 0 < red). */
  scale: string;
  startLayer: string;
  view: string;
  controls: string;
  loading: string;
  backend: string;
  /** The last explanation. */
  readonly result: ExplainResult | null;
  /** Runs the explanation now (whatever `loading` says). */
  explain(): Promise<ExplainResult>;
  addEventListener<K extends keyof VitRelevanceEventMap>(type: K, listener: (this: VitRelevanceElement, ev: VitRelevanceEventMap[K]) => unknown, options?: boolean | AddEventListenerOptions): void;
  addEventListener(type: string, listener: EventListenerOrEventListenerObject, options?: boolean | AddEventListenerOptions): void;
}

declare global {
  interface HTMLElementTagNameMap { 'vit-relevance': VitRelevanceElement }
}
