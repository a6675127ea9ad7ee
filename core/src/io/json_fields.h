// Strict reading of JSON objects into structs: unknown keys and wrong types are errors that name the key.
// Private to core.
#pragma once

#include <climits>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>

namespace fone::detail {

class JsonFields {
  public:
    JsonFields(const nlohmann::json& j, std::string where) : j_(j), where_(std::move(where)) {
        if (!j_.is_object()) throw std::invalid_argument(where_ + ": expected a JSON object");
    }

    // Reads j[key] into out when present; throws naming the key when its type does not fit.
    template <typename T>
    void read(const std::string& key, T& out) {
        seen_.insert(key);
        const auto it = j_.find(key);
        if (it == j_.end() || it->is_null()) return;
        try {
            if constexpr (std::is_same_v<T, bool>) {
                if (!it->is_boolean()) throw std::invalid_argument("expected true or false");
            } else if constexpr (std::is_integral_v<T>) {
                if (!it->is_number_integer()) throw std::invalid_argument("expected an integer");
                // nlohmann's get<int> of 4294967297 is 1: a value that does not fit is an error, not a wrap.
                if (it->is_number_unsigned()) {
                    if (it->template get<unsigned long long>() >
                        static_cast<unsigned long long>(std::numeric_limits<T>::max()))
                        throw std::invalid_argument("out of range (at most " +
                                                    std::to_string(std::numeric_limits<T>::max()) + ")");
                } else {
                    const long long v = it->template get<long long>();
                    if constexpr (std::is_unsigned_v<T>) {
                        if (v < 0) throw std::invalid_argument("must not be negative");
                    } else if (v < static_cast<long long>(std::numeric_limits<T>::min()) ||
                               v > static_cast<long long>(std::numeric_limits<T>::max())) {
                        throw std::invalid_argument("out of range (" +
                                                    std::to_string(std::numeric_limits<T>::min()) + ".." +
                                                    std::to_string(std::numeric_limits<T>::max()) + ")");
                    }
                }
            } else if constexpr (std::is_floating_point_v<T>) {
                if (!it->is_number()) throw std::invalid_argument("expected a number");
            } else if constexpr (std::is_same_v<T, std::string>) {
                if (!it->is_string()) throw std::invalid_argument("expected a string");
            } else if constexpr (std::is_same_v<T, std::vector<int>>) {
                if (!it->is_array()) throw std::invalid_argument("expected a list of integers");
                for (const auto& v : *it) {
                    const bool fits = v.is_number_unsigned()
                                          ? v.template get<unsigned long long>() <= INT_MAX
                                          : v.is_number_integer() && v.template get<long long>() >= INT_MIN &&
                                                v.template get<long long>() <= INT_MAX;
                    if (!fits) throw std::invalid_argument("expected a list of integers (each fits an int)");
                }
            } else if constexpr (std::is_same_v<T, std::map<std::string, double>>) {
                if (!it->is_object()) throw std::invalid_argument("expected an object of numbers");
                for (const auto& v : *it)
                    if (!v.is_number()) throw std::invalid_argument("expected an object of numbers");
            }
            out = it->template get<T>();
        } catch (const std::exception& e) {
            throw std::invalid_argument(where_ + ": \"" + key + "\": " + e.what());
        }
    }
    bool has(const std::string& key) const { return j_.contains(key) && !j_.at(key).is_null(); }
    void mark(const std::string& key) { seen_.insert(key); }

    // Throws for keys that no read() asked for.
    void reject_unknown() const {
        for (auto it = j_.begin(); it != j_.end(); ++it)
            if (!seen_.count(it.key()))
                throw std::invalid_argument(where_ + ": unknown setting \"" + it.key() + "\"");
    }

  private:
    const nlohmann::json& j_;
    std::string where_;
    std::set<std::string> seen_;
};

// A config's fields are listed once, by a function `fields(config, visit)` that calls visit("key",
// config.member) for each; these two walk that list both ways, so to_json and from_json cannot drift
// apart. A field that is itself a config (it has to_json/from_json) is written and read through them.
template <typename Config, typename FieldList>
void write_fields(nlohmann::json& j, const Config& c, FieldList&& fields) {
    fields(c, [&](const char* key, const auto& v) {
        if constexpr (requires { v.to_json(); })
            j[key] = v.to_json();
        else
            j[key] = v;
    });
}

template <typename Config, typename FieldList>
void read_fields(JsonFields& f, const nlohmann::json& j, Config& c, FieldList&& fields) {
    fields(c, [&](const char* key, auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (requires { T::from_json(j); }) {
            f.mark(key);
            if (f.has(key)) v = T::from_json(j.at(key));
        } else {
            f.read(key, v);
        }
    });
}

}  // namespace fone::detail
