// libFuzzer target for experiment files (`fone reproduce`, experiments/*.json): the text of a file through
// parse_experiment, as `fone reproduce` and `fone reproduce --list` read them.
//
// The contract: every problem is a std::invalid_argument whose message starts with the file's name (and
// names the field); a file that loads has presets, each with cells of unique ids whose labels are an object
// and whose settings resolve as `fone train` resolves them. Anything else (another exception type, a crash,
// a hang, unbounded memory) is a finding: check() traps so that libFuzzer keeps the input.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <set>
#include <string>

#include "fone/store/experiments.h"
#include "fone/store/train_config.h"

namespace {

void check(bool ok) {
    if (!ok) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    fone::Experiment e;
    try {
        e = fone::parse_experiment(text, "fuzz.json");
    } catch (const std::invalid_argument& err) {
        check(std::strncmp(err.what(), "fuzz.json: ", 11) == 0);
        return 0;
    }
    check(e.name == "fuzz" && !e.title.empty() && !e.presets.empty());
    for (const fone::ExperimentPreset& p : e.presets) {
        check(!p.cells.empty());
        std::set<std::string> ids;
        for (const fone::ExperimentCell& c : p.cells) {
            check(ids.insert(c.id).second);
            check(c.labels.is_object() && c.settings.is_object());
            nlohmann::json st = c.settings;
            st["name"] = "repro-fuzz-" + p.name + "-" + c.id;
            fone::resolve_train_config({st});  // checked when the file was read: it must not throw now
        }
    }
    return 0;
}
