// What differs between runs, over resolved settings and flattened results.
#include "fone/store/run_diff.h"

#include <map>
#include <set>
#include <stdexcept>

#include "fone/io/json_files.h"
#include "fone/store/train_config.h"

namespace fone {

using nlohmann::json;

namespace {

// Objects become dotted keys; arrays and scalars are values. prefix "" at the top.
void flatten_into(const json& j, const std::string& prefix, json& out) {
    if (j.is_object() && (!j.empty() || prefix.empty())) {
        for (const auto& [key, value] : j.items())
            flatten_into(value, prefix.empty() ? key : prefix + "." + key, out);
        return;
    }
    out[prefix] = j;
}

json flattened(const json& j) {
    json out = json::object();
    if (j.is_object()) flatten_into(j, "", out);
    return out;
}

// A row of values from each run's flat object, in key order.
void add_rows(DiffSection section, const std::vector<json>& flats, RunDiff& diff) {
    std::set<std::string> keys;
    for (const json& f : flats)
        for (const auto& [key, value] : f.items())
            keys.insert(key);
    for (const std::string& key : keys) {
        DiffRow row;
        row.section = section;
        row.key = key;
        for (const json& f : flats) {
            const auto it = f.find(key);
            row.values.push_back(it == f.end() ? json() : *it);
        }
        for (const json& v : row.values)
            row.differs = row.differs || v != row.values.front();
        diff.rows.push_back(std::move(row));
    }
}

}  // namespace

std::size_t RunDiff::differing(DiffSection section) const {
    std::size_t n = 0;
    for (const DiffRow& r : rows)
        n += r.section == section && r.differs;
    return n;
}

json resolved_settings(const json& config_record) {
    if (!config_record.is_object()) return json::object();
    json whole = config_record;
    try {
        json record = config_record;
        record.erase("versions");
        whole = TrainConfig::from_json(record).to_json();
        if (const auto v = config_record.find("versions"); v != config_record.end()) whole["versions"] = *v;
    } catch (const std::exception&) {
        // A config this build cannot read (a newer build's key, a damaged value): compared as written.
    }
    whole.erase("name");
    return flattened(whole);
}

RunDiff diff_runs(const std::vector<DiffRun>& runs) {
    RunDiff diff;
    std::vector<json> settings, results;
    for (const DiffRun& r : runs) {
        diff.runs.push_back(r.name);
        settings.push_back(resolved_settings(r.config));
        results.push_back(flattened(r.summary));
    }
    add_rows(DiffSection::setting, settings, diff);
    add_rows(DiffSection::result, results, diff);
    return diff;
}

std::vector<std::string> differing_settings(const std::vector<DiffRun>& runs) {
    std::vector<json> settings;
    for (const DiffRun& r : runs)
        settings.push_back(resolved_settings(r.config));
    RunDiff diff;
    add_rows(DiffSection::setting, settings, diff);
    std::vector<std::string> keys;
    for (const DiffRow& row : diff.rows)
        if (row.differs) keys.push_back(row.key);
    return keys;
}

std::string diff_cell_text(const json& v) {
    if (v.is_null()) return "";
    if (v.is_string()) return v.get<std::string>();
    return dump_json(v, -1);
}

}  // namespace fone
