#include "fone/analysis/interventions.h"

#include <cmath>
#include <numbers>
#include <sstream>
#include <stdexcept>

#include "fone/numbers/fourier.h"

namespace fone::analysis {

double Pair::length() const {
    return std::hypot(x, y);
}

double Pair::angle() const {
    const double a = std::atan2(y, x);
    return a < 0 ? a + 2 * std::numbers::pi : a;
}

Pair turned(const Pair& p, double angle) {
    const double r = p.length() > 0 ? p.length() : 1.0;
    return {r * std::cos(angle), r * std::sin(angle)};
}

double digit_angle(int digit, int base) {
    return 2 * std::numbers::pi * digit / base;
}

Decimal with_digit(const Decimal& x, int place, int digit) {
    if (digit < 0 || digit > 9)
        throw NumberError("digit " + std::to_string(digit) + " is not a decimal digit (0..9)");
    const Decimal unit = place >= 0 ? Decimal::power(10, place) : Decimal::from_scaled(1, -place);
    const Decimal magnitude = x.abs() + Decimal::from_int(digit - x.digit(place)) * unit;
    return x.negative() ? -magnitude : magnitude;
}

AnswerChanges compare_answers(const std::vector<Decimal>& before, const std::vector<Decimal>& after,
                              const std::vector<Decimal>& truth, std::span<const int> places) {
    if (before.size() != after.size() || (!truth.empty() && truth.size() != before.size()))
        throw std::invalid_argument("compare_answers: lists of different lengths");
    AnswerChanges c;
    c.prompts = static_cast<int>(before.size());
    c.places.assign(places.begin(), places.end());
    c.place_changed.assign(places.size(), 0.0);
    if (before.empty()) return c;
    for (std::size_t i = 0; i < before.size(); ++i) {
        c.answers_changed += before[i] != after[i];
        if (!truth.empty()) {
            c.exact_before += before[i] == truth[i];
            c.exact_after += after[i] == truth[i];
        }
        for (std::size_t k = 0; k < places.size(); ++k)
            c.place_changed[k] += before[i].digit(places[k]) != after[i].digit(places[k]);
    }
    const double n = static_cast<double>(before.size());
    c.answers_changed /= n;
    c.exact_before /= n;
    c.exact_after /= n;
    for (double& v : c.place_changed)
        v /= n;
    return c;
}

std::string damage_csv(const DamageMap& map) {
    std::ostringstream out;
    out.precision(6);
    out << "layer,period,place,scale,prompts,exact_before,exact_after,answers_changed";
    const std::vector<int> places =
        map.cells.empty() || map.cells[0].empty() ? std::vector<int>{} : map.cells[0][0].places;
    for (int p : places)
        out << ",changed_at_" << p;
    out << "\n";
    for (std::size_t l = 0; l < map.layers.size(); ++l)
        for (std::size_t t = 0; t < map.periods.size(); ++t) {
            const AnswerChanges& c = map.cells[l][t];
            out << map.layers[l] << "," << map.periods[t] << "," << map.places[t] << "," << map.scale << ","
                << c.prompts << "," << c.exact_before << "," << c.exact_after << "," << c.answers_changed;
            for (double v : c.place_changed)
                out << "," << v;
            out << "\n";
        }
    return out.str();
}

}  // namespace fone::analysis
