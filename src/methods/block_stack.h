#pragma once
// Internal: an already validated [blocks, heads, tokens, tokens] float tensor, addressed
// by (block, head, query row). A [heads, tokens, tokens] tensor is a stack of one block.

#include <cstdint>

namespace vitrel {

struct BlockStack {
  const char* name = "";  // the argument it came from, for messages
  const float* data = nullptr;
  int blocks = 0;
  int heads = 0;
  int tokens = 0;

  bool empty() const { return data == nullptr; }

  int64_t block_numel() const { return static_cast<int64_t>(heads) * tokens * tokens; }
  const float* block(int b) const { return data + b * block_numel(); }

  // The length-`tokens` row i of head k of block b: how token i attends to every token.
  const float* row(int b, int k, int i) const {
    return data + ((static_cast<int64_t>(b) * heads + k) * tokens + i) * tokens;
  }
};

}  // namespace vitrel
