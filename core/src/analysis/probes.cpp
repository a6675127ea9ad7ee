#include "fone/analysis/probes.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <numeric>
#include <random>
#include <set>
#include <stdexcept>

#include <Eigen/Dense>

namespace fone::analysis {
namespace {

constexpr double kTwoPi = 2 * std::numbers::pi;

// The rows shuffled by the seed and cut into training and held-out rows, as probe() does.
struct Split {
    std::vector<Eigen::Index> train, test;
};

Split split_rows(Eigen::Index n, const ProbeOptions& options) {
    const auto test_count = static_cast<Eigen::Index>(std::floor(options.test_fraction * static_cast<double>(n)));
    if (test_count < 1 || n - test_count < 1)
        throw std::invalid_argument("probe: " + std::to_string(n) + " rows leave an empty training or test split");
    std::vector<Eigen::Index> order(static_cast<std::size_t>(n));
    std::iota(order.begin(), order.end(), Eigen::Index{0});
    std::mt19937_64 rng(options.seed);
    std::shuffle(order.begin(), order.end(), rng);
    Split s;
    s.train.assign(order.begin(), order.end() - test_count);
    s.test.assign(order.end() - test_count, order.end());
    return s;
}

// A ridge map with bias from rows to targets, fitted on the training rows.
struct Ridge {
    Eigen::RowVectorXd x_mean, y_mean;
    Eigen::MatrixXd weights;
    Eigen::RowVectorXd operator()(const Eigen::RowVectorXd& row) const { return (row - x_mean) * weights + y_mean; }
};

Ridge fit_ridge(const Eigen::MatrixXd& rows, const Eigen::MatrixXd& targets, const std::vector<Eigen::Index>& train,
                double ridge) {
    Eigen::MatrixXd x(static_cast<Eigen::Index>(train.size()), rows.cols());
    Eigen::MatrixXd y(static_cast<Eigen::Index>(train.size()), targets.cols());
    for (std::size_t i = 0; i < train.size(); ++i) {
        x.row(static_cast<Eigen::Index>(i)) = rows.row(train[i]);
        y.row(static_cast<Eigen::Index>(i)) = targets.row(train[i]);
    }
    Ridge r;
    r.x_mean = x.colwise().mean();
    r.y_mean = y.colwise().mean();
    x.rowwise() -= r.x_mean;
    y.rowwise() -= r.y_mean;
    Eigen::MatrixXd gram = x.transpose() * x;
    gram.diagonal().array() += ridge * std::max(gram.trace() / static_cast<double>(rows.cols()), 1e-300);
    r.weights = gram.ldlt().solve(x.transpose() * y);
    return r;
}

// (cos, sin)(2π·x/T) for every period, exactly from x mod T (any length of x).
Eigen::RowVectorXd sinusoids(const Decimal& x, const std::vector<std::int64_t>& periods) {
    Eigen::RowVectorXd out(2 * static_cast<Eigen::Index>(periods.size()));
    for (std::size_t i = 0; i < periods.size(); ++i) {
        const Decimal t = Decimal::from_int(periods[i]);
        const double turns = Decimal::mod(x, t).to_double() / static_cast<double>(periods[i]);
        out[2 * static_cast<Eigen::Index>(i)] = std::cos(kTwoPi * turns);
        out[2 * static_cast<Eigen::Index>(i) + 1] = std::sin(kTwoPi * turns);
    }
    return out;
}

// The residue of an angle's point among T: round(angle / 2π · T) mod T.
std::int64_t nearest_residue(double c, double s, std::int64_t period) {
    double turns = std::atan2(s, c) / kTwoPi;
    if (turns < 0) turns += 1;
    return static_cast<std::int64_t>(std::llround(turns * static_cast<double>(period))) % period;
}

}  // namespace

ProbeResult circular_digit_probe(const Eigen::MatrixXd& rows, const std::vector<Decimal>& numbers, int place,
                                 const ProbeOptions& options) {
    std::vector<int> digits;
    digits.reserve(numbers.size());
    for (const Decimal& x : numbers)
        digits.push_back(x.digit(place));
    ProbeOptions circular = options;
    circular.code = ProbeCode::circular;
    return probe(rows, digits, 10, circular);
}

SinusoidalProbeResult sinusoidal_probe(const Eigen::MatrixXd& rows, const std::vector<Decimal>& numbers,
                                       const std::vector<std::int64_t>& periods, const ProbeOptions& options) {
    if (static_cast<Eigen::Index>(numbers.size()) != rows.rows())
        throw std::invalid_argument("sinusoidal probe: " + std::to_string(numbers.size()) + " numbers for " +
                                    std::to_string(rows.rows()) + " rows");
    if (periods.empty()) throw std::invalid_argument("sinusoidal probe: no periods");
    for (std::int64_t t : periods)
        if (t < 2) throw std::invalid_argument("sinusoidal probe: periods must be at least 2");
    const Split split = split_rows(rows.rows(), options);
    Eigen::MatrixXd targets(rows.rows(), 2 * static_cast<Eigen::Index>(periods.size()));
    for (std::size_t i = 0; i < numbers.size(); ++i)
        targets.row(static_cast<Eigen::Index>(i)) = sinusoids(numbers[i], periods);
    const Ridge map = fit_ridge(rows, targets, split.train, options.ridge);

    // The candidates: every distinct number of the set, with its sinusoids.
    std::vector<std::size_t> candidates;
    std::set<Decimal> seen;
    for (std::size_t i = 0; i < numbers.size(); ++i)
        if (seen.insert(numbers[i]).second) candidates.push_back(i);
    SinusoidalProbeResult r;
    r.periods = periods;
    r.train_count = static_cast<int>(split.train.size());
    r.test_count = static_cast<int>(split.test.size());
    r.chance = 1.0 / static_cast<double>(candidates.size());
    r.period_accuracy.assign(periods.size(), 0.0);
    int exact = 0;
    for (Eigen::Index row : split.test) {
        const Eigen::RowVectorXd predicted = map(rows.row(row));
        std::size_t best = candidates[0];
        double best_distance = INFINITY;
        for (std::size_t c : candidates) {
            const double d = (targets.row(static_cast<Eigen::Index>(c)) - predicted).squaredNorm();
            if (d < best_distance) best_distance = d, best = c;
        }
        exact += numbers[best] == numbers[static_cast<std::size_t>(row)];
        for (std::size_t i = 0; i < periods.size(); ++i) {
            const auto k = static_cast<Eigen::Index>(2 * i);
            const Eigen::RowVectorXd truth = targets.row(row);
            r.period_accuracy[i] += nearest_residue(predicted[k], predicted[k + 1], periods[i]) ==
                                    nearest_residue(truth[k], truth[k + 1], periods[i]);
        }
    }
    r.accuracy = static_cast<double>(exact) / r.test_count;
    for (double& a : r.period_accuracy)
        a /= r.test_count;
    return r;
}

LayerProbes probe_layers(const std::vector<Eigen::MatrixXd>& layers, const std::vector<Decimal>& numbers,
                         const std::vector<int>& places, const std::vector<std::int64_t>& periods,
                         const ProbeOptions& options) {
    LayerProbes out;
    out.places = places;
    out.periods = periods;
    const auto n = static_cast<Eigen::Index>(layers.size()), p = static_cast<Eigen::Index>(places.size());
    out.digit_accuracy.resize(n, p);
    out.digit_chance.resize(n, p);
    for (Eigen::Index l = 0; l < n; ++l) {
        for (Eigen::Index k = 0; k < p; ++k) {
            const ProbeResult r = circular_digit_probe(layers[static_cast<std::size_t>(l)], numbers,
                                                       places[static_cast<std::size_t>(k)], options);
            out.digit_accuracy(l, k) = r.accuracy;
            out.digit_chance(l, k) = r.chance;
        }
        out.sinusoidal_accuracy.push_back(
            periods.empty() ? 0.0 : sinusoidal_probe(layers[static_cast<std::size_t>(l)], numbers, periods, options).accuracy);
    }
    return out;
}

}  // namespace fone::analysis
