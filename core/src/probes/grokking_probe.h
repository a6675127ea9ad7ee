// The trainer's side of grokking's progress measures (issue 17; the measures themselves are
// fone/analysis/grokking.h): at every evaluation of a mod-add run whose answers are one token per residue
// (--method subword for p <= 1000, digit for p <= 10), the p-way logits of all p² ordered pairs (a, b) at
// the answer position, which pairs trained, and the residues' embedding rows. Private to core/src/ (probes,
// train).
#pragma once

#include <memory>
#include <vector>

#include <torch/torch.h>
#include <nlohmann/json.hpp>

#include "checkpoints/run_model.h"

namespace fone {

// Above it the measures are not taken: every evaluation answers all p² pairs and keeps p³ logits (p = 257:
// 66,049 prompts, 136 MB of logits), which would outweigh the training it accompanies.
inline constexpr int kMaxGrokkingModulus = 257;

class GrokkingProbe {
  public:
    // nullptr for a run the measures do not apply to: not mod-add, a hidden-state method (FoNE's answer is
    // digits, not one of p tokens), a text run, p above kMaxGrokkingModulus, or a residue or an answer that
    // is not one token.
    static std::unique_ptr<GrokkingProbe> make(const RunModel& run);

    // analysis::grokking_json of the model as it is now (no gradients).
    nlohmann::json measure(FoneTransformer& model, const torch::Device& device) const;

  private:
    int p_ = 0;
    Batch pairs_;                   // the p² pairs, row a·p + b, teacher-forced like training
    torch::Tensor answer_rows_;     // [p²] the flat (row, position) whose output predicts the answer
    torch::Tensor residue_tokens_;  // [p] token of residue c
    std::vector<bool> trained_;     // [p²] the pair (or its swap, with swap_operands) trained
};

}  // namespace fone
