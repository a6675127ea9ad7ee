// The one table of number methods (llama.cpp's LLM_ARCH_NAMES habit): every place that names a method —
// validation, make_scheme (core/src/schemes/scheme.cpp), `fone train --help`, the Launch panel's and the
// sweep designer's combos — reads it. A new method is one row here (or add_number_method) plus its scheme
// file (docs/CONTRIBUTING.md, "A new number method").
#pragma once

#include <string>
#include <vector>

namespace fone {

struct NumberMethod {
    std::string name;         // --method NAME, "method" in config.json
    std::string description;  // one line, for help texts and tooltips
    // The scheme family that builds it (core/src/schemes/scheme.cpp's factories): "number-token" (one [NUM]
    // token per number: fone, fone-direct, xval), "bittokens", "tokens" (numbers as digit or subword tokens).
    std::string scheme;
    // What a number becomes in the input: "[NUM]" (one token) or "tokens" (one or more vocabulary tokens).
    std::string tokens;
    bool text = false;       // trains on text tasks (the text tokenizer around its numbers)
    bool init_from = false;  // can start from a pretrained model folder's weights (--init-from)
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
// "fone, digit, subword, ..." (help texts).
std::string method_list_text();

}  // namespace fone
