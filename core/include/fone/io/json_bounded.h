// The one parser of JSON that comes from outside (run files, config.json, tokenizer.json, an index, an
// experiment file, a checkpoint's metadata, a --serve request line): nesting depth is limited WHILE parsing,
// before a deep document costs anything. nlohmann parses and frees any depth, but copying, dumping and
// comparing a value recurse once per level: a 200 KB file of 100,000 '[' crashed every command that
// touched it with a stack overflow. The size limit is the caller's (a file: read_regular_file's bound;
// a request line: its reader's), checked before the text is read.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace fone {

// No file or request this program reads nests deeper than about 8 levels (tokenizer.json's
// post-processor); 64 leaves room and keeps every recursive walk shallow.
inline constexpr int kMaxJsonDepth = 64;

struct JsonLimits {
    int max_depth = kMaxJsonDepth;
    bool unique_top_level_keys = false;  // a safetensors header: a tensor named twice is an error
    // Values (scalars, arrays and objects) in the whole document, 0: no limit. The parsed document costs
    // about 50 to 100 bytes of memory per value whatever the text's size: a 100 MB safetensors header of
    // small entries cost 2.5 GB before this bound.
    std::size_t max_values = 0;
};

// Parses text in two linear passes: a SAX pass that checks the limits (nothing is built), then nlohmann's
// plain parse. (nlohmann's parser callback would check depth in one pass, but it scans the parent object
// at every object's end: quadratic, 6.7 s for a header of 40,000 tensors.) On failure returns false and
// sets *error to one line starting with `where`: "<where>: corrupt JSON at byte N (<what>)" (nlohmann's
// message, its tag removed, at most 200 bytes), "<where>: nests deeper than 64 levels (the limit for JSON
// read from files and requests)", "<where>: names 'key' twice". Never throws for bad text.
bool parse_json_bounded(std::string_view text, const std::string& where, nlohmann::json& out,
                        std::string* error, const JsonLimits& limits = {});
bool parse_json_bounded(std::string_view text, const std::string& where, nlohmann::ordered_json& out,
                        std::string* error, const JsonLimits& limits = {});

}  // namespace fone
