// Speed of the text tokenizers, single thread: SentencePiece training on a generated corpus, then
// encode (text -> ids, numbers, answer mask) and decode (ids -> text) of every example under each number
// scheme. Prints one line per figure; the data load is the same for every scheme.
//   build/bin/bench_text [examples]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "fone/text/text_data.h"
#include "fone/text/text_tokenizer.h"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

void bench_task(fone::TextTask task, std::size_t count) {
    const auto corpus = fone::generate_text_splits(task, count, 0, 0, 42).train;
    auto t0 = Clock::now();
    const auto base = fone::TextTokenizer::train(corpus, fone::TextScheme::fone);
    std::printf("%-13s train SentencePiece on %zu examples: %.2f s (%d text pieces)\n",
                fone::text_task_name(task).c_str(), count, seconds_since(t0), base.text_piece_count());
    for (const fone::TextScheme scheme : fone::all_text_schemes()) {
        const fone::TextTokenizer t = base.with_scheme(scheme);
        std::vector<fone::EncodedText> encoded;
        encoded.reserve(corpus.size());
        std::size_t tokens = 0;
        t0 = Clock::now();
        for (const auto& e : corpus) {
            encoded.push_back(t.encode(e));
            tokens += encoded.back().ids.size();
        }
        const double encode_s = seconds_since(t0);
        std::size_t bytes = 0;
        t0 = Clock::now();
        for (const auto& e : encoded)
            bytes += t.decode(e.ids, e.numbers).size();
        const double decode_s = seconds_since(t0);
        std::printf(
            "%-13s %-8s encode %8.0f examples/s (%5.2f M tokens/s), decode %8.0f examples/s (%zu bytes)\n",
            fone::text_task_name(task).c_str(), fone::text_scheme_name(scheme).c_str(), count / encode_s,
            tokens / encode_s / 1e6, count / decode_s, bytes);
    }
}

}  // namespace

int main(int argc, char** argv) {
    const std::size_t count = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 20000;
    for (const fone::TextTask task :
         {fone::TextTask::word_problems, fone::TextTask::units, fone::TextTask::tables})
        bench_task(task, count);
}
