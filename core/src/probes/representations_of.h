// number_representations' work on a model already open (the trainer's snapshots use it mid-training).
// Private to core/src/probes/.
#pragma once

#include <vector>

#include <torch/torch.h>

#include "fone/probes/representations.h"
#include "nn/model.h"
#include "schemes/scheme.h"
#include "schemes/scheme_parts.h"

namespace fone {

// Token methods' number tokens follow the shared words and ".".
inline constexpr int64_t kFirstNumberToken = kBaseVocab + 1;

// Whether a scheme's numbers are read from hidden states at a number token (fone, fone-direct, xval) rather
// than from token embeddings (digit, subword, ...).
bool uses_hidden_states(const ModelHeads& heads);

// The representations of `numbers` under the model (in eval mode or not: the model has no dropout).
NumberRepresentations representations_of(FoneTransformer& model, const NumberScheme& scheme,
                                         const torch::Device& device, const std::vector<Decimal>& numbers);

}  // namespace fone
