// Interventions: one forward pass with one edit (a turned pair, a scaled period) at the input, in the
// residual stream or at the digit head's input. The model's residual_hook carries residual edits into its
// forward pass; input edits change the FoNE features before it, head edits the head's features after it.
#include "fone/probes/intervention.h"

#include <filesystem>
#include <functional>
#include <numbers>
#include <stdexcept>

#include "checkpoints/run_model.h"
#include "fone/analysis/analysis.h"
#include "fone/tasks/expression.h"
#include "nn/timing.h"

namespace fone {
namespace {

namespace fs = std::filesystem;
namespace fa = fone::analysis;
using nlohmann::json;

// What one forward pass edits. Any of the three may be empty.
struct Edit {
    std::function<void(ModelInputs&)> input;               // the inputs, before the pass
    int residual_layer = -1;                               // where `residual` acts (0..layers)
    std::function<torch::Tensor(torch::Tensor)> residual;  // the residual stream [B, L, d] there
    std::function<torch::Tensor(torch::Tensor)> head;      // the head's features [B, d]
};

// What a pass gives back: the head's features at the last position, and (kept) the inputs as edited and
// the residual stream at every layer.
struct Pass {
    torch::Tensor features;  // [B, d]
    ModelInputs in;
    std::vector<torch::Tensor> layers;
};

// The model's residual hook for one pass, cleared on every way out.
class HookScope {
  public:
    HookScope(FoneTransformer& model, ResidualHook hook) : model_(model) {
        model_->residual_hook = std::move(hook);
    }
    ~HookScope() { model_->residual_hook = nullptr; }
    HookScope(const HookScope&) = delete;
    HookScope& operator=(const HookScope&) = delete;

  private:
    FoneTransformer& model_;
};

// x with the pair of place slot k multiplied by `scale`, at every position (the last dimension's entries
// 2k, 2k+1).
torch::Tensor scaled_pair(const torch::Tensor& x, int64_t k, double scale) {
    auto y = x.clone();
    y.narrow(-1, 2 * k, 2).mul_(scale);
    return y;
}

// The edit of a knockout: pair k times `scale` at `layer`, at every position (at the input: the numbers'
// FoNE features, where the period's information enters).
Edit scaling(int layer, int64_t k, double scale) {
    Edit e;
    const auto scaled = [k, scale](torch::Tensor x) { return scaled_pair(x, k, scale); };
    if (layer == kHeadLayer) {
        e.head = scaled;
    } else if (layer == 0) {
        e.input = [scaled](ModelInputs& m) { m.fone = scaled(m.fone); };
    } else {
        e.residual_layer = layer;
        e.residual = scaled;
    }
    return e;
}

// The edit of a patch: pair k at one site set to `pair` (2 entries): in the head's features (row 0), in a
// number's FoNE features at the input, or in the residual stream after `layer` at `position`.
Edit setting_pair(int layer, int64_t position, int64_t k, bool number_input, const torch::Tensor& pair) {
    Edit e;
    if (layer == kHeadLayer) {
        e.head = [k, pair](torch::Tensor x) {
            auto y = x.clone();
            y[0].narrow(0, 2 * k, 2).copy_(pair);
            return y;
        };
    } else if (number_input) {
        e.input = [position, k, pair](ModelInputs& m) {
            m.fone[0][position].narrow(0, 2 * k, 2).copy_(pair);
        };
    } else {
        e.residual_layer = layer;
        e.residual = [position, k, pair](torch::Tensor x) {
            auto y = x.clone();
            y[0][position].narrow(0, 2 * k, 2).copy_(pair);
            return y;
        };
    }
    return e;
}

std::string layer_name(int layer, int layers) {
    if (layer == kHeadLayer) return "head";
    if (layer == 0) return "input";
    return "block " + std::to_string(layer) + (layer == layers ? " (last)" : "");
}

json layer_json(int layer) {
    return layer == kHeadLayer ? json("head") : json(layer);
}

json pair_json(const torch::Tensor& pair) {
    return json::array({pair[0].item<double>(), pair[1].item<double>()});
}

fa::Pair pair_of(const torch::Tensor& pair) {
    return {pair[0].item<double>(), pair[1].item<double>()};
}

torch::Tensor pair_tensor(const fa::Pair& p, const torch::Tensor& like) {
    return torch::tensor({p.x, p.y}, like.options());
}

}  // namespace

struct InterventionSession::Impl {
    std::string run_dir;
    AnsweringRun a;
    FoneSpec spec;  // the digit slots, plain periods
    int layers = 0;

    FoneTransformer& model() { return a.run.model; }
    int slots() const { return spec.pair_count(); }
    int place_of(int slot) const { return slot - spec.frac_digits; }

