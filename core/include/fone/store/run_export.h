// Every run's metrics in one long table: `fone runs export --all --metrics` and the run table's Export… in
// the window (TensorBoard #1232: all runs in one file). One row per metrics record, with the run's name and
// the settings that differ between the exported runs (resolved, fone/store/run_diff.h) as columns:
//
//   run, config.<setting>..., <every key any record has, in first-seen order>
//
// CSV (RFC 4180) or JSON lines (one object per record, the same columns as keys). Broken runs are left out
// (with a warning); a metrics file whose last line was cut short gives its complete records (warned).
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include "fone/store/run_store.h"

namespace fone {

enum class MetricsExportFormat { csv, jsonl };

struct MetricsExport {
    std::size_t runs = 0, rows = 0;
    std::vector<std::string> settings;  // the config.<key> columns
    std::vector<std::string> warnings;  // one line each
};

// Writes the runs' metrics to out; the metrics files are read twice (keys, then rows), never all at once.
MetricsExport export_all_metrics(const std::vector<RunInfo>& runs, MetricsExportFormat format,
                                 std::ostream& out);
// The same into a file, atomically (a temporary beside it, renamed; never through a link).
MetricsExport export_all_metrics_to_file(const std::vector<RunInfo>& runs, MetricsExportFormat format,
                                         const std::string& path);

// RFC 4180: quoted when it holds a comma, a quote or a line break; quotes doubled.
std::string csv_field(const std::string& s);
std::string csv_row(const std::vector<std::string>& cells);

}  // namespace fone
