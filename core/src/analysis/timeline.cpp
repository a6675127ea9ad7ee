#include "fone/analysis/timeline.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

#include "fone/analysis/analysis.h"

namespace fone::analysis {
namespace {

std::vector<KeyPeriod> key_periods_of(const Timeline& t, const Eigen::MatrixXd& m, int max_keys,
                                      double relative) {
    const Eigen::Index last = m.rows() - 1;
    std::vector<KeyPeriod> keys;
    double largest = 0;
    for (Eigen::Index k = 1; k < m.cols(); ++k)
        largest = std::max(largest, m(last, k));
    if (largest <= 0) return keys;
    for (Eigen::Index k = 1; k < m.cols(); ++k)
        if (m(last, k) >= relative * largest) {
            KeyPeriod p;
            p.k = t.k[static_cast<std::size_t>(k)];
            p.period = t.period[static_cast<std::size_t>(k)];
            p.final_magnitude = m(last, k);
            for (Eigen::Index s = 0; s < m.rows(); ++s)
                if (m(s, k) >= 0.5 * p.final_magnitude) {
                    p.emerged_at = t.steps[static_cast<std::size_t>(s)];
                    break;
                }
            keys.push_back(p);
        }
    std::sort(keys.begin(), keys.end(),
              [](const auto& a, const auto& b) { return a.final_magnitude > b.final_magnitude; });
    if (static_cast<int>(keys.size()) > max_keys) keys.resize(static_cast<std::size_t>(max_keys));
    return keys;
}

}  // namespace

Timeline spectrum_timeline(const std::vector<StepRepresentations>& steps, int max_keys, double relative) {
    if (steps.empty()) throw std::invalid_argument("a timeline needs at least one snapshot");
    const std::size_t layers = steps[0].layers.size();
    Timeline t;
    for (std::size_t s = 0; s < steps.size(); ++s) {
        if (steps[s].layers.size() != layers || layers == 0)
            throw std::invalid_argument("snapshot at step " + std::to_string(steps[s].step) + " has " +
                                        std::to_string(steps[s].layers.size()) + " layers, the first has " +
                                        std::to_string(layers));
        const LayerSpectra spectra = layer_spectra(steps[s].layers);
        if (s == 0) {
            t.k = spectra.k;
            t.period = spectra.period;
            t.magnitude.assign(layers, Eigen::MatrixXd(static_cast<Eigen::Index>(steps.size()),
                                                       static_cast<Eigen::Index>(t.k.size())));
        } else if (spectra.k.size() != t.k.size()) {
            throw std::invalid_argument("snapshot at step " + std::to_string(steps[s].step) +
                                        " probes a different set of numbers");
        }
        t.steps.push_back(steps[s].step);
        for (std::size_t l = 0; l < layers; ++l)
            t.magnitude[l].row(static_cast<Eigen::Index>(s)) =
                spectra.magnitude.row(static_cast<Eigen::Index>(l));
    }
    for (const Eigen::MatrixXd& m : t.magnitude)
        t.key_periods.push_back(key_periods_of(t, m, max_keys, relative));
    return t;
}

std::vector<double> period_over_time(const Timeline& t, std::size_t layer, double period) {
    std::vector<double> out(t.steps.size(), -1.0);
    for (std::size_t i = 1; i < t.k.size(); ++i)
        if (std::abs(t.period[i] - period) <= 1e-9 * period) {
            for (std::size_t s = 0; s < t.steps.size(); ++s)
                out[s] = t.magnitude.at(layer)(static_cast<Eigen::Index>(s), static_cast<Eigen::Index>(i));
            break;
        }
    return out;
}

std::string timeline_csv(const Timeline& t, const std::vector<std::string>& layer_names) {
    std::ostringstream out;
    out.precision(8);
    out << "step,layer,k,period,magnitude\n";
    for (std::size_t s = 0; s < t.steps.size(); ++s)
        for (std::size_t l = 0; l < t.magnitude.size(); ++l)
            for (std::size_t i = 1; i < t.k.size(); ++i)
                out << t.steps[s] << "," << (l < layer_names.size() ? layer_names[l] : std::to_string(l))
                    << "," << t.k[i] << "," << t.period[i] << ","
                    << t.magnitude[l](static_cast<Eigen::Index>(s), static_cast<Eigen::Index>(i)) << "\n";
    return out.str();
}

}  // namespace fone::analysis
