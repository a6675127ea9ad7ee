#include "fone/hf/forward.h"

#include <map>

#include "hf/decoder.h"
#include "nn/device_setup.h"

namespace fone::pretrained {
namespace {

std::vector<float> floats(const torch::Tensor& t) {
    const auto c = t.to(torch::kFloat32).contiguous();
    return {c.data_ptr<float>(), c.data_ptr<float>() + c.numel()};
}

// Numbers a batch holds at most (hidden states of all of them per layer are kept).
constexpr std::size_t kBatch = 512;

}  // namespace

ForwardResult forward_last(const ModelFolder& folder, const std::vector<int64_t>& ids, int threads) {
    if (ids.empty()) throw PretrainedError("no token ids to run");
    set_threads(threads);
    const DecoderOutput out = run_decoder(folder, {torch::tensor(ids, torch::kInt64).unsqueeze(0)}, true);
    ForwardResult r;
    r.logits_last = floats(out.logits_last[0][0]);
    for (const auto& h : out.hidden_last[0])
        r.hidden_last.push_back(floats(h[0]));
    return r;
}

std::vector<int64_t> number_prompt(const ModelFolder& folder, const BpeTokenizer& tokenizer,
                                   const Decimal& x) {
    std::vector<int64_t> ids = tokenizer.prefix_ids();
    if (ids.empty() && folder.config().bos_token_id) ids.push_back(*folder.config().bos_token_id);
    for (const int64_t id : tokenizer.encode(x.to_string(), false))
        ids.push_back(id);
    return ids;
}

NumberRepresentations number_hidden_states(const ModelFolder& folder, const std::vector<Decimal>& numbers,
                                           int threads, const std::function<void(double)>& progress) {
    const std::string path = folder.tokenizer_path();
    if (path.empty())
        throw PretrainedError(folder.dir() + ": no tokenizer.json (the numbers' tokens come from it)");
    const BpeTokenizer tokenizer = BpeTokenizer::load(path);
    set_threads(threads);
    // Prompts of equal length form batches of up to kBatch; `where` remembers each number's row.
    std::map<std::size_t, std::vector<std::size_t>> by_length;
    std::vector<std::vector<int64_t>> prompts;
    for (std::size_t i = 0; i < numbers.size(); ++i) {
        prompts.push_back(number_prompt(folder, tokenizer, numbers[i]));
        by_length[prompts.back().size()].push_back(i);
    }
    std::vector<torch::Tensor> batches;
    std::vector<std::vector<std::size_t>> members;
    for (const auto& [length, rows] : by_length)
        for (std::size_t from = 0; from < rows.size(); from += kBatch) {
            const std::size_t n = std::min(kBatch, rows.size() - from);
            auto t = torch::empty({static_cast<int64_t>(n), static_cast<int64_t>(length)}, torch::kInt64);
            members.emplace_back(rows.begin() + from, rows.begin() + from + n);
            for (std::size_t r = 0; r < n; ++r)
                std::copy(prompts[members.back()[r]].begin(), prompts[members.back()[r]].end(),
                          t[static_cast<int64_t>(r)].data_ptr<int64_t>());
            batches.push_back(t);
        }
    const DecoderOutput out = run_decoder(folder, batches, false, progress);
    NumberRepresentations r;
    r.source = "model_hidden_states";
    for (const Decimal& x : numbers)
        r.numbers.push_back(x.to_string());
    const std::size_t layers = static_cast<std::size_t>(folder.config().layers) + 1;
    r.layers.assign(layers, std::vector<std::vector<float>>(numbers.size()));
    for (std::size_t b = 0; b < batches.size(); ++b)
        for (std::size_t l = 0; l < layers; ++l)
            for (std::size_t row = 0; row < members[b].size(); ++row)
                r.layers[l][members[b][row]] = floats(out.hidden_last[b][l][static_cast<int64_t>(row)]);
    return r;
}

}  // namespace fone::pretrained
