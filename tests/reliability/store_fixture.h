// A run store of N runs written by hand (only the files the readers look at), some of them damaged in the
// ways a crash, a full disk or a careless edit leave them. Shared by test_store_scale and bench_store.
#pragma once

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fone/store/run_store.h"

namespace fone_test {

// How a damaged run is damaged, and the words its "broken" message must hold (empty: it is not broken).
struct Damage {
    const char* kind;
    const char* expect;  // substring of RunInfo::message; "" when the run still lists as healthy
};

inline const std::vector<Damage>& damages() {
    static const std::vector<Damage> d = {
        {"config-truncated", "config.json: corrupt JSON at byte"},
        {"config-empty", "config.json: corrupt JSON (empty file)"},
        {"config-missing", "config.json: missing"},
        {"config-binary", "config.json: corrupt JSON"},
        {"config-list", "config.json: corrupt JSON (not an object)"},
        {"config-directory", "config.json: cannot read"},
        {"status-truncated", "status.json: corrupt JSON"},
        {"status-no-field", "status.json: no \"status\" field"},
        {"summary-truncated", "summary.json: corrupt JSON"},
        {"summary-list", "summary.json: corrupt JSON (not an object)"},
        // Not broken: odd but valid JSON the readers must survive, and metrics damage (`fone runs list`
        // does not read metrics; `fone runs show` names the line).
        {"summary-wrong-types", ""},
        {"metrics-garbage-line", ""},
        {"metrics-cut-tail", ""},
    };
    return d;
}

inline void write_text(const std::string& path, const std::string& text) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

// Writes `runs` runs under root: every `every`-th one damaged (cycling through damages()), the rest
// finished runs with 20 metrics records each. Names "run-00000" ...; returns the names of damaged ones
// with their damage index.
inline std::vector<std::pair<std::string, std::size_t>> make_store(const std::string& root, int runs,
                                                                   int every = 20) {
    namespace fs = std::filesystem;
    using nlohmann::json;
    fs::create_directories(root);
    std::vector<std::pair<std::string, std::size_t>> damaged;
    std::size_t next_damage = 0;
    for (int i = 0; i < runs; ++i) {
        char name[32];
        std::snprintf(name, sizeof name, "run-%05d", i);
        const std::string dir = root + "/" + name;
        fs::create_directories(dir);
        const json config = {{"task", "dec-add"},
                             {"method", i % 3 ? "fone" : "digit"},
                             {"train_size", 800 << (i % 7)},
                             {"size_level", 1 + i % 3},
                             {"seed", i % 5},
                             {"epochs", 5},
                             {"lr", 0.003},
                             {"batch", 256}};
        const json status = {{"status", "finished"},
                             {"pid", 1},
                             {"host", "elsewhere"},
                             {"updated", "2026-11-22T04:15:02Z"},
                             {"message", "trained 5 epochs"},
                             {"step", 100},
                             {"epoch", 5}};
        json summary = {{"status", "finished"},
                        {"step", 100},
                        {"epoch", 5},
                        {"best_exact_match", 0.9},
                        {"train_seconds", 12.5},
                        {"elapsed_seconds", 14.0},
                        {"params", 123456},
                        {"final", {{"exact_match", 0.01 * (i % 100)}, {"digit_accuracy", 0.95}}}};
        std::string metrics;
        for (int k = 1; k <= 20; ++k)
            metrics += (k % 5 ? json{{"event", "progress"},
                                     {"step", k * 5},
                                     {"total_steps", 100},
                                     {"epoch", k * 0.25},
                                     {"loss", 2.0 / k},
                                     {"elapsed_seconds", k * 0.7}}
                              : json{{"event", "eval"},
                                     {"split", "test"},
                                     {"step", k * 5},
                                     {"epoch", k * 0.25},
                                     {"exact_match", k * 0.045},
                                     {"digit_accuracy", 0.5 + k * 0.02},
                                     {"elapsed_seconds", k * 0.7}})
                           .dump() +
                       "\n";
        const bool damage = every > 0 && i % every == every / 2;
        const std::string kind = damage ? damages()[next_damage % damages().size()].kind : "";
        const std::string config_text = config.dump(2);
        if (kind == "config-truncated")
            write_text(dir + "/config.json", config_text.substr(0, config_text.size() / 2));
        else if (kind == "config-empty")
            write_text(dir + "/config.json", "");
        else if (kind == "config-binary")
            write_text(dir + "/config.json", std::string("\x89PNG\r\n\x1a\n\0\0\xff", 12));
        else if (kind == "config-list")
            write_text(dir + "/config.json", "[1, 2, 3]\n");
        else if (kind == "config-directory")
            fs::create_directories(dir + "/config.json");
        else if (kind != "config-missing")
            write_text(dir + "/config.json", config_text);
        const std::string status_text = status.dump(2);
        if (kind == "status-truncated")
            write_text(dir + "/status.json", status_text.substr(0, 17));
        else if (kind == "status-no-field")
            write_text(dir + "/status.json", R"({"pid": 5, "status": 7})");
        else
            write_text(dir + "/status.json", status_text);
        if (kind == "summary-wrong-types")
            summary = {{"epoch", "five"},   {"train_seconds", {1, 2}}, {"final", "none"},
                       {"params", nullptr}, {"best_exact_match", "x"}, {"step", true}};
        const std::string summary_text = summary.dump(2);
        if (kind == "summary-truncated")
            write_text(dir + "/summary.json", summary_text.substr(0, summary_text.size() - 3));
        else if (kind == "summary-list")
            write_text(dir + "/summary.json", "[]");
        else
            write_text(dir + "/summary.json", summary_text);
        if (kind == "metrics-garbage-line")
            metrics.insert(metrics.find('\n') + 1, "\x01garbage{{{\n[1,2]\n{\"event\":5}\n");
        if (kind == "metrics-cut-tail") metrics += R"({"event":"progress","st)";
        write_text(dir + "/metrics.jsonl", metrics);
        if (damage) damaged.emplace_back(name, next_damage++ % damages().size());
    }
    return damaged;
}

}  // namespace fone_test
