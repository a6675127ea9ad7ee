#include "fone/hf/generate.h"

#include <cmath>
#include <random>
#include <stdexcept>

#include "hf/decoder.h"
#include "nn/device_setup.h"
#include "nn/timing.h"
#include "nn/token_choice.h"

namespace fone::pretrained {
namespace {

void check_settings(const GenerationSettings& s) {
    if (!(s.temperature >= 0) || !std::isfinite(s.temperature))
        throw std::invalid_argument("the temperature must be a finite number >= 0 (0: greedy)");
    if (s.top_k < 0) throw std::invalid_argument("top-k must be >= 0 (0: every token)");
    if (s.max_new_tokens < 0) throw std::invalid_argument("max-new-tokens must be >= 0");
}

}  // namespace

struct FolderGenerator::Impl {
    DecoderSession session;
};

FolderGenerator::FolderGenerator(const ModelFolder& folder, int threads) {
    set_threads(threads);
    impl_.reset(new Impl{DecoderSession(folder)});
}

FolderGenerator::FolderGenerator(FolderGenerator&&) noexcept = default;
FolderGenerator::~FolderGenerator() = default;

Generation FolderGenerator::generate(const std::vector<int64_t>& prompt, const GenerationSettings& settings,
                                     const std::function<void(const GeneratedToken&)>& on_token) {
    check_settings(settings);
    if (prompt.empty()) throw PretrainedError("an empty prompt: give at least one token");
    const auto t0 = Clock::now();
    DecoderSession& session = impl_->session;
    const PretrainedConfig& c = session.config();
    std::mt19937_64 rng(settings.seed);
    Generation g;
    g.prompt_ids = prompt;
    std::vector<int64_t> sequence = prompt;
    session.clear();
    torch::Tensor logits = session.feed(prompt);  // [1, vocab]
    g.stop = "max_new_tokens";
    for (int i = 0; i < settings.max_new_tokens; ++i) {
        if (settings.keep_logits) {
            const auto row = logits[0].contiguous();
            g.step_logits.emplace_back(row.data_ptr<float>(), row.data_ptr<float>() + row.numel());
        }
        const int64_t next = choose_tokens(logits, settings.temperature, settings.top_k, rng)[0];
        const double p = torch::softmax(logits[0].to(torch::kFloat64), -1)[next].item<double>();
        g.ids.push_back(next);
        g.probabilities.push_back(p);
        if (i == 0) g.first_token_seconds = seconds_since(t0);
        if (on_token) on_token({i, next, p});
        sequence.push_back(next);
        if (settings.stop_at_eos && c.eos_token_id && next == *c.eos_token_id) {
            g.stop = "eos";
            break;
        }
        if (i + 1 == settings.max_new_tokens) break;
        if (c.rotary_dims == 0 && static_cast<int64_t>(sequence.size()) >= c.max_positions) {
            g.stop = "max_positions";
            break;
        }
        if (settings.use_cache) {
            logits = session.feed({next});
        } else {
            session.clear();
            logits = session.feed(sequence);
        }
    }
    g.seconds = seconds_since(t0);
    return g;
}

bool FolderGenerator::writes_greedily(const std::vector<int64_t>& context,
                                      const std::vector<int64_t>& continuation) {
    if (context.empty() || continuation.empty())
        throw PretrainedError("the greedy check needs a context and a continuation");
    std::vector<int64_t> whole = context;
    whole.insert(whole.end(), continuation.begin(), continuation.end());
    whole.pop_back();  // the last token is predicted, never fed
    DecoderSession& session = impl_->session;
    session.clear();
    const auto logits = session.feed(whole, false);  // [positions, vocab]
    const auto chosen =
        logits.narrow(0, static_cast<int64_t>(context.size()) - 1, static_cast<int64_t>(continuation.size()))
            .argmax(-1);
    return torch::equal(chosen, torch::tensor(continuation, torch::kInt64));
}

std::vector<std::vector<float>> FolderGenerator::all_logits(const std::vector<int64_t>& ids) {
    DecoderSession& session = impl_->session;
    session.clear();
    const auto logits = session.feed(ids, false).contiguous();
    session.clear();
    std::vector<std::vector<float>> rows;
    for (int64_t i = 0; i < logits.size(0); ++i)
        rows.emplace_back(logits[i].data_ptr<float>(), logits[i].data_ptr<float>() + logits.size(1));
    return rows;
}

std::string decode_ids(const BpeTokenizer& tokenizer, const std::vector<int64_t>& ids) {
    std::string text;
    for (const int64_t id : ids) {
        if (id < 0 || id >= tokenizer.vocab_size()) continue;
        try {
            text += tokenizer.token_text(id);
        } catch (const TokenizerError&) {  // a hole in the vocabulary: no token has this id
        }
    }
    return text;
}

}  // namespace fone::pretrained
