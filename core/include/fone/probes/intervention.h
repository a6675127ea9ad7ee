// Interventions on a trained FoNE run (issue 17): turn one digit's clock (the (cos, sin) pair of one
// decimal place) at one layer and position and run the rest of the forward pass (`fone analyse patch`),
// or scale one period's pair at one layer (`fone analyse knockout`) and see which digits break. The
// geometry and the bookkeeping are plain C++ in fone/analysis/interventions.h; this side runs the model.
// Definitions in docs/analysis.md ("Interventions").
#pragma once

#include <cmath>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "fone/analysis/interventions.h"

namespace fone {

// Where an edit acts: kHeadLayer, the digit head's input (after its norm, at the last position: what the
// head reads); 0, the input (at a number's position: its own FoNE features; elsewhere the residual stream
// after the embedding); k = 1..layers, the residual stream after block k.
inline constexpr int kHeadLayer = -1;

struct PatchRequest {
    std::string prompt;                   // "123.456+654.321="
    int place = 0;                        // the decimal place whose pair turns: 0 units, 1 tens, -1 tenths
    int digit = -1;                       // >= 0: to digit D's point on the circle
    double angle_degrees = std::nan("");  // otherwise to this angle
    int layer = kHeadLayer;
    int position = -1;  // token index in the prompt, 0 = [BOS]; -1: the last token
};

struct KnockoutRequest {
    std::string prompt;
    std::string period;  // one of the run's periods, as written: "10", "0.01"
    int layer = kHeadLayer;
    double scale = 0.0;  // what the pair is multiplied by (0: removed)
};

// A run's model opened once for many interventions (the window's live dragging keeps one open).
class InterventionSession {
  public:
    // Throws RunError for an unreadable run and std::invalid_argument for a run without a FoNE digit head
    // of plain periods (one pair per digit). With test_split, also generates the run's test split (for
    // knockout_map).
    explicit InterventionSession(const std::string& run_dir, int threads = 0, bool test_split = false);
    ~InterventionSession();
    InterventionSession(const InterventionSession&) = delete;
    InterventionSession& operator=(const InterventionSession&) = delete;

    // {"run", "checkpoint", "layers" (names: "input", "block 1", ..., "head"), "places", "periods"}.
    nlohmann::json describe() const;
    // {"prompt", "tokens", "layer", "position", "token", "place", "period", "digit"|"angle",
    //  "pair_before", "pair_after" (the turned pair at the site), "site_before", "site_after" (every
    //  place's pair at the site), "number_before"/"number_after" (a layer-0 patch of a number),
    //  "before", "after" (exact decimal answers), "digits_before", "digits_after" ([{"position", "digit",
    //  "probabilities", "pair"}], as `fone predict`), "negative_probability_before"/"_after", "seconds"}.
    // Throws std::invalid_argument naming the option that does not fit the run or the prompt.
    nlohmann::json patch(const PatchRequest& r);
    // {"prompt", "period", "place", "layer", "scale", "before", "after", "digits_before", "digits_after",
    //  "broken": the places whose digit changed}.
    nlohmann::json knockout(const KnockoutRequest& r);
    // Every layer (input, blocks, head) x every period on the first `examples` examples of the run's test
    // split (needs test_split).
    analysis::DamageMap knockout_map(int examples, double scale);

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace fone