    int slot_of(int place) const {
        const int k = place + spec.frac_digits;
        if (k < 0 || k >= slots())
            throw std::invalid_argument("--place " + std::to_string(place) + ": the run's digit places are " +
                                        std::to_string(place_of(0)) + ".." +
                                        std::to_string(place_of(slots() - 1)));
        return k;
    }

    // The slot of a period written as text ("10", "0.01"); the error lists the run's periods.
    int slot_of_period(const std::string& text) const {
        Decimal t;
        const auto all = spec.periods();
        std::string listed;
        for (std::size_t k = 0; k < all.size(); ++k) {
            listed += (k ? ", " : "") + fa::period_text(all[k]);
            if (Decimal::try_parse(text, t) &&
                std::abs(all[k].value() - t.to_double()) <= 1e-9 * all[k].value())
                return static_cast<int>(k);
        }
        throw std::invalid_argument("--period '" + text + "' is not one of the run's periods (" + listed +
                                    ")");
    }

    void check_layer(int layer) const {
        if (layer != kHeadLayer && (layer < 0 || layer > layers))
            throw std::invalid_argument("--layer " + std::to_string(layer) + ": the run has layers 0.." +
                                        std::to_string(layers) +
                                        " (0: the input) and the head (the default)");
    }

    Pass run(const ModelInputs& inputs, const Edit& e, bool keep_layers, bool last_only) {
        torch::NoGradGuard no_grad;
        Pass p;
        p.in = inputs;
        if (e.input) {
            p.in.fone = p.in.fone.clone();
            e.input(p.in);
        }
        ResidualHook hook;
        if (e.residual)
            hook = [&e](int64_t layer, const torch::Tensor& x) {
                return layer == e.residual_layer ? e.residual(x) : x;
            };
        HookScope scope(model(), std::move(hook));
        const auto h = model()->forward(p.in, last_only, keep_layers ? &p.layers : nullptr);
        p.features = model()->head_features(h.select(1, -1));
        if (e.head) p.features = e.head(p.features);
        return p;
    }

    std::vector<Decimal> answers(const Pass& p) {
        DigitPrediction r;
        r.digits = model()->digit_logits_of_features(p.features).argmax(-1);
        const auto sign = model()->sign_logit_of_features(p.features);
        r.negative = sign.defined() ? sign.gt(0) : torch::zeros({p.features.size(0)}, torch::kBool);
        return read_numbers(r, spec);
    }

    // The first row's digits as `fone predict` lists them, and its value.
    json digits_json(const Pass& p) {
        const auto f = p.features[0].to(torch::kCPU).to(torch::kFloat64);
        const auto probs =
            torch::softmax(model()->digit_logits_of_features(p.features)[0].to(torch::kFloat64), -1)
                .to(torch::kCPU)
                .contiguous();
        json digits = json::array();
        for (int k = 0; k < slots(); ++k) {
            const double* q = probs[k].data_ptr<double>();
            const std::vector<double> pk(q, q + probs.size(1));
            digits.push_back({{"position", place_of(k)},
                              {"digit", std::max_element(pk.begin(), pk.end()) - pk.begin()},
                              {"probabilities", pk},
                              {"pair", pair_json(f.narrow(0, 2 * k, 2))}});
        }
        const auto sign = model()->sign_logit_of_features(p.features);
        return {{"value", answers(p)[0].to_string()},
                {"digits", digits},
                {"negative_probability", sign.defined() ? torch::sigmoid(sign[0]).item<double>() : 0.0}};
    }

    // Every place's pair at a site: the FoNE features of a number at the input, else the residual stream
    // (or the head's features).
    static torch::Tensor site_row(const Pass& p, int layer, int64_t position, bool number_input) {
        torch::Tensor row;
        if (layer == kHeadLayer)
            row = p.features[0];
        else if (number_input)
            row = p.in.fone[0][position];
        else
            row = p.layers[static_cast<std::size_t>(layer)][0][position];
        return row.to(torch::kCPU).to(torch::kFloat64);
    }

    json site_json(const Pass& p, int layer, int64_t position, bool number_input) {
        const torch::Tensor row = site_row(p, layer, position, number_input);
        json pairs = json::array();
        for (int k = 0; k < slots(); ++k)
            pairs.push_back({{"position", place_of(k)}, {"pair", pair_json(row.narrow(0, 2 * k, 2))}});
        return pairs;
    }

    // A whole question, as predict asks (parse_prompt: "5" or "1+2" without "=" are refused with why).
    ModelInputs encode(const std::string& prompt) {
        return to_device(a.run.scheme->encode_parsed_prompt({prompt, parse_prompt(prompt)}), a.device).in;
    }

