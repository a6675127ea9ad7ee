// How a model represents numbers, as the analyses read it (Fourier spectra, PCA, probes; docs/analysis.md).
// Plain data: a trained run's come from fone/probes/representations.h, a model folder's from
// fone/hf/forward.h.
#pragma once

#include <string>
#include <vector>

namespace fone {

// Number-token methods (fone, fone-direct, xval): the residual stream at the number's position for the
// prompt "[BOS] x", after the input embedding (layer 0) and after every block (layer L, before the final
// norm). Token methods (digit, subword, ...): the embedding rows of the number tokens that spell x
// exactly as one token ("7"; "123" for subword), one layer.
struct NumberRepresentations {
    std::string source;                                   // "hidden_states" or "token_embeddings"
    std::vector<std::string> numbers;                     // as given, canonical
    std::vector<std::vector<std::vector<float>>> layers;  // [layer][number][dimension]
};

}  // namespace fone
