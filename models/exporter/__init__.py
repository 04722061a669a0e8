"""ViT/DeiT checkpoint -> explainer graph (ONNX) + metadata JSON; CLI in models/export.py.

Kept empty of imports on purpose: the build's up-to-date check imports parts of this
package and must not pay for loading PyTorch.
"""
