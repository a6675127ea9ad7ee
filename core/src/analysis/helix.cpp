// The helix fit of fone/analysis/helix.h (Kantamneni & Tegmark 2025); docs/analysis.md.
#include "fone/analysis/helix.h"

#include <Eigen/Dense>
#include <charconv>
#include <cmath>
#include <numbers>
#include <stdexcept>

namespace fone::analysis {
namespace {

constexpr double kTwoPi = 2.0 * std::numbers::pi;

std::string period_label(double t) {
    char buffer[32];
    const auto r = std::to_chars(buffer, buffer + sizeof buffer, t);
    return std::string(buffer, r.ptr);
}

struct Column {
    std::string name;
    double period;
    Eigen::VectorXd values;
};

// The candidate columns, centred: the linear term (standardised) first, then cos and sin of each period.
std::vector<Column> candidate_columns(const std::vector<Decimal>& numbers, const HelixOptions& o) {
    const Eigen::Index n = static_cast<Eigen::Index>(numbers.size());
    Eigen::VectorXd x(n);
    for (Eigen::Index i = 0; i < n; ++i)
        x[i] = numbers[static_cast<std::size_t>(i)].to_double();
    std::vector<Column> out;
    auto centred = [](Eigen::VectorXd v) { return Eigen::VectorXd(v.array() - v.mean()); };
    if (o.linear) {
        Eigen::VectorXd c = centred(x);
        const double sd = std::sqrt(c.squaredNorm() / static_cast<double>(n));
        if (sd > 0) out.push_back({"x", 0.0, c / sd});
    }
    for (const double t : o.periods) {
        // The phase from x mod T: exact enough for large x, where 2πx/T in double would lose digits.
        Eigen::VectorXd c(n), s(n);
        for (Eigen::Index i = 0; i < n; ++i) {
            const double phase = kTwoPi * std::fmod(x[i], t) / t;
            c[i] = std::cos(phase);
            s[i] = std::sin(phase);
        }
        out.push_back({helix_cos_name(t), t, centred(c)});
        out.push_back({helix_sin_name(t), t, centred(s)});
    }
    return out;
}

// Keeps the columns that add a direction (Gram-Schmidt against the kept ones): sin πx vanishes on
// integers, and cos 2πx/T repeats itself for T dividing the spacing.
std::vector<Column> independent(std::vector<Column> columns, Eigen::Index n) {
    std::vector<Column> kept;
    std::vector<Eigen::VectorXd> basis;  // orthonormal
    const double tolerance = 1e-6 * std::sqrt(static_cast<double>(n));
    for (Column& c : columns) {
        Eigen::VectorXd r = c.values;
        for (const auto& q : basis)
            r -= q.dot(r) * q;
        if (r.norm() <= tolerance) continue;
        basis.push_back(r / r.norm());
        kept.push_back(std::move(c));
    }
    return kept;
}

}  // namespace

std::string helix_cos_name(double period) {
    return "cos 2πx/" + period_label(period);
}

std::string helix_sin_name(double period) {
    return "sin 2πx/" + period_label(period);
}

int HelixFit::column(const std::string& name) const {
    for (std::size_t i = 0; i < basis.size(); ++i)
        if (basis[i] == name) return static_cast<int>(i);
    return -1;
}

HelixFit helix_fit(const Eigen::MatrixXd& rows, const std::vector<Decimal>& numbers,
                   const HelixOptions& options, const Progress& progress) {
    const Eigen::Index n = rows.rows();
    if (static_cast<Eigen::Index>(numbers.size()) != n)
        throw std::invalid_argument("helix fit: " + std::to_string(numbers.size()) + " numbers for " +
                                    std::to_string(n) + " rows");
    if (options.periods.empty() && !options.linear)
        throw std::invalid_argument("helix fit: no periods and no linear term");
    for (const double t : options.periods)
        if (!(t > 0 && std::isfinite(t))) throw std::invalid_argument("helix fit: periods must be positive");
    if (!rows.allFinite())
        throw std::invalid_argument("helix fit: the representation has NaN or infinite values");
    progress.check();
    const std::vector<Column> columns = independent(candidate_columns(numbers, options), n);
    const Eigen::Index k = static_cast<Eigen::Index>(columns.size());
    if (k == 0 || n < k + 2)
        throw std::invalid_argument("helix fit: " + std::to_string(n) + " numbers for " + std::to_string(k) +
                                    " basis columns (needs at least columns + 2)");
    HelixFit fit;
    fit.rank = static_cast<int>(k);
    fit.basis_values.resize(n, k);
    for (Eigen::Index c = 0; c < k; ++c) {
        fit.basis.push_back(columns[static_cast<std::size_t>(c)].name);
        fit.basis_period.push_back(columns[static_cast<std::size_t>(c)].period);
        fit.basis_values.col(c) = columns[static_cast<std::size_t>(c)].values;
    }
    const Eigen::MatrixXd centred = rows.rowwise() - rows.colwise().mean();
    const Eigen::MatrixXd weights = fit.basis_values.colPivHouseholderQr().solve(centred);  // k x D
    const double total = centred.squaredNorm();
    fit.r2 = total > 0 ? 1.0 - (centred - fit.basis_values * weights).squaredNorm() / total : 0.0;
    progress.tell(0.3);
    if (total > 0) {
        if (k >= rows.cols()) {
            fit.pca_r2 = 1.0;
        } else {
            for (const double ratio : pca(rows, static_cast<int>(k), progress).explained_ratio)
                fit.pca_r2 += ratio;
        }
    }
    progress.tell(0.8);
    const Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd> map(weights.transpose());
    fit.coordinates = map.solve(centred.transpose()).transpose();
    progress.tell(1.0);
    return fit;
}

std::vector<HelixFit> layer_helix_fits(const std::vector<Eigen::MatrixXd>& layers,
                                       const std::vector<Decimal>& numbers, const HelixOptions& options,
                                       const Progress& progress) {
    std::vector<HelixFit> fits;
    for (std::size_t l = 0; l < layers.size(); ++l) {
        Progress part{nullptr, progress.cancel};
        if (progress.report)
            part.report = [&, l](double f) { progress.report((static_cast<double>(l) + f) / layers.size()); };
        fits.push_back(helix_fit(layers[l], numbers, options, part));
    }
    return fits;
}

}  // namespace fone::analysis
