#include "fone/analysis/grokking.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <numeric>
#include <sstream>
#include <stdexcept>

namespace fone::analysis {
namespace {

constexpr double kTwoPi = 2 * std::numbers::pi;

std::vector<int> all_rows(const Eigen::MatrixXd& m, const std::vector<int>& rows) {
    if (!rows.empty()) return rows;
    std::vector<int> out(static_cast<std::size_t>(m.rows()));
    std::iota(out.begin(), out.end(), 0);
    return out;
}

}  // namespace

Eigen::MatrixXd fourier_basis(int p) {
    if (p < 2) throw std::invalid_argument("the Fourier basis needs a modulus of at least 2");
    Eigen::MatrixXd b(p, p);
    b.row(0).setConstant(1.0);
    int row = 1;
    for (int k = 1; 2 * k < p; ++k, row += 2)
        for (int x = 0; x < p; ++x) {
            b(row, x) = std::cos(kTwoPi * k * x / p);
            b(row + 1, x) = std::sin(kTwoPi * k * x / p);
        }
    if (p % 2 == 0)
        for (int x = 0; x < p; ++x)
            b(p - 1, x) = x % 2 ? -1.0 : 1.0;
    b.rowwise().normalize();
    return b;
}

std::vector<std::string> fourier_basis_names(int p) {
    std::vector<std::string> names = {"const"};
    for (int k = 1; 2 * k < p; ++k) {
        names.push_back("cos " + std::to_string(k));
        names.push_back("sin " + std::to_string(k));
    }
    if (p % 2 == 0) names.push_back("alt");
    return names;
}

std::vector<double> frequency_norms(const Eigen::MatrixXd& residues) {
    const int p = static_cast<int>(residues.rows());
    const Eigen::MatrixXd coefficients = fourier_basis(p) * residues;  // p x d, row = basis vector
    std::vector<double> norms;
    for (int k = 1; 2 * k < p; ++k)
        norms.push_back(std::sqrt(coefficients.row(2 * k - 1).squaredNorm() + coefficients.row(2 * k).squaredNorm()));
    if (p % 2 == 0) norms.push_back(coefficients.row(p - 1).norm());
    return norms;
}

std::vector<int> key_frequencies(const std::vector<double>& norms, double share) {
    double total = 0;
    for (double n : norms)
        total += n * n;
    std::vector<int> keys;
    for (std::size_t i = 0; i < norms.size(); ++i)
        if (total > 0 && norms[i] * norms[i] >= share * total) keys.push_back(static_cast<int>(i) + 1);
    std::sort(keys.begin(), keys.end(), [&](int a, int b) { return norms[a - 1] > norms[b - 1]; });
    return keys;
}

Eigen::MatrixXd project_on_sum_frequencies(const Eigen::MatrixXd& values, int p, const std::vector<int>& freqs,
                                           bool constant) {
    if (p < 2 || values.rows() != static_cast<Eigen::Index>(p) * p)
        throw std::invalid_argument("a projection over pairs (a, b) needs p² rows");
    Eigen::MatrixXd out = Eigen::MatrixXd::Zero(values.rows(), values.cols());
    if (constant) out.rowwise() = values.colwise().mean();
    Eigen::VectorXd c(values.rows()), s(values.rows());
    for (int k : freqs) {
        if (k < 1 || 2 * k >= p)
            throw std::invalid_argument("frequency " + std::to_string(k) + " outside 1.." + std::to_string((p - 1) / 2));
        for (int a = 0; a < p; ++a)
            for (int b = 0; b < p; ++b) {
                const double angle = kTwoPi * k * ((a + b) % p) / p;
                c[a * p + b] = std::cos(angle);
                s[a * p + b] = std::sin(angle);
            }
        c.normalize();
        s.normalize();
        out += c * (c.transpose() * values) + s * (s.transpose() * values);
    }
    return out;
}

double cross_entropy(const Eigen::MatrixXd& logits, const std::vector<int>& labels, const std::vector<int>& rows) {
    const std::vector<int> chosen = all_rows(logits, rows);
    if (chosen.empty()) return 0.0;
    double sum = 0;
    for (int i : chosen) {
        const int label = labels.at(static_cast<std::size_t>(i));
        if (label < 0 || label >= logits.cols()) throw std::invalid_argument("cross_entropy: label out of range");
        const double top = logits.row(i).maxCoeff();
        const double lse = top + std::log((logits.row(i).array() - top).exp().sum());
        sum += lse - logits(i, label);
    }
    return sum / static_cast<double>(chosen.size());
}

double accuracy(const Eigen::MatrixXd& logits, const std::vector<int>& labels, const std::vector<int>& rows) {
    const std::vector<int> chosen = all_rows(logits, rows);
    if (chosen.empty()) return 0.0;
    int right = 0;
    for (int i : chosen) {
        Eigen::Index best = 0;
        logits.row(i).maxCoeff(&best);
        right += best == labels.at(static_cast<std::size_t>(i));
    }
    return static_cast<double>(right) / static_cast<double>(chosen.size());
}

std::string grokking_csv(const GrokkingCurves& c) {
    std::ostringstream out;
    out.precision(8);
    out << "step,train_loss,test_loss,train_accuracy,test_accuracy,restricted_loss,excluded_loss\n";
    for (const GrokkingStep& s : c.steps)
        out << s.step << "," << s.train_loss << "," << s.test_loss << "," << s.train_accuracy << ","
            << s.test_accuracy << "," << s.restricted_loss << "," << s.excluded_loss << "\n";
    return out.str();
}

std::string frequency_norms_csv(const GrokkingCurves& c) {
    std::ostringstream out;
    out.precision(8);
    out << "step,k,norm\n";
    for (const GrokkingStep& s : c.steps)
        for (std::size_t k = 0; k < s.embedding_norms.size(); ++k)
            out << s.step << "," << k + 1 << "," << s.embedding_norms[k] << "\n";
    return out.str();
}

}  // namespace fone::analysis
