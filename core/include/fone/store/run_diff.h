// What differs between runs: their resolved settings and their results, row by row, for `fone runs diff`,
// the all-metrics export's setting columns and the window's "Compare settings".
//
// Settings are compared resolved: a run's config.json read as the trainer reads it (TrainConfig::from_json,
// so a key an older run lacks takes the default it trained with) and written back whole (to_json), so a
// default and an explicit equal value are the same. Nested objects become dotted keys ("model.hidden").
// "name" is left out (each run's column says it); "versions.*" (the fone and LibTorch that trained it) are
// settings too. Results are summary.json's figures, flattened the same way ("final.exact_match").
// Values are equal when their JSON is (numbers by value: 1 and 1.0 are equal).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace fone {

struct DiffRun {
    std::string name;
    nlohmann::json config;   // config.json as read ({} when broken)
    nlohmann::json summary;  // summary.json ({} until finished)
};

enum class DiffSection { setting, result };

struct DiffRow {
    DiffSection section = DiffSection::setting;
    std::string key;                     // "lr", "model.hidden", "final.exact_match"
    std::vector<nlohmann::json> values;  // one per run, null where the run has none
    bool differs = false;
};

struct RunDiff {
    std::vector<std::string> runs;
    std::vector<DiffRow> rows;  // settings then results, each by key
    std::size_t differing(DiffSection section) const;
};

// A run's settings as the trainer resolves them, flattened to dotted keys; a config that does not read as
// a TrainConfig (a newer build's key) is flattened as it is.
nlohmann::json resolved_settings(const nlohmann::json& config_record);

// Every setting and result of the runs, each row marked whether it differs.
RunDiff diff_runs(const std::vector<DiffRun>& runs);

// The keys of the settings that differ between the runs (in key order): the all-metrics export's columns.
std::vector<std::string> differing_settings(const std::vector<DiffRun>& runs);

// A value as one cell of text: strings bare, null "", everything else compact JSON.
std::string diff_cell_text(const nlohmann::json& v);

}  // namespace fone
