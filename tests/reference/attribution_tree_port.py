"""A straight Python port of the official attribution_tree.py loop (YRdddream/attattr),
written from reading it, generalised from its 12 layers to B: the test oracle for the
core's attribution_tree (tests/node/attribution-tree.test.js).

  /usr/bin/python3 tests/reference/attribution_tree_port.py ATTR.npy [THRESHOLD]
prints {"top", "edges": [[i, j, block]...], "nodes"} for Attr [B,h,S,S].

Differences from the original, none of which changes its result on real data: the block
of each edge is recorded; argsort is stable (NumPy's default quicksort may order equal
row sums either way); a zero normaliser leaves zeros instead of NaN; no drawing.
"""
import json
import sys

import numpy as np


def attribution_tree(attr, threshold=0.4):
    att_all = attr.astype(np.float64).sum(1)  # [B, S, S], summed over heads
    layers = len(att_all)
    proportion_all = att_all.copy()
    for i in range(layers):
        peak = abs(proportion_all[i][1:, :].max())
        proportion_all[i] = proportion_all[i] / peak if peak else 0 * proportion_all[i]
    proportion_all *= (proportion_all > threshold).astype(int)

    seq_length = len(proportion_all[0])
    fixed_list = [-1 for _ in range(seq_length)]  # -1 absent, 0 appears, 1 fixed
    edges, blocks = [], []

    combined = att_all.sum(0)
    peak = abs(combined.max())
    att_combine_layer = combined / peak if peak else 0 * combined
    att_combine_layer *= (1 - np.identity(len(att_combine_layer))) * (att_combine_layer > 0)
    att_combine_layer[0] *= 0
    arg_res = np.argsort(att_combine_layer.sum(-1), kind="stable")[::-1]
    top_token_index = arg_res[0] if arg_res[0] != 0 else arg_res[1]
    fixed_list[top_token_index] = 0
    for i in range(seq_length):
        if i != top_token_index and proportion_all[layers - 2][top_token_index][i] > threshold:
            fixed_list[i] = 0
            fixed_list[top_token_index] = 1
            edges.append((top_token_index, i))
            blocks.append(layers - 2)

    for layer_index in range(layers - 3, -1, -1):
        for i_token in range(1, seq_length):
            for j_token in range(0, seq_length):
                if proportion_all[layer_index][i_token][j_token] < threshold or fixed_list[i_token] == -1:
                    continue
                if fixed_list[j_token] == 1:
                    continue
                if (i_token, j_token) in edges:
                    continue
                if fixed_list[i_token] == 0 and fixed_list[j_token] == 0:
                    continue
                if fixed_list[i_token] == 1 and fixed_list[j_token] == 0:
                    continue
                if fixed_list[i_token] == 0 and fixed_list[j_token] == -1:
                    fixed_list[i_token] = 1
                    fixed_list[j_token] = 0
                if fixed_list[i_token] == 1 and fixed_list[j_token] == -1:
                    fixed_list[j_token] = 0
                edges.append((i_token, j_token))
                blocks.append(layer_index)
    return {"top": int(top_token_index),
            "edges": [[int(i), int(j), b] for (i, j), b in zip(edges, blocks)],
            "nodes": [i for i, f in enumerate(fixed_list) if f != -1]}


if __name__ == "__main__":
    tau = float(sys.argv[2]) if len(sys.argv) > 2 else 0.4
    print(json.dumps(attribution_tree(np.load(sys.argv[1]), tau)))
