// The per-piece losses of a text model on one document (fone/train/token_loss.h opens the runs). Private
// to core/src/train/ and the tests.
#pragma once

#include <torch/torch.h>

#include "fone/analysis/token_loss.h"
#include "schemes/text_scheme.h"

namespace fone {

// The document's pieces (fone/analysis/token_loss.h) with the model's loss on each, teacher-forced over the
// windows the scheme packs the document into (the run's context; one row when it does not pack), so each
// token but the first is scored once, with the context the run trained with. Pieces without a target
// ([BOS]; the prompt of a run whose loss is on answers only) are left out. Fills pieces only.
analysis::DocumentLosses document_losses(const TextLmScheme& scheme, FoneTransformer& model,
                                         const TextExample& document, const torch::Device& device);

}  // namespace fone
