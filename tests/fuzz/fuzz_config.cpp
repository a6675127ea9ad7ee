// libFuzzer target for the config loader: the text of a config file (`fone train --config FILE`, a run's
// config.json) through config_settings_from_text, TrainConfig::from_json and resolve_train_config (alone and
// over the "paper" preset), as `fone train` and the launch panel use them.
//
// The contract: text that is not JSON is a RunError; JSON that is not a valid config is a
// std::invalid_argument whose message names the setting ("config: \"lr\": expected a number", "lr: must be
// in (0, 10)"); a config that resolves validates and survives to_json -> from_json unchanged. Anything else
// (another exception type, a crash, a hang, unbounded memory) is a finding: check() traps so that libFuzzer
// keeps the input.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "fone/store/run_store.h"
#include "fone/store/train_config.h"

namespace {

void check(bool ok) {
    if (!ok) __builtin_trap();
}

// A clear message: not empty, and ours, not nlohmann's bare "[json.exception.type_error.302] ..." (a key
// echoed inside ours may hold any text, so only the start is checked).
void check_message(const char* what) {
    check(what != nullptr && std::strlen(what) > 0);
    check(std::strncmp(what, "[json.exception", 15) != 0);
}

void check_round_trip(const fone::TrainConfig& c) {
    c.validate();  // resolve_train_config validated it; validating again must agree
    const nlohmann::json j = c.to_json();
    const fone::TrainConfig again = fone::TrainConfig::from_json(j);
    check(again.to_json() == j);
}

void resolve(const std::vector<nlohmann::json>& layers) {
    try {
        check_round_trip(fone::resolve_train_config(layers));
    } catch (const std::invalid_argument& e) {
        check_message(e.what());
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    nlohmann::json settings;
    try {
        settings = fone::config_settings_from_text(text, "fuzz.json");
    } catch (const fone::RunError& e) {
        check_message(e.what());
        return 0;
    } catch (const std::invalid_argument& e) {  // JSON, but not an object
        check_message(e.what());
        return 0;
    }
    check(settings.is_object() && !settings.contains("versions"));
    try {
        const fone::TrainConfig c = fone::TrainConfig::from_json(settings);
        try {
            c.validate();
            check_round_trip(c);
        } catch (const std::invalid_argument& e) {
            check_message(e.what());
        }
    } catch (const std::invalid_argument& e) {
        check_message(e.what());
    }
    resolve({settings});
    resolve({fone::preset_settings("paper"), settings});
    return 0;
}
