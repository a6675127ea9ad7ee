// The requests of `fone analyse patch --serve` (cmd_analyse_intervene.cpp): one JSON object per stdin line,
// read with a bound on its length and its nesting, every field type-checked. Plain C++ (no LibTorch), so
// that the fuzzer tests/fuzz/fuzz_serve_requests.cpp drives exactly this code.
#pragma once

#include <cstddef>
#include <istream>
#include <string>

#include <nlohmann/json.hpp>

#include "fone/probes/intervention.h"

namespace fone::cli {

// The longest request line `--serve` reads; a longer one is answered with an error and skipped, and
// never held in memory beyond this (before, a 10 MB line cost 2.5 GB).
inline constexpr std::size_t kMaxServeLineBytes = 64 * 1024;
// The longest error message an answer carries (LibTorch's errors are condensed to their first line).
inline constexpr std::size_t kMaxServeErrorBytes = 500;

// "head" or a layer number 0.. (std::invalid_argument otherwise).
int parse_layer(const std::string& text);

// A request ({"prompt", "place", "digit" | "angle", "layer", "position"}): nothing is coerced (true, 3.7,
// "3" or 2^40 are std::invalid_argument naming the field).
PatchRequest request_from_json(const nlohmann::json& j);

// One request line (at most kMaxServeLineBytes, checked by the reader) to a request: the bounded JSON
// reader (fone/io/json_bounded.h), then request_from_json. *request_json receives the parsed object (its
// "id" goes back with the answer). std::invalid_argument with a one-line message otherwise.
PatchRequest parse_serve_line(const std::string& line, nlohmann::json* request_json);

// One line of an error answer: the first line of the message, at most kMaxServeErrorBytes, escaped.
std::string served_error(const std::string& what);

// Reads one line of at most max_bytes (without its newline). A longer line is consumed to its end and
// *too_long set; only max_bytes of it are ever held. False at the end of the input.
bool read_bounded_line(std::istream& in, std::string& line, std::size_t max_bytes, bool* too_long);

}  // namespace fone::cli
