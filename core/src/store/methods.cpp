// The table of number methods (fone/store/methods.h).
#include "fone/store/methods.h"

#include <algorithm>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "fone/store/train_config.h"

namespace fone {

namespace {

// BitTokens' bits replace [NUM]'s embedding zero-padded (fone_input "pad"): they must fit the hidden width.
std::string bittokens_settings_problem(const TrainConfig& c) {
    const int bits = c.bittokens_reciprocal ? 128 : 64;
    if (c.model.fone_input != "pad" || c.model.hidden >= bits) return "";
    return "method bittokens: its " + std::to_string(bits) + " bit features do not fit hidden " +
           std::to_string(c.model.hidden) + " zero-padded: give --hidden " + std::to_string(bits) +
           " or more" + (c.bittokens_reciprocal ? ", --no-bittokens-reciprocal (64 features)" : "") +
           " or --fone-input linear";
}

// One row per method: name, description, scheme family, what a number becomes, text, --init-from, the pieces
// of token methods (or the setting that chooses them), a check of the method's own settings.
std::vector<NumberMethod>& table() {
    static std::vector<NumberMethod> rows = {
        {"fone", "one token per number: [NUM] + its Fourier features; digits read from two entries each",
         "number-token", "[NUM]", true, true, "", ""},
        {"digit", "one token per digit and point; the answer generated token by token", "tokens", "tokens",
         true, true, "digit", ""},
        {"subword", "chunks of up to three digits, left to right (as Llama-3); generated token by token",
         "tokens", "tokens", true, true, "subword", ""},
        {"xval", "one [NUM] token scaled by the number's value; a regression head, rounded", "number-token",
         "[NUM]", true, false, "", ""},
        {"ntl", "digit (or subword) tokens with the Number Token Loss (Wasserstein-1) added", "tokens",
         "tokens", false, false, "", "ntl_tokens"},
        {"abacus", "digit tokens least significant first with Abacus digit-position embeddings", "tokens",
         "tokens", false, false, "digit", ""},
        {"fone+abacus", "Abacus with every digit token embedded by its FoNE", "tokens", "tokens", false,
         false, "digit", ""},
        {"fone-direct", "ablation: each digit as a raw value in one dimension, regression per digit",
         "number-token", "[NUM]", false, false, "", ""},
        {"bittokens",
         "one [NUM] token carrying the IEEE 754 float64 bits of x (and 1/x); read back bit by bit",
         "number-token", "[NUM]", true, false, "", "", bittokens_settings_problem},
        {"numerologic",
         "digit (or subword) tokens behind the number's digit count, {2:42}; generated token by token",
         "tokens", "tokens", false, false, "", "numerologic_tokens"},
        {"fone-adapter",
         "a pretrained model's own tokens; each number piece's embedding + a learned projection of its FoNE "
         "(zero at the start; --init-from, --task text)",
         kAdapterFamily, "tokens", true, true, "", ""},
    };
    return rows;
}

}  // namespace

const std::vector<NumberMethod>& number_methods() {
    return table();
}

const NumberMethod* find_number_method(const std::string& name) {
    for (const NumberMethod& m : table())
        if (m.name == name) return &m;
    return nullptr;
}

void add_number_method(NumberMethod method) {
    if (method.name.empty()) throw std::invalid_argument("a number method needs a name");
    if (find_number_method(method.name))
        throw std::invalid_argument("a number method named '" + method.name + "' exists already");
    table().push_back(std::move(method));
}

std::vector<std::string> method_names() {
    std::vector<std::string> names;
    for (const NumberMethod& m : table())
        names.push_back(m.name);
    return names;
}

std::string method_description(const std::string& method) {
    const NumberMethod* m = find_number_method(method);
    return m ? m->description : "";
}

bool method_takes_init_from(const std::string& method) {
    const NumberMethod* m = find_number_method(method);
    return m && m->init_from;
}

bool is_adapter_method(const std::string& method) {
    const NumberMethod* m = find_number_method(method);
    return m && m->scheme == kAdapterFamily;
}

std::string method_list_text() {
    std::string out;
    for (const NumberMethod& m : table())
        out += (out.empty() ? "" : ", ") + m.name;
    return out;
}

std::string number_pieces(const std::string& method, const nlohmann::json& settings) {
    const NumberMethod* m = find_number_method(method);
    if (!m) return "";
    if (m->pieces_setting.empty()) return m->pieces;
    const auto it = settings.find(m->pieces_setting);
    return it != settings.end() && it->is_string() ? it->get<std::string>() : "digit";
}

}  // namespace fone
