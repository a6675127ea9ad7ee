// The requests of `fone analyse patch --serve` (serve_request.h).
#include "serve_request.h"

#include <charconv>
#include <cmath>
#include <stdexcept>

#include "fone/io/json_bounded.h"
#include "fone/io/shown_text.h"

namespace fone::cli {

using nlohmann::json;

int parse_layer(const std::string& text) {
    if (text == "head") return kHeadLayer;
    int layer = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), layer);
    if (ec != std::errc() || end != text.data() + text.size() || layer < 0)
        throw std::invalid_argument("--layer takes 'head' or a layer number 0.. (0: the input), not '" +
                                    text + "'");
    return layer;
}

namespace {

// An integer field of a request, in [lo, hi]; absent: fallback. true, 3.7, "3" or 2^40 are errors.
int int_field(const json& j, const char* key, int fallback, long long lo, long long hi) {
    const auto it = j.find(key);
    if (it == j.end()) return fallback;
    const bool fits =
        it->is_number_integer() &&
        (it->is_number_unsigned() ? it->get<unsigned long long>() <= static_cast<unsigned long long>(hi)
                                  : it->get<long long>() >= lo && it->get<long long>() <= hi);
    if (!fits)
        throw std::invalid_argument(std::string("\"") + key + "\" must be a whole number in " +
                                    std::to_string(lo) + ".." + std::to_string(hi));
    return static_cast<int>(it->get<long long>());
}

}  // namespace

// A request of `--serve`: the options of one patch as JSON ({"prompt", "place", "digit" | "angle",
// "layer", "position"}), every field type-checked (nothing is coerced).
PatchRequest request_from_json(const json& j) {
    if (!j.is_object()) throw std::invalid_argument("a request is a JSON object");
    PatchRequest r;
    const auto prompt = j.find("prompt");
    if (prompt == j.end() || !prompt->is_string()) throw std::invalid_argument("\"prompt\" must be a string");
    r.prompt = prompt->get<std::string>();
    r.place = int_field(j, "place", 0, -1000, 1000);
    if (j.contains("digit")) r.digit = int_field(j, "digit", -1, 0, 9);
    if (const auto angle = j.find("angle"); angle != j.end()) {
        if (!angle->is_number() || angle->is_boolean() || !std::isfinite(angle->get<double>()))
            throw std::invalid_argument("\"angle\" must be a finite number of degrees");
        r.angle_degrees = angle->get<double>();
    }
    if (r.digit < 0 && std::isnan(r.angle_degrees))
        throw std::invalid_argument("give \"digit\" or \"angle\"");
    if (r.digit >= 0 && !std::isnan(r.angle_degrees))
        throw std::invalid_argument("give \"digit\" or \"angle\", not both (each sets the pair's angle)");
    if (const auto id = j.find("id");
        id != j.end() && !(id->is_number() || (id->is_string() && id->get<std::string>().size() <= 100)))
        throw std::invalid_argument("\"id\" must be a number or a string of at most 100 bytes");
    const auto layer = j.find("layer");
    if (layer == j.end() || layer->is_string())
        r.layer = parse_layer(layer == j.end() ? std::string("head") : layer->get<std::string>());
    else
        r.layer = int_field(j, "layer", 0, 0, 4096);
    r.position = int_field(j, "position", -1, -1, 1 << 20);
    return r;
}

// One line of an error answer: the first line of the message, at most kMaxServeErrorBytes, escaped.
std::string served_error(const std::string& what) {
    const std::string line = what.substr(0, what.find('\n'));
    // The bound is on the answer as it is written: escaping (\xNN for a byte that is not text, then JSON's
    // own escapes) may make a text several times longer.
    const std::size_t room = kMaxServeErrorBytes - std::string(R"({"error":""})").size();
    std::size_t keep = kMaxServeErrorBytes;
    std::string shown = shown_text(line, keep);
    while (keep > 0 && json(shown).dump(-1, ' ', false, json::error_handler_t::replace).size() - 2 > room) {
        keep = keep * 3 / 4;
        shown = shown_text(line, keep);
    }
    return shown;
}

// Reads one line of at most max_bytes (without its newline). A longer line is consumed to its end and
// *too_long set; only max_bytes of it are ever held. False at the end of the input.
bool read_bounded_line(std::istream& in, std::string& line, std::size_t max_bytes, bool* too_long) {
    line.clear();
    *too_long = false;
    std::streambuf* buf = in.rdbuf();
    for (;;) {
        const int c = buf->sbumpc();
        if (c == std::char_traits<char>::eof()) return !line.empty() || *too_long;
        if (c == '\n') return true;
        if (line.size() < max_bytes)
            line += static_cast<char>(c);
        else
            *too_long = true;
    }
}

PatchRequest parse_serve_line(const std::string& line, json* request_json) {
    json request;
    std::string error;
    if (!parse_json_bounded(line, "the request", request, &error)) throw std::invalid_argument(error);
    PatchRequest r = request_from_json(request);
    if (request_json) *request_json = std::move(request);
    return r;
}

}  // namespace fone::cli