    json tokens_json(const ModelInputs& in) {
        json tokens = json::array();
        const auto row = in.tokens[0].to(torch::kCPU);
        for (int64_t k = 0; k < row.size(0); ++k)
            tokens.push_back(a.run.scheme->vocabulary()[static_cast<std::size_t>(row[k].item<int64_t>())]);
        return tokens;
    }
};

InterventionSession::InterventionSession(const std::string& run_dir, int threads, bool test_split)
    : impl_(std::make_unique<Impl>()) {
    impl_->run_dir = run_dir;
    impl_->a = open_for_answers(run_dir, threads, test_split ? RunData::splits : RunData::none);
    const RunModel& r = impl_->a.run;
    const ModelHeads heads = r.scheme->heads();
    if (r.text || heads.digit_slots == 0 || heads.fone_width == 0 || !heads.digit_multipliers.empty())
        throw std::invalid_argument(fs::path(run_dir).filename().string() + " is a " + r.config.method +
                                    " run: interventions turn the (cos, sin) pairs of a FoNE run with plain "
                                    "periods (one pair per digit, read by the Fourier digit head)");
    impl_->spec = r.spec;
    impl_->layers = r.config.model.layers;
}

InterventionSession::~InterventionSession() = default;

json InterventionSession::describe() const {
    json layers = json::array(), places = json::array(), periods = json::array();
    for (int l = 0; l <= impl_->layers; ++l)
        layers.push_back(layer_name(l, impl_->layers));
    layers.push_back("head");
    const auto all = impl_->spec.periods();
    for (int k = 0; k < impl_->slots(); ++k) {
        places.push_back(impl_->place_of(k));
        periods.push_back(fa::period_text(all[static_cast<std::size_t>(k)]));
    }
    return {{"run", fs::path(impl_->run_dir).filename().string()},
            {"checkpoint", impl_->a.checkpoint},
            {"method", impl_->a.run.config.method},
            {"layers", layers},
            {"places", places},
            {"periods", periods}};
}

json InterventionSession::patch(const PatchRequest& r) {
    Impl& s = *impl_;
    const auto t0 = Clock::now();
    s.check_layer(r.layer);
    const int k = s.slot_of(r.place);
    const bool by_digit = r.digit >= 0;
    if (by_digit && r.digit >= s.spec.base)
        throw std::invalid_argument("--digit " + std::to_string(r.digit) + ": digits are 0.." +
                                    std::to_string(s.spec.base - 1));
    if (!by_digit && !std::isfinite(r.angle_degrees)) throw std::invalid_argument("give --digit or --angle");
    const ModelInputs in = s.encode(r.prompt);
    const int64_t length = in.tokens.size(1);
    const int64_t position = r.position < 0 ? length - 1 : r.position;
    if (position >= length)
        throw std::invalid_argument("--position " + std::to_string(r.position) +
                                    ": the prompt has tokens 0.." + std::to_string(length - 1));
    if (r.layer == kHeadLayer && position != length - 1)
        throw std::invalid_argument("--position: the digit head reads the last token (" +
                                    std::to_string(length - 1) + ") only; give --layer for other positions");
    const bool number_input = r.layer == 0 && in.num_mask[0][position].item<bool>();
    const double target =
        by_digit ? fa::digit_angle(r.digit, s.spec.base) : r.angle_degrees * std::numbers::pi / 180;

    json out = {{"prompt", r.prompt},
                {"tokens", s.tokens_json(in)},
                {"layer", layer_json(r.layer)},
                {"layer_name", layer_name(r.layer, s.layers)},
                {"position", position},
                {"place", r.place},
                {"period", fa::period_text(s.spec.periods()[static_cast<std::size_t>(k)])}};
    out["token"] = out["tokens"][static_cast<std::size_t>(position)];
    if (by_digit)
        out["digit"] = r.digit;
    else
        out["angle"] = r.angle_degrees;

    // The pair as the unedited pass leaves it at the site; the edit sets it to a fixed value, computed here.
    const Pass before = s.run(in, {}, true, false);
    const fa::Pair before_pair =
        pair_of(s.site_row(before, r.layer, position, number_input).narrow(0, 2 * k, 2));
    fa::Pair after_pair = fa::turned(before_pair, target);
    if (number_input && by_digit) {
        // The number's own FoNE features: a digit becomes the number with that digit (its other pairs kept).
        const auto features = in.fone[0][position].to(torch::kCPU).to(torch::kFloat32).contiguous();
        const std::span<const float> row(features.data_ptr<float>(),
                                         static_cast<std::size_t>(features.size(0)));
        const Decimal x = decode(row, s.spec);
        const Decimal changed = fa::with_digit(x, r.place, r.digit);
        check_fits(changed, s.spec);
        const std::vector<double> enc = fone::encode(changed, s.spec);
        after_pair = {enc[2 * static_cast<std::size_t>(k)], enc[2 * static_cast<std::size_t>(k) + 1]};
        out["number_before"] = x.to_string();
        out["number_after"] = changed.to_string();
    }
    const Edit e = setting_pair(r.layer, position, k, number_input, pair_tensor(after_pair, before.features));
    const Pass after = s.run(in, e, true, false);
    const json b = s.digits_json(before), a = s.digits_json(after);
    out["pair_before"] = {before_pair.x, before_pair.y};
    out["pair_after"] = {after_pair.x, after_pair.y};
    out["site_before"] = s.site_json(before, r.layer, position, number_input);
    out["site_after"] = s.site_json(after, r.layer, position, number_input);
    out["before"] = b["value"];
    out["after"] = a["value"];
    out["digits_before"] = b["digits"];
    out["digits_after"] = a["digits"];
    out["negative_probability_before"] = b["negative_probability"];
    out["negative_probability_after"] = a["negative_probability"];
    out["seconds"] = seconds_since(t0);
    return out;
}

json InterventionSession::knockout(const KnockoutRequest& r) {
    Impl& s = *impl_;
    s.check_layer(r.layer);
    if (!std::isfinite(r.scale)) throw std::invalid_argument("--scale must be a number");
    const int k = s.slot_of_period(r.period);
    const ModelInputs in = s.encode(r.prompt);
    const json b = s.digits_json(s.run(in, {}, false, false));
    const json a = s.digits_json(s.run(in, scaling(r.layer, k, r.scale), false, false));
    json broken = json::array();
    for (std::size_t i = 0; i < b["digits"].size(); ++i)
        if (b["digits"][i]["digit"] != a["digits"][i]["digit"]) broken.push_back(b["digits"][i]["position"]);
    return {{"prompt", r.prompt},
            {"period", fa::period_text(s.spec.periods()[static_cast<std::size_t>(k)])},
            {"place", s.place_of(k)},
            {"layer", layer_json(r.layer)},
            {"layer_name", layer_name(r.layer, s.layers)},
            {"scale", r.scale},
            {"before", b["value"]},
            {"after", a["value"]},
            {"digits_before", b["digits"]},
            {"digits_after", a["digits"]},
            {"broken", broken}};
}

analysis::DamageMap InterventionSession::knockout_map(int examples, double scale) {
    Impl& s = *impl_;
    const std::vector<Example>& test = s.a.run.splits.test;
    if (test.empty()) throw std::invalid_argument("the run has no test split to knock out on");
    if (examples < 1) throw std::invalid_argument("--examples must be at least 1");
    const std::vector<Example> chosen(test.begin(),
                                      test.begin() + std::min<std::size_t>(test.size(), examples));
    const ModelInputs in = to_device(s.a.run.scheme->encode(chosen), s.a.device).in;
    std::vector<Decimal> truth;
    for (const Example& e : chosen)
        truth.push_back(e.answer);
    std::vector<int> places;  // highest first
    for (int k = s.slots() - 1; k >= 0; --k)
        places.push_back(s.place_of(k));
    const std::vector<Decimal> before = s.answers(s.run(in, {}, false, true));

    analysis::DamageMap map;
    map.scale = scale;
    map.prompts = static_cast<int>(chosen.size());
    std::vector<int> layers;
    for (int l = 0; l <= s.layers; ++l)
        layers.push_back(l);
    layers.push_back(kHeadLayer);
    for (int k = 0; k < s.slots(); ++k) {
        map.periods.push_back(fa::period_text(s.spec.periods()[static_cast<std::size_t>(k)]));
        map.places.push_back(s.place_of(k));
    }
    map.answers_changed.resize(static_cast<Eigen::Index>(layers.size()), s.slots());
    map.exact_after.resizeLike(map.answers_changed);
    for (std::size_t l = 0; l < layers.size(); ++l) {
        map.layers.push_back(layer_name(layers[l], s.layers));
        map.cells.emplace_back();
        for (int k = 0; k < s.slots(); ++k) {
            const std::vector<Decimal> after =
                s.answers(s.run(in, scaling(layers[l], k, scale), false, true));
            const fa::AnswerChanges c = fa::compare_answers(before, after, truth, places);
            map.exact_before = c.exact_before;
            map.answers_changed(static_cast<Eigen::Index>(l), k) = c.answers_changed;
            map.exact_after(static_cast<Eigen::Index>(l), k) = c.exact_after;
            map.cells.back().push_back(c);
        }
    }
    return map;
}

}  // namespace fone
