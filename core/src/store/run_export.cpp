// All runs' metrics in one long table.
#include "fone/store/run_export.h"

#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <set>
#include <streambuf>

#include "fone/io/file_write.h"
#include "fone/io/json_files.h"
#include "fone/store/run_diff.h"

namespace fone {

namespace fs = std::filesystem;
using nlohmann::json;

std::string csv_field(const std::string& s) {
    if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
    std::string out = "\"";
    for (const char c : s) {
        if (c == '"') out += '"';
        out += c;
    }
    return out + "\"";
}

std::string csv_row(const std::vector<std::string>& cells) {
    std::string line;
    for (std::size_t i = 0; i < cells.size(); ++i) {
        if (i) line += ',';
        line += csv_field(cells[i]);
    }
    return line + "\n";
}

namespace {

MetricsFile run_metrics(const RunInfo& r, MetricsExport* report) {
    const std::string path = (fs::path(r.dir) / kMetricsFile).string();
    MetricsFile m = read_metrics(path);
    if (m.truncated_tail && report)
        report->warnings.push_back(path + ": the last line was cut short (a crash while writing); " +
                                   std::to_string(m.records.size()) + " complete record(s) exported");
    return m;
}

// The runs worth exporting (not broken), and a warning for each left out.
std::vector<const RunInfo*> exportable(const std::vector<RunInfo>& runs, MetricsExport& report) {
    std::vector<const RunInfo*> out;
    for (const RunInfo& r : runs) {
        if (r.status == kStatusBroken)
            report.warnings.push_back(r.name + ": left out (broken: " + r.message + ")");
        else
            out.push_back(&r);
    }
    return out;
}

// Every record's keys, in first-seen order over the runs (a first pass over their metrics).
std::vector<std::string> metric_keys(const std::vector<const RunInfo*>& runs) {
    std::vector<std::string> keys;
    std::set<std::string> seen;
    for (const RunInfo* r : runs)
        for (const json& rec : run_metrics(*r, nullptr).records)
            for (const auto& [key, value] : rec.items())
                if (seen.insert(key).second) keys.push_back(key);
    return keys;
}

}  // namespace

MetricsExport export_all_metrics(const std::vector<RunInfo>& runs, MetricsExportFormat format,
                                 std::ostream& out) {
    MetricsExport report;
    const std::vector<const RunInfo*> chosen = exportable(runs, report);
    std::vector<DiffRun> diff_runs;
    for (const RunInfo* r : chosen)
        diff_runs.push_back({r->name, r->config, json::object()});
    report.settings = differing_settings(diff_runs);
    const std::vector<std::string> keys =
        format == MetricsExportFormat::csv ? metric_keys(chosen) : std::vector<std::string>();
    if (format == MetricsExportFormat::csv) {
        std::vector<std::string> header = {"run"};
        for (const std::string& s : report.settings)
            header.push_back("config." + s);
        header.insert(header.end(), keys.begin(), keys.end());
        out << csv_row(header);
    }
    for (const RunInfo* r : chosen) {
        const json settings = resolved_settings(r->config);
        std::vector<std::string> fixed = {r->name};
        json fixed_json = {{"run", r->name}};
        for (const std::string& s : report.settings) {
            const json v = settings.contains(s) ? settings[s] : json();
            fixed.push_back(diff_cell_text(v));
            fixed_json["config." + s] = v;
        }
        for (const json& rec : run_metrics(*r, &report).records) {
            if (format == MetricsExportFormat::csv) {
                std::vector<std::string> line = fixed;
                for (const std::string& k : keys)
                    line.push_back(rec.contains(k) ? diff_cell_text(rec[k]) : "");
                out << csv_row(line);
            } else {
                json row = fixed_json;
                for (const auto& [k, v] : rec.items())
                    if (!row.contains(k)) row[k] = v;
                out << dump_json(row, -1) << "\n";
            }
            ++report.rows;
        }
        ++report.runs;
    }
    return report;
}

namespace {

// An output stream over a file descriptor (the temporary file create_temp_beside made, O_EXCL|O_NOFOLLOW:
// reopening it by name could follow a link planted meanwhile).
class FdBuffer : public std::streambuf {
  public:
    explicit FdBuffer(int fd) : fd_(fd) { setp(buf_, buf_ + sizeof buf_); }
    bool failed() const { return failed_; }
    int error() const { return error_; }

  protected:
    int overflow(int c) override {
        if (!flush_buffer()) return traits_type::eof();
        if (c != traits_type::eof()) sputc(static_cast<char>(c));
        return traits_type::not_eof(c);
    }
    int sync() override { return flush_buffer() ? 0 : -1; }

  private:
    bool flush_buffer() {
        for (char* p = pbase(); p < pptr();) {
            const ssize_t n = ::write(fd_, p, static_cast<std::size_t>(pptr() - p));
            if (n < 0 && errno == EINTR) continue;
            if (n < 0) {
                failed_ = true;
                error_ = errno;
                return false;
            }
            p += n;
        }
        setp(buf_, buf_ + sizeof buf_);
        return true;
    }
    int fd_;
    char buf_[1 << 16];
    bool failed_ = false;
    int error_ = 0;
};

}  // namespace

MetricsExport export_all_metrics_to_file(const std::vector<RunInfo>& runs, MetricsExportFormat format,
                                         const std::string& path) {
    std::string tmp;
    const int fd = create_temp_beside(path, &tmp);
    MetricsExport report;
    bool open = true;
    try {
        FdBuffer buffer(fd);
        std::ostream out(&buffer);
        report = export_all_metrics(runs, format, out);
        out.flush();
        if (buffer.failed()) throw write_error(path, "write", buffer.error());
        if (::fsync(fd) != 0) throw write_error(path, "write", errno);
        open = false;
        if (::close(fd) != 0) throw write_error(path, "write", errno);
    } catch (...) {
        if (open) ::close(fd);
        ::unlink(tmp.c_str());
        throw;
    }
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
        const int err = errno;
        ::unlink(tmp.c_str());
        throw write_error(path, "write", err);
    }
    return report;
}

}  // namespace fone
