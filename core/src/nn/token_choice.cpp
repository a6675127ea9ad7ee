#include "nn/token_choice.h"

#include <cmath>
#include <stdexcept>

namespace fone {
namespace {

// One draw from the probabilities p[0..vocab): inverse CDF with a 53-bit uniform from the raw engine
// (portable across libraries).
int64_t sample(const double* p, int64_t vocab, std::mt19937_64& rng) {
    const double u = static_cast<double>(rng() >> 11) * 0x1.0p-53;
    double acc = 0.0;
    int64_t pick = vocab - 1;
    for (int64_t v = 0; v < vocab; ++v) {
        acc += p[v];
        if (u < acc && p[v] > 0) {
            pick = v;
            break;
        }
    }
    while (pick > 0 && p[pick] == 0)
        --pick;
    return pick;
}

}  // namespace

// The draw is computed in float64 with each row's maximum subtracted, so that a tiny temperature (1e-40)
// approaches greedy instead of overflowing; a NaN or infinite temperature is std::invalid_argument.
std::vector<int64_t> choose_tokens(const torch::Tensor& logits, double temperature, int top_k,
                                   std::mt19937_64& rng) {
    const int64_t n = logits.size(0), vocab = logits.size(1);
    std::vector<int64_t> chosen(static_cast<std::size_t>(n));
    if (temperature <= 0) {
        const auto arg = logits.argmax(-1).to(torch::kCPU);
        for (int64_t i = 0; i < n; ++i)
            chosen[static_cast<std::size_t>(i)] = arg[i].item<int64_t>();
        return chosen;
    }
    if (!std::isfinite(temperature))
        throw std::invalid_argument("the temperature must be a finite number >= 0");
    // In float64, after subtracting each row's maximum: logits / 1e-40 overflow float32 to inf, and inf - inf
    // made every probability NaN (the draw then fell on the last token). Here the largest logit gives
    // exp(0) = 1 and the others underflow to 0 as the temperature goes to 0: greedy in the limit.
    const auto wide = logits.to(torch::kCPU).to(torch::kFloat64);
    auto scaled = torch::softmax((wide - std::get<0>(wide.max(-1, true))) / temperature, -1);
    if (top_k > 0 && top_k < vocab) {
        const auto kth = std::get<0>(scaled.topk(top_k, -1)).select(-1, top_k - 1).unsqueeze(-1);
        scaled = torch::where(scaled.lt(kth), torch::zeros_like(scaled), scaled);
    }
    scaled = (scaled / scaled.sum(-1, true)).contiguous();
    for (int64_t i = 0; i < n; ++i)
        chosen[static_cast<std::size_t>(i)] = sample(scaled[i].data_ptr<double>(), vocab, rng);
    return chosen;
}

}  // namespace fone
