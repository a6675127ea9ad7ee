// Circular probes per digit place (fone/analysis/digit_probe.h; docs/analysis.md).
#include "fone/analysis/digit_probe.h"

#include <algorithm>

namespace fone::analysis {

std::vector<int> digit_classes(const std::vector<Decimal>& numbers, int place) {
    std::vector<int> out;
    out.reserve(numbers.size());
    for (const Decimal& x : numbers)
        out.push_back(x.digit(place));
    return out;
}

std::vector<int> digit_places(const std::vector<Decimal>& numbers) {
    int highest = 0, lowest = 0;
    for (const Decimal& x : numbers) {
        highest = std::max(highest, static_cast<int>(x.int_digits().size()) - 1);
        lowest = std::min(lowest, -x.frac_digit_count());
    }
    std::vector<int> places;
    for (int p = highest; p >= lowest; --p)
        places.push_back(p);
    return places;
}

ProbeResult probe_digit(const Eigen::MatrixXd& rows, const std::vector<Decimal>& numbers, int place,
                        const ProbeOptions& options) {
    ProbeOptions circular = options;
    circular.code = ProbeCode::circular;
    return probe(rows, digit_classes(numbers, place), 10, circular);
}

DigitProbeTable digit_probes(const std::vector<Eigen::MatrixXd>& layers, const std::vector<Decimal>& numbers,
                             const std::vector<int>& places, const ProbeOptions& options,
                             const Progress& progress) {
    DigitProbeTable table;
    table.places = places;
    const double total = static_cast<double>(layers.size() * std::max<std::size_t>(places.size(), 1));
    double done = 0;
    for (const Eigen::MatrixXd& rows : layers) {
        std::vector<ProbeResult> row;
        for (const int place : places) {
            progress.check();
            row.push_back(probe_digit(rows, numbers, place, options));
            progress.tell(++done / total);
        }
        table.results.push_back(std::move(row));
    }
    return table;
}

std::string place_name(int place) {
    static const char* const kNames[] = {"hundredths", "tenths", "units", "tens", "hundreds", "thousands"};
    if (place >= -2 && place <= 3) return kNames[place + 2];
    return "10^" + std::to_string(place);
}

}  // namespace fone::analysis
