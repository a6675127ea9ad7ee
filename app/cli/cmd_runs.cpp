// fone runs list | show | export: the run store on the command line.
//
//   fone runs list                          aligned table: name, status, task, method, train_size, ...
//   fone runs list --format json            one JSON object per run
//   fone runs show dec-add-fone-20261122-041502
//   fone runs export RUN --format csv       the run's metrics.jsonl as CSV
//   fone runs export --all --out runs.csv   the list table as CSV
//   fone runs export --all --metrics        every run's metrics in one long CSV / JSON lines (run_export.h)
//   fone runs convert RUN --trust           an older build's .pt checkpoints as safetensors (cmd_export.cpp:
//                                           it needs LibTorch)
//   fone runs note | tag | diff | mv | rm | restore | trash | archive | pack | unpack   (cmd_runs_keep.cpp)
//
// The store is --runs-dir, else $FONE_RUNS_DIR, else $XDG_DATA_HOME/fone-workbench/runs. These commands
// only read: a missing store is an empty one, never created.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>
#include <set>
#include <sstream>

#include "cmd_runs.h"
#include "command_support.h"
#include "fone/store/run_export.h"
#include "fone/store/run_store.h"
#include "json_io.h"

namespace fone::cli {
namespace {

using nlohmann::json;

std::string dump_line(const json& j) {
    return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

// A JSON value as one cell of text: strings bare, null blank, everything else as compact JSON.
std::string cell_text(const json& v) {
    if (v.is_null()) return "";
    if (v.is_string()) return v.get<std::string>();
    return dump_line(v);
}

// A run's tags in one cell: "baseline paper-fig3".
std::string tags_text(const json& tags) {
    std::string out;
    for (const json& t : tags)
        if (t.is_string()) out += (out.empty() ? "" : " ") + t.get<std::string>();
    return out;
}

// The list table's columns, in order; the table shows the first kTableColumns.
// "tags" came later: it is last, so that older readers of the CSV find every column where it was.
const std::vector<std::string> kListColumns = {"name",        "status",  "task",    "method", "train_size",
                                               "exact_match", "updated", "message", "dir",    "tags"};
constexpr std::size_t kTableColumns = 7;
// The table's columns: the first kTableColumns, and the tags when some run has them.
std::vector<std::size_t> table_columns(const std::vector<json>& rows) {
    std::vector<std::size_t> columns;
    for (std::size_t c = 0; c < kTableColumns; ++c)
        columns.push_back(c);
    for (const json& row : rows)
        if (!row["tags"].empty()) {
            columns.push_back(kListColumns.size() - 1);
            break;
        }
    return columns;
}

// summary.json's "exact_match", else that of its "final" evaluation (the trainer's summary); null if neither.
json summary_exact_match(const json& summary) {
    if (!summary.is_object()) return nullptr;
    if (const auto it = summary.find("exact_match"); it != summary.end() && !it->is_null()) return *it;
    if (const auto f = summary.find("final"); f != summary.end() && f->is_object())
        if (const auto it = f->find("exact_match"); it != f->end()) return *it;
    return nullptr;
}

json list_row(const RunInfo& r) {
    json row = json::object();
    row["name"] = r.name;
    row["status"] = r.status;
    row["task"] = config_value(r.config, "task");
    row["method"] = config_value(r.config, "method");
    row["train_size"] = config_value(r.config, "train_size");
    row["exact_match"] = summary_exact_match(r.summary);
    row["updated"] =
        r.last_status.is_object() && r.last_status.contains("updated") ? r.last_status["updated"] : json();
    row["message"] = r.message;
    row["dir"] = r.dir;
    row["tags"] = r.tags;
    return row;
}

std::string format_table(const std::vector<json>& rows) {
    const std::vector<std::size_t> columns = table_columns(rows);
    const std::size_t n = columns.size();
    std::vector<std::vector<std::string>> cells;
    cells.emplace_back();
    for (const std::size_t c : columns)
        cells.back().push_back(kListColumns[c]);
    for (const json& row : rows) {
        std::vector<std::string> line;
        for (const std::size_t c : columns) {
            const json& v = row[kListColumns[c]];
            std::string t = v.is_array() ? tags_text(v) : cell_text(v);
            std::replace_if(
                t.begin(), t.end(), [](char ch) { return ch == '\n' || ch == '\r' || ch == '\t'; }, ' ');
            line.push_back(std::move(t));
        }
        cells.push_back(std::move(line));
    }
    std::vector<std::size_t> width(n, 0);
    for (const auto& line : cells)
        for (std::size_t c = 0; c < n; ++c)
            width[c] = std::max(width[c], line[c].size());
    std::string out;
    for (const auto& line : cells) {
        std::string text;
        for (std::size_t c = 0; c < n; ++c) {
            if (c) text += "  ";
            text += line[c];
            if (c + 1 < n) text.append(width[c] - line[c].size(), ' ');
        }
        while (!text.empty() && text.back() == ' ')
            text.pop_back();
        out += text + "\n";
    }
    return out;
}

std::string format_list(const std::vector<json>& rows, const std::string& format) {
    if (format == "table") return format_table(rows);
    std::string out;
    if (format == "json") {
        for (const json& row : rows)
            out += dump_line(row) + "\n";
        return out;
    }
    out = csv_row(kListColumns);
    for (const json& row : rows) {
        std::vector<std::string> line;
        for (const auto& col : kListColumns)
            line.push_back(row[col].is_array() ? tags_text(row[col]) : cell_text(row[col]));
        out += csv_row(line);
    }
    return out;
}

std::vector<json> list_rows(const RunsOptions& o, const std::string& status_filter,
                            const std::string& tag = "") {
    std::vector<json> rows;
    for (const RunInfo& r : open_store(o.runs_dir, false).list())
        if ((status_filter.empty() || r.status == status_filter) &&
            (tag.empty() || std::find(r.tags.begin(), r.tags.end(), tag) != r.tags.end()))
            rows.push_back(list_row(r));
    return rows;
}

// The metrics of one run as CSV: the union of the records' keys in first-seen order.
std::string metrics_csv(const std::vector<json>& records) {
    std::vector<std::string> header;
    std::set<std::string> seen;
    for (const json& rec : records)
        for (const auto& [key, value] : rec.items())
            if (seen.insert(key).second) header.push_back(key);
    std::string out = csv_row(header);
    for (const json& rec : records) {
        std::vector<std::string> line;
        for (const auto& key : header) {
            const auto it = rec.find(key);
            line.push_back(it == rec.end() ? "" : cell_text(*it));
        }
        out += csv_row(line);
    }
    return out;
}

// A run that can be shown or exported: resolved, and not broken. RunError otherwise.
RunInfo readable_run(const RunsOptions& o, const std::string& name) {
    const RunStore store = open_store(o.runs_dir, false);
    RunInfo info = store.info(store.resolve(name));
    if (info.status == kStatusBroken) throw RunError(info.message);
    return info;
}

std::string metrics_path(const RunInfo& info) {
    return (std::filesystem::path(info.dir) / kMetricsFile).string();
}

// On stdout, or into out_file (atomically) when one is given.
void emit(const std::string& content, const std::string& out_file) {
    if (out_file.empty()) {
        std::cout << content;
        std::cout.flush();
        return;
    }
    write_file_atomic(out_file, content);
}

// One run's metrics as CSV or JSON lines; a warning on stderr when the file's last line was cut short.
std::string metrics_text(const RunsOptions& o, const std::string& name, const std::string& format) {
    const RunInfo info = readable_run(o, name);
    const std::string path = metrics_path(info);
    const MetricsFile m = read_metrics(path);
    if (m.truncated_tail)
        std::cerr << "fone runs export: warning: " << path << ": the last line was cut short (a crash while "
                  << "writing); " << m.records.size() << " complete record(s) exported" << std::endl;
    if (format == "csv") return metrics_csv(m.records);
    std::string content;
    for (const json& rec : m.records)
        content += dump_line(rec) + "\n";
    return content;
}

const std::vector<std::string> kStatuses = {kStatusRunning, kStatusFinished,    kStatusStopped,
                                            kStatusFailed,  kStatusInterrupted, kStatusBroken};

void register_list(CLI::App* runs, std::shared_ptr<RunsOptions> o) {
    auto format = std::make_shared<std::string>("table");
    auto status = std::make_shared<std::string>();
    auto* cmd = runs->add_subcommand("list", "All runs, sorted by name: status, task, method, size, result");
    cmd->fallthrough();
    cmd->add_option("--format", *format, "table (aligned columns), json (one object per run) or csv")
        ->check(CLI::IsMember({"table", "json", "csv"}))
        ->capture_default_str();
    cmd->add_option("--status", *status, "Only runs in this state")->check(CLI::IsMember(kStatuses));
    auto tag = std::make_shared<std::string>();
    cmd->add_option("--tag", *tag, "Only runs with this tag (fone runs tag)");
    cmd->callback([o, format, status, tag] {
        run_command("runs list", [&] { emit(format_list(list_rows(*o, *status, *tag), *format), ""); });
    });
}

// `fone runs show`: the run, its last metrics record and how many there are.
json show_json(const RunsOptions& o, const std::string& name) {
    const RunInfo info = readable_run(o, name);
    const MetricsFile m = read_metrics(metrics_path(info));
    return {{"name", info.name},
            {"dir", info.dir},
            {"status", info.status},
            {"message", info.message},
            {"config", info.config},
            {"summary", info.summary},
            {"status_file", info.last_status},
            {"last_metrics", m.records.empty() ? json() : m.records.back()},
            {"metrics_count", m.records.size()},
            {"truncated_tail", m.truncated_tail},
            {"notes", info.notes},
            {"tags", info.tags}};
}

void register_show(CLI::App* runs, std::shared_ptr<RunsOptions> o) {
    auto name = std::make_shared<std::string>();
    auto* cmd = runs->add_subcommand(
        "show", "One run as a JSON object: status, config, summary, last metrics record and their count");
    cmd->fallthrough();
    cmd->add_option("run", *name, "Run name in the store, or a path to a run directory")->required();
    cmd->callback(
        [o, name] { run_command("runs show", [&] { print_json_line(std::cout, show_json(*o, *name)); }); });
}

// `fone runs export --all --metrics`: every run's metrics in one long table (fone/store/run_export.h).
void export_all_metrics_cli(const RunsOptions& o, const std::string& format, const std::string& out_file) {
    const std::vector<RunInfo> runs = open_store(o.runs_dir, false).list();
    const auto f = format == "csv" ? MetricsExportFormat::csv : MetricsExportFormat::jsonl;
    const MetricsExport report = out_file.empty() ? export_all_metrics(runs, f, std::cout)
                                                  : export_all_metrics_to_file(runs, f, out_file);
    std::cout.flush();
    for (const std::string& w : report.warnings)
        std::cerr << "fone runs export: warning: " << w << std::endl;
}

void register_export(CLI::App* runs, std::shared_ptr<RunsOptions> o) {
    auto name = std::make_shared<std::string>();
    auto all = std::make_shared<bool>(false);
    auto metrics = std::make_shared<bool>(false);
    auto format = std::make_shared<std::string>("csv");
    auto out_file = std::make_shared<std::string>();
    auto* cmd = runs->add_subcommand("export",
                                     "A run's metrics (one row per evaluation), or with --all the run list");
    cmd->fallthrough();
    auto* run_opt = cmd->add_option("run", *name, "Run name in the store, or a path to a run directory");
    auto* all_flag = cmd->add_flag("--all", *all, "Export the list of all runs instead of one run's metrics")
                         ->excludes(run_opt);
    cmd->add_flag(
           "--metrics", *metrics,
           "With --all: every run's metrics in one long table, one row per record, with the run's name and "
           "the settings that differ between runs (config.<key>) as columns")
        ->needs(all_flag);
    cmd->add_option("--format", *format, "csv (header: every metric seen) or json (JSON lines)")
        ->check(CLI::IsMember({"csv", "json"}))
        ->capture_default_str();
    cmd->add_option("--out", *out_file, "Write to FILE (atomically) instead of stdout");
    cmd->callback([o, name, all, metrics, format, out_file] {
        if (!*all && name->empty()) fail("runs export", "name a RUN, or give --all", 2);
        run_command("runs export", [&] {
            if (*metrics) return export_all_metrics_cli(*o, *format, *out_file);
            emit(*all ? format_list(list_rows(*o, ""), *format) : metrics_text(*o, *name, *format),
                 *out_file);
        });
    });
}

}  // namespace

void add_run_commands(CLI::App& app) {
    auto o = std::make_shared<RunsOptions>();
    auto* runs = app.add_subcommand(
        "runs", "The run store: list, show, export, note, tag, compare, tidy and share training runs");
    runs->add_option("--runs-dir", o->runs_dir,
                     "Run store directory (default: $XDG_DATA_HOME/fone-workbench/runs)")
        ->envname("FONE_RUNS_DIR");
    runs->require_subcommand(1);
    register_list(runs, o);
    register_show(runs, o);
    register_export(runs, o);
    add_run_keeping_commands(runs, o);
}

}  // namespace fone::cli
