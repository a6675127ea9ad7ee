// Where FoNE's text perplexity crosses digit-wise (issue 41): the ratio of FoNE's text-token perplexity to
// digit-wise numbers' against model size, one line per corpus, from runs of the same corpus, model and seed
// that differ only in the number method (`fone reproduce text-scaling`, the window's Text scaling view),
// and the two published points it is read against. No LibTorch, no Qt. docs/text.md, "The text question as
// a curve".
#pragma once

#include <string>
#include <vector>

namespace fone {

// One finished text run: which corpus, which model size (an id shared by the methods' runs of one cell),
// method and seed, and what it measured.
struct ScalingRun {
    std::string corpus, size, method;
    long long seed = 0;
    double params = 0;           // without the embedding (the same shape gives the same count)
    double text_perplexity = 0;  // the measure of the ratio: all windows, or windows with numbers
};

// The ratio at one model size: FoNE's perplexity over digit's, seed by seed (the runs of one seed share
// data, order and initial weights but for the number tokens), then the mean and the lowest and highest.
struct RatioPoint {
    double params = 0, mean = 0, low = 0, high = 0;
    int seeds = 0;
};
struct RatioLine {
    std::string corpus;
    std::vector<RatioPoint> points;  // by params
};
// One line per corpus (in the order corpora first appear), a point per size where fone and digit both
// have runs of the same seed; sizes without such a pair are left out. `numerator` and `denominator`
// name the methods ("fone", "digit").
std::vector<RatioLine> perplexity_ratios(const std::vector<ScalingRun>& runs,
                                         const std::string& numerator = "fone",
                                         const std::string& denominator = "digit");

// A published FoNE/digit text-perplexity ratio and where it comes from.
struct PublishedRatio {
    std::string label;   // "FoNE paper, Table 5 (GPT-2 117M)"
    double params = 0;   // without the embedding
    double ratio = 0;    // FoNE's text perplexity / digit-wise's
    std::string source;  // the numbers it is computed from
};
// The FoNE paper's Table 5 (GPT-2 117M from scratch on 10B FineWeb tokens: FoNE 46.856, single digit
// 55.922; 85M parameters without the embedding) and BitTokens' FineWeb figure (6 layers, 768 wide: FoNE
// 72.1, single digit 50.9, read from the figure; 42.5M without the embedding).
const std::vector<PublishedRatio>& published_ratios();

}  // namespace fone
