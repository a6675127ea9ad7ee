// The forward pass of a pretrained model folder, for every family, in float32 whatever the stored dtype.
// Weights are read from the memory-mapped files one block at a time (a bf16/fp16 weight becomes a float32
// copy while its block runs; an aligned F32 weight is used in place), so a model larger than memory runs.
// Private to core/src/pretrained/ (torch types).
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include <torch/torch.h>

#include "fone/pretrained/model_folder.h"

namespace fone::pretrained {

// A weight in its stored dtype over the mapping's bytes (a copy when they are not aligned): never written.
torch::Tensor stored_weight(const ModelFolder& m, const std::string& name);
// A weight as a float32 tensor of its stored shape.
torch::Tensor load_weight(const ModelFolder& m, const std::string& name);

struct DecoderOutput {
    // Per batch, per layer: the hidden state at the last position [B, hidden], for the embeddings (entry
    // 0) and after every block, the last entry after the final norm (transformers' output_hidden_states).
    std::vector<std::vector<torch::Tensor>> hidden_last;
    // Per batch: the logits at the last position [B, vocab] (when asked for).
    std::vector<torch::Tensor> logits_last;
};

// Runs batches of token rows ([B, L] int64 each, no padding, any lengths) through the model, block by
// block (each block's weights converted once for all batches). `progress` (optional) hears the fraction
// of blocks done. Throws PretrainedError for an id outside the vocabulary or a sequence longer than the
// model's positions (GPT-2's learned ones).
DecoderOutput run_decoder(const ModelFolder& m, const std::vector<torch::Tensor>& batches, bool logits,
                          const std::function<void(double)>& progress = {});

// One layer's keys and values for the positions run so far, [1, kv_heads, positions, head_dim]: after the
// rotary, before grouped heads are repeated.
struct LayerCache {
    torch::Tensor k, v;
};

// A model folder ready for generation: every weight converted to float32 once (a 1B bf16 model: about
// 4.9 GB; an aligned F32 weight is used in place, so the folder must outlive the session) and a KV cache,
// so that feeding one new token runs one position through the model. The same blocks as run_decoder.
class DecoderSession {
  public:
    explicit DecoderSession(const ModelFolder& m);
    DecoderSession(DecoderSession&&) noexcept;
    ~DecoderSession();

    // Runs ids at positions length() .. length() + n - 1 (their keys and values join the cache) and
    // returns the logits [n, vocab] of every new position (last_only: of the last, [1, vocab]). Throws
    // PretrainedError for no ids, an id outside the vocabulary or more positions than GPT-2's learned ones.
    torch::Tensor feed(const std::vector<int64_t>& ids, bool last_only = true);
    // Forgets every position (the next feed starts at position 0).
    void clear();
    int64_t length() const;
    const PretrainedConfig& config() const;

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace fone::pretrained
