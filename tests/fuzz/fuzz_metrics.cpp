// libFuzzer target for the metrics reader: the bytes of a metrics.jsonl through the run store's reader
// (parse_metrics: `fone runs show/export`) and, when Qt6 Core is there, the workbench's (apply_metrics_bytes
// and apply_event: the run table, the live curves, and a child's progress stream).
//
// The contract. parse_metrics: every complete line that is not blank is a JSON object record, else a
// RunError naming "<path>:<line>"; only a last line without a newline may be cut short (truncated_tail).
// The workbench: never throws, never crashes, skips what is not an event, consumes exactly up to the last
// newline. Anything else traps so that libFuzzer keeps the input.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "fone/store/run_store.h"

#ifdef FONE_FUZZ_WORKBENCH
#include <QByteArray>

#include "run_catalog.h"
#endif

namespace {

void check(bool ok) {
    if (!ok) __builtin_trap();
}

std::size_t count_nonblank_lines(std::string_view text) {
    std::size_t n = 0, pos = 0;
    while (pos < text.size()) {
        std::size_t nl = text.find('\n', pos);
        if (nl == std::string_view::npos) nl = text.size();
        if (text.substr(pos, nl - pos).find_first_not_of(" \t\r\n") != std::string_view::npos) ++n;
        pos = nl + 1;
    }
    return n;
}

void check_store_reader(std::string_view text) {
    try {
        const fone::MetricsFile m = fone::parse_metrics(text, "fuzz/metrics.jsonl");
        for (const auto& r : m.records)
            check(r.is_object());
        if (m.truncated_tail) check(!text.empty() && text.back() != '\n');
        check(m.records.size() + (m.truncated_tail ? 1 : 0) <= count_nonblank_lines(text));
    } catch (const fone::RunError& e) {
        check(std::strncmp(e.what(), "fuzz/metrics.jsonl:", 19) == 0);
        check(std::strstr(e.what(), "corrupt metrics line") != nullptr);
    }
}

#ifdef FONE_FUZZ_WORKBENCH
void check_workbench_reader(std::string_view text) {
    const QByteArray bytes(text.data(), static_cast<qsizetype>(text.size()));
    fone::gui::RunEntry e;
    e.series_loaded = true;  // the live-curve path appends points too
    qsizetype consumed = -1;
    const int records = fone::gui::apply_metrics_bytes(e, bytes, consumed);
    const qsizetype last_nl = bytes.lastIndexOf('\n');
    check(consumed == last_nl + 1);
    check(records >= 0 && static_cast<std::size_t>(records) <= count_nonblank_lines(text));
    check(e.series.loss_step.size() == e.series.loss.size());
    check(e.series.eval_step.size() == e.series.exact_match.size());
    // Each line as a child's stdout event (the job runner hands objects with a string "event" over).
    std::size_t pos = 0;
    while (pos < text.size()) {
        std::size_t nl = text.find('\n', pos);
        if (nl == std::string_view::npos) nl = text.size();
        const auto ev = nlohmann::json::parse(text.substr(pos, nl - pos), nullptr, false);
        if (!ev.is_discarded()) fone::gui::apply_event(e, ev);
        pos = nl + 1;
    }
}
#endif

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    check_store_reader(text);
#ifdef FONE_FUZZ_WORKBENCH
    check_workbench_reader(text);
#endif
    return 0;
}
