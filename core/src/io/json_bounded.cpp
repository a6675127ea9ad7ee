// JSON from outside, parsed with a nesting limit (fone/io/json_bounded.h).
#include "fone/io/json_bounded.h"

#include <unordered_set>

#include "fone/io/shown_text.h"

namespace fone {
namespace {

using nlohmann::json;

// nlohmann's message without its "[json.exception.parse_error.101] " tag, cut to one short line (a parse
// error quotes the token it stopped in, which can be a 10 MB string).
std::string nlohmann_reason(const char* what) {
    std::string text = what;
    if (text.rfind("[json.exception.", 0) == 0)
        if (const auto end = text.find("] "); end != std::string::npos) text.erase(0, end + 2);
    return shown_text(text, 200);
}

// The first pass: counts depth and (optionally) top-level keys, builds nothing; stops at the first problem.
class LimitCheck : public nlohmann::json_sax<json> {
  public:
    explicit LimitCheck(const JsonLimits& limits) : limits_(limits) {}
    std::string problem;  // "" when the text is within the limits and well-formed

    bool null() override { return value(); }
    bool boolean(bool) override { return value(); }
    bool number_integer(number_integer_t) override { return value(); }
    bool number_unsigned(number_unsigned_t) override { return value(); }
    bool number_float(number_float_t, const string_t&) override { return value(); }
    bool string(string_t&) override { return value(); }
    bool binary(binary_t&) override { return value(); }
    bool start_object(std::size_t) override { return value() && open(); }
    bool end_object() override { return close(); }
    bool start_array(std::size_t) override { return value() && open(); }
    bool end_array() override { return close(); }
    bool key(string_t& k) override {
        if (limits_.unique_top_level_keys && depth_ == 1 && !top_keys_.insert(k).second) {
            problem = "names '" + shown_text(k, 80) + "' twice";
            return false;
        }
        return true;
    }
    bool parse_error(std::size_t byte, const std::string&, const nlohmann::detail::exception& e) override {
        problem = e.id >= 400 && e.id < 500 ? "corrupt JSON (" + nlohmann_reason(e.what()) + ")"
                                            : "corrupt JSON at byte " + std::to_string(byte) + " (" +
                                                  nlohmann_reason(e.what()) + ")";
        return false;
    }

  private:
    bool value() {
        if (limits_.max_values == 0 || ++values_ <= limits_.max_values) return true;
        problem = "holds more than " + std::to_string(limits_.max_values) +
                  " values (the limit for this kind of file: parsing it would cost gigabytes)";
        return false;
    }
    bool open() {
        if (++depth_ > limits_.max_depth) {
            problem = "nests deeper than " + std::to_string(limits_.max_depth) +
                      " levels (the limit for JSON read from files and requests)";
            return false;
        }
        return true;
    }
    bool close() {
        --depth_;
        return true;
    }
    const JsonLimits& limits_;
    int depth_ = 0;
    std::size_t values_ = 0;
    std::unordered_set<std::string> top_keys_;
};

template <typename Json>
bool parse_bounded(std::string_view text, const std::string& where, Json& out, std::string* error,
                   const JsonLimits& limits) {
    out = Json();
    LimitCheck check(limits);
    const bool within = json::sax_parse(text.begin(), text.end(), &check);
    if (within && check.problem.empty()) {
        try {
            out = Json::parse(text.begin(), text.end());
            return true;
        } catch (const typename Json::exception& e) {  // not expected: the first pass saw the same text
            check.problem = "corrupt JSON (" + nlohmann_reason(e.what()) + ")";
        }
    }
    if (check.problem.empty()) check.problem = "corrupt JSON";
    if (error) *error = where + ": " + check.problem;
    out = Json();
    return false;
}

}  // namespace

bool parse_json_bounded(std::string_view text, const std::string& where, nlohmann::json& out,
                        std::string* error, const JsonLimits& limits) {
    return parse_bounded(text, where, out, error, limits);
}

bool parse_json_bounded(std::string_view text, const std::string& where, nlohmann::ordered_json& out,
                        std::string* error, const JsonLimits& limits) {
    return parse_bounded(text, where, out, error, limits);
}

}  // namespace fone
