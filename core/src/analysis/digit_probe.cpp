// Circular probes per digit place (fone/analysis/digit_probe.h; docs/analysis.md).
#include "fone/analysis/digit_probe.h"

#include <Eigen/Cholesky>
#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <random>
#include <stdexcept>

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

namespace {

constexpr double kTwoPi = 6.283185307179586476925286766559;

// |x| mod 10^e: the digits of |x| below 10^e (exact in the digits; a double only at the end).
double residue_below(const Decimal& x, int e) {
    double sum = 0.0;
    for (int p = std::min(e - 1, x.int_digit_count() - 1); p >= -x.frac_digit_count(); --p)
        sum += x.digit(p) * std::pow(10.0, p);
    return sum;
}

// S(|x|): (cos, sin) of 2π·(|x| mod T)/T for each period T = 10^e.
Eigen::RowVectorXd sinusoidal_code(const Decimal& x, const std::vector<double>& periods) {
    Eigen::RowVectorXd code(2 * static_cast<Eigen::Index>(periods.size()));
    for (std::size_t i = 0; i < periods.size(); ++i) {
        const int e = static_cast<int>(std::lround(std::log10(periods[i])));
        const double turns = residue_below(x, e) / periods[i];
        code(2 * static_cast<Eigen::Index>(i)) = std::cos(kTwoPi * turns);
        code(2 * static_cast<Eigen::Index>(i) + 1) = std::sin(kTwoPi * turns);
    }
    return code;
}

// The share of the most frequent value among `values`.
template <class T>
double most_frequent_share(const std::vector<T>& values) {
    std::map<T, int> counts;
    int best = 0;
    for (const T& v : values)
        best = std::max(best, ++counts[v]);
    return values.empty() ? 0.0 : static_cast<double>(best) / static_cast<double>(values.size());
}

}  // namespace

SinusoidalProbe probe_sinusoidal(const Eigen::MatrixXd& rows, const std::vector<Decimal>& numbers,
                                 const std::vector<int>& places, const ProbeOptions& options) {
    const Eigen::Index n = rows.rows();
    if (static_cast<Eigen::Index>(numbers.size()) != n)
        throw std::invalid_argument("sinusoidal probe: " + std::to_string(numbers.size()) + " numbers for " +
                                    std::to_string(n) + " rows");
    if (places.empty()) throw std::invalid_argument("sinusoidal probe: no digit places");
    if (!rows.allFinite())
        throw std::invalid_argument("sinusoidal probe: the representation has NaN or infinite entries");
    const int test_count = static_cast<int>(std::floor(options.test_fraction * static_cast<double>(n)));
    const int train_count = static_cast<int>(n) - test_count;
    if (test_count < 1 || train_count < 1)
        throw std::invalid_argument("sinusoidal probe: " + std::to_string(n) +
                                    " rows leave an empty training or test split");
    SinusoidalProbe r;
    r.places = places;
    for (const int p : places)
        r.periods.push_back(std::pow(10.0, p + 1));
    r.train_count = train_count;
    r.test_count = test_count;

    // The candidates and their codes; every number's target is its own candidate's code.
    std::vector<Decimal> candidates;
    for (const Decimal& x : numbers)
        candidates.push_back(x.abs());
    std::sort(candidates.begin(), candidates.end());
    candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
    Eigen::MatrixXd codes(static_cast<Eigen::Index>(candidates.size()),
                          2 * static_cast<Eigen::Index>(places.size()));
    for (std::size_t i = 0; i < candidates.size(); ++i)
        codes.row(static_cast<Eigen::Index>(i)) = sinusoidal_code(candidates[i], r.periods);

    // The same split as `probe`: a shuffle by the seed, the first train_count rows for training.
    std::vector<Eigen::Index> order(static_cast<std::size_t>(n));
    std::iota(order.begin(), order.end(), Eigen::Index{0});
    std::mt19937_64 rng(options.seed);
    std::shuffle(order.begin(), order.end(), rng);
    Eigen::MatrixXd x(train_count, rows.cols()), y(train_count, codes.cols());
    for (int i = 0; i < train_count; ++i) {
        const Eigen::Index row = order[static_cast<std::size_t>(i)];
        x.row(i) = rows.row(row);
        y.row(i) = sinusoidal_code(numbers[static_cast<std::size_t>(row)], r.periods);
    }
    const Eigen::RowVectorXd x_mean = x.colwise().mean(), y_mean = y.colwise().mean();
    x.rowwise() -= x_mean;
    y.rowwise() -= y_mean;
    const Eigen::MatrixXd weights = ridge_weights(x, y, options.ridge, rows.cols());

    int exact = 0;
    std::vector<int> place_hits(places.size(), 0);
    std::vector<Decimal> truths;
    std::vector<std::vector<int>> true_digits(places.size());
    for (int i = train_count; i < static_cast<int>(n); ++i) {
        const Eigen::Index row = order[static_cast<std::size_t>(i)];
        const Eigen::RowVectorXd predicted = (rows.row(row) - x_mean) * weights + y_mean;
        Eigen::Index best = 0;
        (codes * predicted.transpose()).maxCoeff(&best);
        const Decimal& decoded = candidates[static_cast<std::size_t>(best)];
        const Decimal truth = numbers[static_cast<std::size_t>(row)].abs();
        exact += decoded == truth;
        for (std::size_t p = 0; p < places.size(); ++p) {
            place_hits[p] += decoded.digit(places[p]) == truth.digit(places[p]);
            true_digits[p].push_back(truth.digit(places[p]));
        }
        truths.push_back(truth);
        r.test_rows.push_back(static_cast<int>(row));
        r.decoded.push_back(decoded);
    }
    r.accuracy = static_cast<double>(exact) / test_count;
    r.chance = most_frequent_share(truths);
    for (std::size_t p = 0; p < places.size(); ++p) {
        r.place_accuracy.push_back(static_cast<double>(place_hits[p]) / test_count);
        r.place_chance.push_back(most_frequent_share(true_digits[p]));
    }
    return r;
}

std::vector<SinusoidalProbe> sinusoidal_probes(const std::vector<Eigen::MatrixXd>& layers,
                                               const std::vector<Decimal>& numbers,
                                               const std::vector<int>& places, const ProbeOptions& options,
                                               const Progress& progress) {
    std::vector<SinusoidalProbe> out;
    for (std::size_t l = 0; l < layers.size(); ++l) {
        progress.check();
        out.push_back(probe_sinusoidal(layers[l], numbers, places, options));
        progress.tell(static_cast<double>(l + 1) / static_cast<double>(layers.size()));
    }
    return out;
}

std::string place_name(int place) {
    static const char* const kNames[] = {"hundredths", "tenths", "units", "tens", "hundreds", "thousands"};
    if (place >= -2 && place <= 3) return kNames[place + 2];
    return "10^" + std::to_string(place);
}

}  // namespace fone::analysis
