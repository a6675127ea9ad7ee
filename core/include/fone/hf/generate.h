// Text from a pretrained model folder (fone/pretrained/model_folder.h): greedy or sampled continuation of a
// prompt's token ids, with a KV cache so that each new token runs one position through the model. The
// forward is the one of fone/hf/forward.h (core/src/hf/decoder.cpp), in float32 on the CPU, every family the
// reader knows. Plain C++ here; `fone model generate` and `fone eval --benchmark arithmetic` use it.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "fone/pretrained/model_folder.h"
#include "fone/pretrained/tokenizer.h"

namespace fone::pretrained {

struct GenerationSettings {
    double temperature = 0.0;  // <= 0: greedy (the most probable token, the first of equal maxima)
    int top_k = 0;             // > 0: sample among the k most probable tokens only
    int max_new_tokens = 32;   // new tokens at most
    std::uint64_t seed = 0;    // of the sampling (std::mt19937_64; the draw of nn/token_choice.h)
    bool use_cache = true;     // false: the whole sequence through the model at every step (checks)
    bool stop_at_eos = true;   // end at config.json's eos_token_id (it is kept in the output)
    bool keep_logits = false;  // keep each step's logits in the result (tests)
};

struct GeneratedToken {
    int index = 0;  // 0 for the first new token
    int64_t id = 0;
    double probability = 0.0;  // of this token under the model (softmax of the logits, before temperature)
};

struct Generation {
    std::vector<int64_t> prompt_ids, ids;  // ids: the new tokens only
    std::vector<double> probabilities;     // of each new token
    std::string stop;                      // "eos", "max_new_tokens" or "max_positions" (GPT-2's learned)
    double first_token_seconds = 0.0;  // wall time from the call to the first new token (the prompt's pass)
    double seconds = 0.0;              // wall time of the whole generation
    std::vector<std::vector<float>> step_logits;  // keep_logits: the logits each new token was chosen from
};

// A folder's weights converted to float32 once (a 1B bf16 model: about 4.9 GB), reused by every generate()
// (the benchmark asks thousands of questions). The folder must outlive it.
class FolderGenerator {
  public:
    // `threads` torch threads (0: auto, the CPUs free now).
    explicit FolderGenerator(const ModelFolder& folder, int threads = 0);
    FolderGenerator(FolderGenerator&&) noexcept;
    ~FolderGenerator();

    // Continues the prompt's ids; on_token (optional) hears each new token as soon as it is chosen.
    // Throws PretrainedError for an empty prompt, an id outside the vocabulary, a prompt longer than
    // GPT-2's positions; std::invalid_argument for a negative temperature, top_k or max_new_tokens.
    Generation generate(const std::vector<int64_t>& prompt, const GenerationSettings& settings,
                        const std::function<void(const GeneratedToken&)>& on_token = {});

    // lm-evaluation-harness's is_greedy: whether greedy decoding after `context` writes exactly
    // `continuation` (the most probable token at every position of the continuation, teacher-forced in one
    // pass: the same answer as generating, one forward). Throws PretrainedError for an empty context or
    // continuation, an id outside the vocabulary, more positions than GPT-2's.
    bool writes_greedily(const std::vector<int64_t>& context, const std::vector<int64_t>& continuation);

    // The logits [positions][vocab] at every position of `ids` in one pass (no cache kept): checks.
    std::vector<std::vector<float>> all_logits(const std::vector<int64_t>& ids);

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// The text of token ids as transformers' decode writes it (byte-level pieces joined; added tokens'
// content; special tokens kept): the bytes, which may end inside a UTF-8 character. An id the tokenizer
// does not have (a model's vocabulary may be larger than its tokenizer's) writes nothing.
std::string decode_ids(const BpeTokenizer& tokenizer, const std::vector<int64_t>& ids);

}  // namespace fone::pretrained
