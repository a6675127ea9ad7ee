// How a run's model represents numbers, for the analyses (Fourier spectra, PCA, probes; docs/analysis.md).
#pragma once

#include <string>
#include <vector>

#include "fone/numbers/decimal.h"

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
// Throws std::invalid_argument for a number the run cannot take (too many digits for its slots; for token
// methods, a number that is not one of its tokens) and RunError for an unreadable run.
NumberRepresentations number_representations(const std::string& run_dir, const std::vector<Decimal>& numbers,
                                             int threads = 0);

}  // namespace fone
