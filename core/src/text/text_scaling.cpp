// The FoNE/digit text-perplexity ratio against model size (fone/text/text_scaling.h).
#include "fone/text/text_scaling.h"

#include <algorithm>
#include <map>
#include <utility>

namespace fone {

std::vector<RatioLine> perplexity_ratios(const std::vector<ScalingRun>& runs, const std::string& numerator,
                                         const std::string& denominator) {
    // corpus -> size -> seed -> (numerator's run, denominator's run)
    using Pair = std::pair<const ScalingRun*, const ScalingRun*>;
    std::vector<std::string> corpora;
    std::map<std::string, std::map<std::string, std::map<long long, Pair>>> cells;
    for (const ScalingRun& r : runs) {
        if (r.method != numerator && r.method != denominator) continue;
        if (std::find(corpora.begin(), corpora.end(), r.corpus) == corpora.end()) corpora.push_back(r.corpus);
        Pair& p = cells[r.corpus][r.size][r.seed];
        (r.method == numerator ? p.first : p.second) = &r;
    }
    std::vector<RatioLine> lines;
    for (const std::string& corpus : corpora) {
        RatioLine line{corpus, {}};
        for (const auto& [size, seeds] : cells[corpus]) {
            RatioPoint point;
            double sum = 0;
            for (const auto& [seed, pair] : seeds) {
                if (!pair.first || !pair.second || pair.second->text_perplexity <= 0) continue;
                const double ratio = pair.first->text_perplexity / pair.second->text_perplexity;
                point.low = point.seeds == 0 ? ratio : std::min(point.low, ratio);
                point.high = point.seeds == 0 ? ratio : std::max(point.high, ratio);
                point.params = pair.first->params;
                sum += ratio;
                ++point.seeds;
            }
            if (point.seeds == 0) continue;
            point.mean = sum / point.seeds;
            line.points.push_back(point);
        }
        std::sort(line.points.begin(), line.points.end(),
                  [](const RatioPoint& a, const RatioPoint& b) { return a.params < b.params; });
        if (!line.points.empty()) lines.push_back(std::move(line));
    }
    return lines;
}

const std::vector<PublishedRatio>& published_ratios() {
    // GPT-2 117M: 12 layers x (4 x 768² attention + 2 x 768 x 3072 MLP) = 84.9M without the embedding.
    // BitTokens' model: 6 of the same layers, 42.5M.
    static const std::vector<PublishedRatio> points = {
        {"FoNE paper, Table 5 (GPT-2 117M, 10B FineWeb tokens)", 84.9e6, 46.856 / 55.922,
         "FoNE 46.856 / single digit 55.922"},
        {"BitTokens, FineWeb (6 layers, 768 wide)", 42.5e6, 72.1 / 50.9,
         "FoNE 72.1 / single digit 50.9 (read from their figure)"},
    };
    return points;
}

}  // namespace fone
