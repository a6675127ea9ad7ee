// The one table of number methods (llama.cpp's LLM_ARCH_NAMES habit): every place that names a method —
// validation, make_scheme (core/src/schemes/scheme.cpp), `fone train --help`, the Launch panel's and the
// sweep designer's combos — reads it. A new method is one row here (or add_number_method) plus its scheme
// file (docs/CONTRIBUTING.md, "A new number method").
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace fone {

struct TrainConfig;

// The paper's own method: the one the reports measure the others against (fone reproduce's ratios) and the
// views pick first; and the baseline the paper's figures put beside it (the Replay view's second run).
inline constexpr const char* kPaperMethod = "fone";
inline constexpr const char* kPaperBaseline = "digit";

struct NumberMethod {
    std::string name;         // --method NAME, "method" in config.json
    std::string description;  // one line, for help texts and tooltips
    // The scheme family that builds it (core/src/schemes/scheme.cpp's factories): "number-token" (one [NUM]
    // token per number, its number head defined in the method's own file: fone, fone-direct, xval,
    // bittokens), "tokens" (numbers as digit or subword tokens), "pretrained-adapter" (fone-adapter).
    std::string scheme;
    // What a number becomes in the input: "[NUM]" (one token) or "tokens" (one or more vocabulary tokens).
    std::string tokens;
    bool text = false;       // trains on text tasks (the text tokenizer around its numbers)
    bool init_from = false;  // can start from a pretrained model folder's weights (--init-from)
    // Numbers as vocabulary tokens: "digit" or "subword" pieces, or the setting that chooses one of the two
    // (pieces_setting, a TrainConfig key: its value is "digit" or "subword"); "" for one [NUM] token per
    // number or a pretrained model's own tokens. number_pieces() reads both.
    std::string pieces;
    std::string pieces_setting;
    // What the method's own settings make impossible, one line per problem ("" : nothing); nullptr: no
    // settings of its own to check. TrainConfig::validate adds it to its problems.
    std::string (*settings_problem)(const TrainConfig& config) = nullptr;
};

// The built-in methods, in the order help texts list them, then any added with add_number_method.
const std::vector<NumberMethod>& number_methods();
// nullptr for an unknown name.
const NumberMethod* find_number_method(const std::string& name);
// Adds a row (a method defined outside core, or a test's toy method). Throws std::invalid_argument for an
// empty or taken name. Not thread-safe: call before any training starts.
void add_number_method(NumberMethod method);

// Views of the table: the names (`fone train --method` accepts), one line on a method ("" for an unknown
// name), and whether a method starts from a pretrained folder.
std::vector<std::string> method_names();
std::string method_description(const std::string& method);
bool method_takes_init_from(const std::string& method);
// The scheme family of the methods that keep a pretrained model's own tokens (fone-adapter), and whether a
// method's row is of it.
inline constexpr const char* kAdapterFamily = "pretrained-adapter";
bool is_adapter_method(const std::string& method);

// "fone, digit, subword, ..." (help texts).
std::string method_list_text();

// The pieces a run's numbers are written in, "digit" or "subword" ("" for one [NUM] token per number, a
// pretrained model's own tokens, or an unknown method): the row's pieces, or the value of its
// pieces_setting in `settings` (a run's config as JSON, TrainConfig::to_json; absent: "digit").
std::string number_pieces(const std::string& method, const nlohmann::json& settings);

}  // namespace fone
