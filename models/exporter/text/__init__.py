"""Text classifiers (Hugging Face BERT and DistilBERT sequence classifiers): the reader,
the explainer graph over S tokens (S dynamic), the attribution graphs and the export.
The LRP rules, LayerNorm and activation algebra are the ViT exporter's (lrp_rules.py,
forward.py, backward.py, attnlrp.py); what differs is here: post-LN layers, the
embeddings, the pooler and the heads."""
