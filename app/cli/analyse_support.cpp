#include "analyse_support.h"

#include <filesystem>
#include <sstream>

#include "command_support.h"
#include "fone/analysis/analysis.h"
#include "fone/pretrained/model_folder.h"
#ifdef FONE_WITH_TORCH
#include "fone/store/run_store.h"
#include "torch_commands.h"
#endif

namespace fone::cli {

namespace fa = fone::analysis;

void add_spec_options(CLI::App* cmd, SourceOptions& o) {
    cmd->add_option("-m,--int-digits", o.int_digits,
                    "FoNE integer digits m (default: just enough for the numbers)");
    cmd->add_option("-n,--frac-digits", o.frac_digits,
                    "FoNE fractional digits n (default: just enough for the numbers)");
    cmd->add_option("--base", o.base, "Period base: T_i = base^i")->capture_default_str();
    cmd->add_option("--periods", o.periods, "Mixed period multipliers, e.g. 2,5,10 (the paper's ablation)");
    cmd->add_flag("--no-sign", o.no_sign, "No sign entry after the pairs");
}

void add_source_options(CLI::App* cmd, SourceOptions& o) {
    cmd->add_option(
           "--source", o.source,
           "Where the representation comes from: encoder (FoNE itself), csv, run (a trained model: "
           "hidden states at [NUM] per layer for FoNE/xVal, number-token embeddings for token methods), "
           "or model (a Hugging Face model folder: hidden states at each number's last token)")
        ->check(CLI::IsMember({"encoder", "csv", "run", "model"}))
        ->capture_default_str();
    cmd->add_option("--run", o.run, "Run name or directory (run source)");
    cmd->add_option("--runs-dir", o.runs_dir, "Run store (run source)");
    cmd->add_option("--model", o.model,
                    "Model folder (model source): config.json, safetensors, tokenizer.json");
    add_spec_options(cmd, o);
    cmd->add_option("--numbers", o.count, "How many numbers (encoder, run, model): start, start+step, ...");
    cmd->add_option("--start", o.start, "First number (encoder, run, model)")->capture_default_str();
    cmd->add_option("--step", o.step, "Step between the numbers (decimals allowed)")->capture_default_str();
    cmd->add_option("--input", o.inputs,
                    "CSV file(s) (csv source): one row per number, first column the number, then the values; "
                    "several files are several layers");
    cmd->add_option(
        "--layer", o.layer,
        "Which layer is analysed (0-based: an --input file; for a run 0 = the input embedding, L = after "
        "block L; for a model 0 = the embeddings, L = after block L and the final norm); default the last");
}

// The encoder's spec for the numbers: the options given, the smallest m (and n) that fit where not.
FoneSpec source_spec(const SourceOptions& o, const std::vector<Decimal>& numbers) {
    FoneSpec spec;
    spec.base = o.base;
    spec.multipliers = parse_int_list(o.periods, "--periods");
    spec.sign_feature = !o.no_sign;
    spec.int_digits = o.int_digits;
    spec.frac_digits = o.frac_digits;
    return fitted_spec(spec, numbers);
}

namespace {

// The common step of evenly spaced numbers; throws when they are not.
double even_step(const std::vector<Decimal>& numbers, const std::string& where) {
    if (numbers.size() < 2) return 1.0;
    const Decimal step = numbers[1] - numbers[0];
    for (std::size_t i = 2; i < numbers.size(); ++i)
        if (numbers[i] - numbers[i - 1] != step)
            throw std::runtime_error(where +
                                     ": the numbers must be evenly spaced and in order for a spectrum (row " +
                                     std::to_string(i + 1) + ": " + numbers[i].to_string() + ")");
    if (step.is_zero() || step.negative()) throw std::runtime_error(where + ": the numbers must increase");
    return step.to_double();
}

#ifdef FONE_WITH_TORCH
// start, start + step, ... for a model's source (run or model): --numbers between 2 and `limit`.
Loaded model_numbers(const SourceOptions& o, int limit) {
    const std::string source = "--source " + o.source;
    if (!o.inputs.empty()) throw std::runtime_error("--input needs --source csv");
    if (o.count < 2) throw std::runtime_error("--numbers must be at least 2 for " + source);
    if (o.count > limit)
        throw std::runtime_error("--numbers is limited to " + std::to_string(limit) + " for " + source);
    const Decimal step = Decimal::parse(o.step);
    if (step.is_zero() || step.negative()) throw std::runtime_error("--step must be positive");
    Loaded out;
    out.numbers = fa::number_range(Decimal::parse(o.start), step, o.count);
    out.step = step.to_double();
    return out;
}

// A model's representations as matrices, the layer asked for (else the last) chosen.
void take_layers(const SourceOptions& o, const NumberRepresentations& r, std::vector<std::string> names,
                 const std::string& what, Loaded& out) {
    for (const auto& rows : r.layers) {
        Eigen::MatrixXd m(static_cast<Eigen::Index>(rows.size()),
                          static_cast<Eigen::Index>(rows.at(0).size()));
        for (std::size_t i = 0; i < rows.size(); ++i)
            for (std::size_t j = 0; j < rows[i].size(); ++j)
                m(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = rows[i][j];
        out.layers.push_back(std::move(m));
    }
    out.layer_names = std::move(names);
    if (o.layer >= static_cast<int>(out.layers.size()))
        throw std::runtime_error("--layer " + std::to_string(o.layer) + " but the " + o.source +
                                 " has layers 0.." + std::to_string(out.layers.size() - 1));
    out.chosen = o.layer >= 0 ? static_cast<std::size_t>(o.layer) : out.layers.size() - 1;
    out.description = what + ", " + out.layer_names[out.chosen];
}
#endif

// A trained run's representations of start, start+step, ... (fone/probes/representations.h).
Loaded load_run(const SourceOptions& o) {
#ifdef FONE_WITH_TORCH
    if (o.run.empty()) throw std::runtime_error("--source run needs --run RUN");
    Loaded out = model_numbers(o, 100000);
    const std::string dir = open_store(o.runs_dir, false).resolve(o.run);
    // LibTorch is loaded here, not before (torch_commands.h).
    const NumberRepresentations r = torch_commands().number_representations(dir, out.numbers);
    std::vector<std::string> names;
    for (std::size_t k = 0; k < r.layers.size(); ++k)
        names.push_back(r.source == "token_embeddings" ? "token embeddings"
                        : k == 0                       ? "input (embedding + FoNE)"
                                                       : "after block " + std::to_string(k));
    take_layers(o, r, std::move(names), "run " + std::filesystem::path(dir).filename().string(), out);
    return out;
#else
    (void)o;
    throw std::runtime_error("--source run needs a build with LibTorch");
#endif
}

// A pretrained model folder's hidden states of the numbers at each one's last token
// (fone/hf/forward.h): layer 0 the embeddings, the last after the final norm.
Loaded load_model(const SourceOptions& o) {
#ifdef FONE_WITH_TORCH
    if (o.model.empty()) throw std::runtime_error("--source model needs --model DIR");
    Loaded out = model_numbers(o, 10000);
    try {
        const pretrained::ModelFolder folder = pretrained::ModelFolder::open(o.model);
        std::filesystem::path name = std::filesystem::path(o.model).lexically_normal();
        if (name.filename().empty()) name = name.parent_path();  // "dir/"
        take_layers(o, torch_commands().model_representations(o.model, out.numbers),
                    pretrained::hidden_layer_names(folder), "model " + name.filename().string(), out);
    } catch (const safetensors::Error& e) {
        throw std::runtime_error(e.what());
    }
    return out;
#else
    (void)o;
    throw std::runtime_error("--source model needs a build with LibTorch");
#endif
}

}  // namespace

Loaded load(const SourceOptions& o, bool need_even_spacing) {
    Loaded out;
    if (o.source == "encoder") {
        if (!o.inputs.empty()) throw std::runtime_error("--input needs --source csv");
        if (o.count < 2) throw std::runtime_error("--numbers must be at least 2 for --source encoder");
        if (o.count > 1000000) throw std::runtime_error("--numbers is limited to 1,000,000");
        const Decimal step = Decimal::parse(o.step);
        if (step.is_zero() || step.negative()) throw std::runtime_error("--step must be positive");
        out.numbers = fa::number_range(Decimal::parse(o.start), step, o.count);
        const FoneSpec spec = source_spec(o, out.numbers);
        out.layers.push_back(fa::encoder_source(spec)(out.numbers));
        out.layer_names.push_back("FoNE encoder");
        out.step = step.to_double();
        std::ostringstream d;
        d << "FoNE encoder (m=" << spec.int_digits << ", n=" << spec.frac_digits << ", base " << spec.base
          << (spec.plain() ? "" : ", periods " + o.periods) << ")";
        out.description = d.str();
        return out;
    }
    if (o.source == "run") return load_run(o);
    if (o.source == "model") return load_model(o);
    if (o.inputs.empty()) throw std::runtime_error("--source csv needs --input FILE");
    if (o.count != 0)
        throw std::runtime_error("--numbers is for --source encoder; a CSV gives its own numbers");
    for (const std::string& path : o.inputs) {
        fa::RepresentationTable t = fa::read_representation_csv(path);
        if (!out.layers.empty() && (t.numbers != out.numbers))
            throw std::runtime_error(path + ": its numbers differ from those of " + o.inputs.front());
        out.numbers = std::move(t.numbers);
        out.layers.push_back(std::move(t.values));
        out.layer_names.push_back(std::filesystem::path(path).stem().string());
    }
    if (o.layer >= static_cast<int>(out.layers.size()))
        throw std::runtime_error("--layer " + std::to_string(o.layer) + " but only " +
                                 std::to_string(out.layers.size()) + " --input file(s)");
    out.chosen = o.layer >= 0 ? static_cast<std::size_t>(o.layer) : out.layers.size() - 1;
    if (need_even_spacing) out.step = even_step(out.numbers, o.inputs[out.chosen]);
    out.description = out.layer_names[out.chosen];
    return out;
}

}  // namespace fone::cli
