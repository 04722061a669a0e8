// write_maps: computes relevance maps with the NATIVE build of the core and prints them as
// JSON ({ "<method id>": { "shape": [rows, cols], "data": [...] } }, floats with 9
// significant digits, i.e. exact float32). The Node tests run it on the same .npy files
// as `vit-relevance maps` to check the WebAssembly build returns the same numbers.
//
// usage: write_maps [--<tensor id> FILE.npy]... [--grid R C] [--special-tokens N]
//                   [--start-layer N] [--method all|id,id]
// Tensors go by their ids (--attn, --attn_grad, ...: registry.h), not the CLI's flags.

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "methods/relevance.h"
#include "support/npy_reader.h"

using namespace vitrel;

int main(int argc, char** argv) {
  std::vector<test::NpyArray> arrays;  // owns what `in` views
  RelevanceInputs in;
  TokenLayout layout{14, 14, 1};
  MethodOptions options;
  std::string method_list = "all";
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string arg = argv[i];
      auto next = [&]() -> std::string {
        if (i + 1 >= argc) throw std::runtime_error(arg + " needs a value");
        return argv[++i];
      };
      if (arg == "--grid") {
        layout.grid_rows = std::atoi(next().c_str());
        layout.grid_cols = std::atoi(next().c_str());
      } else if (arg == "--special-tokens") {
        layout.special_tokens = std::atoi(next().c_str());
      } else if (arg == "--start-layer") {
        options.start_layer = std::atoi(next().c_str());
      } else if (arg == "--method") {
        method_list = next();
      } else if (arg.rfind("--", 0) == 0) {
        const Tensor t = from_id<Tensor>(arg.substr(2));
        arrays.push_back(test::read_npy(next()));
        in[t] = arrays.back().view();
      } else {
        throw std::runtime_error("unexpected argument " + arg);
      }
    }
    std::vector<Method> methods;
    if (method_list == "all") {
      for (Method m : all_values<Method>())
        if (has_inputs_for(m, in)) methods.push_back(m);
    } else {
      std::stringstream ss(method_list);
      for (std::string id; std::getline(ss, id, ',');) methods.push_back(from_id<Method>(id));
    }
    const std::vector<RelevanceMap> maps = compute_relevance_maps(methods, in, layout, options);
    std::printf("{");
    for (size_t k = 0; k < maps.size(); ++k) {
      std::printf("%s\n\"%s\": {\"shape\": [%d, %d], \"data\": [", k ? "," : "", to_id(methods[k]),
                  maps[k].rows, maps[k].cols);
      for (size_t j = 0; j < maps[k].data.size(); ++j)
        std::printf("%s%.9g", j ? "," : "", maps[k].data[j]);
      std::printf("]}");
    }
    std::printf("\n}\n");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "write_maps: %s\n", e.what());
    return 1;
  }
  return 0;
}
