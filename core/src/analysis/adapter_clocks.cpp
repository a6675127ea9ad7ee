#include "fone/analysis/adapter_clocks.h"

#include <cmath>
#include <cstring>
#include <memory>
#include <numbers>
#include <stdexcept>

#include "fone/io/safetensors.h"
#include "fone/numbers/fourier.h"

namespace fone::analysis {
namespace {

constexpr int kPeriods[3] = {10, 100, 1000};
constexpr int64_t kWidth = 6;

// A float32 tensor of the checkpoint with its element count checked.
std::vector<float> floats(const safetensors::File& f, const std::string& name, uint64_t elements) {
    const safetensors::TensorInfo* t = f.find(name);
    if (!t) throw std::runtime_error(f.path() + ": no " + name + " (not a fone-adapter run's checkpoint)");
    if (t->dtype != safetensors::Dtype::F32 || t->elements() != elements)
        throw std::runtime_error(f.path() + ": " + name + " is not float32 of the expected shape");
    std::vector<float> out(elements);
    std::memcpy(out.data(), f.bytes(*t).data(), elements * sizeof(float));
    return out;
}

}  // namespace

double ClockReading::angle() const {
    const double t = std::atan2(b, a);
    return t < 0 ? t + 2 * std::numbers::pi : t;
}

double ClockReading::length() const {
    return std::hypot(a, b);
}

void AdapterClocks::set_projection(std::vector<float> w, std::vector<float> bias, int64_t hidden) {
    if (hidden <= 0 || w.size() != static_cast<std::size_t>(hidden * kWidth) ||
        bias.size() != static_cast<std::size_t>(hidden))
        throw std::invalid_argument("adapter clocks: weights of mismatched shapes");
    w_ = std::move(w);
    bias_ = std::move(bias);
    hidden_ = hidden;
    untrained_ = true;
    for (const float x : w_)
        untrained_ = untrained_ && x == 0.0f;
}

AdapterClocks::AdapterClocks(std::vector<float> embedding, std::vector<float> w, std::vector<float> bias,
                             int64_t hidden) {
    set_projection(std::move(w), std::move(bias), hidden);
    if (embedding.size() % static_cast<std::size_t>(hidden))
        throw std::invalid_argument("adapter clocks: weights of mismatched shapes");
    vocab_ = static_cast<int64_t>(embedding.size()) / hidden;
    auto rows = std::make_shared<std::vector<float>>(std::move(embedding));
    row_ = [rows, hidden](int64_t id, float* out) {
        std::memcpy(out, rows->data() + id * hidden, static_cast<std::size_t>(hidden) * sizeof(float));
    };
}

AdapterClocks AdapterClocks::open(const std::string& checkpoint) {
    auto f = std::make_shared<safetensors::File>(safetensors::File::open(checkpoint));
    const safetensors::TensorInfo* bias = f->find("fone_map.bias");
    const safetensors::TensorInfo* embed = f->find("embed.weight");
    if (!bias || !embed || embed->shape.size() != 2 || embed->dtype != safetensors::Dtype::F32)
        throw std::runtime_error(
            checkpoint + ": no fone_map.bias or float32 embed.weight (not a fone-adapter run's checkpoint)");
    const int64_t hidden = bias->shape.at(0);
    if (embed->shape[1] != hidden)
        throw std::runtime_error(checkpoint + ": embed.weight is not [vocab, hidden]");
    AdapterClocks c;
    c.set_projection(floats(*f, "fone_map.weight", static_cast<uint64_t>(hidden * kWidth)),
                     floats(*f, "fone_map.bias", static_cast<uint64_t>(hidden)), hidden);
    c.vocab_ = embed->shape[0];
    const std::byte* data = f->bytes(*embed).data();
    c.row_ = [f, data, hidden](int64_t id, float* out) {
        std::memcpy(out, data + id * hidden * 4, static_cast<std::size_t>(hidden) * sizeof(float));
    };
    return c;
}

// Least squares on the pair's two columns of W: the 2×2 normal equations.
ClockReading AdapterClocks::read(const std::vector<double>& row, int pair) const {
    double cc = 0, cs = 0, ss = 0, cx = 0, sx = 0;
    for (int64_t h = 0; h < hidden_; ++h) {
        const double c = w_[static_cast<std::size_t>(h * kWidth + 2 * pair)];
        const double s = w_[static_cast<std::size_t>(h * kWidth + 2 * pair + 1)];
        const double x = row[static_cast<std::size_t>(h)];
        cc += c * c, cs += c * s, ss += s * s, cx += c * x, sx += s * x;
    }
    const double det = cc * ss - cs * cs;
    if (det <= 1e-30 * std::max(1.0, cc * ss)) return {};
    return {(ss * cx - cs * sx) / det, (cc * sx - cs * cx) / det};
}

std::array<PieceClock, 3> AdapterClocks::clocks(int64_t id, int value) const {
    if (id < 0 || id >= vocab_) throw std::out_of_range("adapter clocks: token id " + std::to_string(id));
    FoneSpec spec;
    spec.int_digits = 3;
    spec.frac_digits = 0;
    spec.sign_feature = false;
    const std::vector<double> f = encode(Decimal::from_int(value), spec);
    std::vector<float> row(static_cast<std::size_t>(hidden_));
    row_(id, row.data());
    std::vector<double> before(row.begin(), row.end()), after(before.size());
    for (int64_t h = 0; h < hidden_; ++h) {
        const auto hh = static_cast<std::size_t>(h);
        double add = bias_[hh];
        for (int64_t k = 0; k < kWidth; ++k)
            add += w_[static_cast<std::size_t>(h * kWidth + k)] * f[static_cast<std::size_t>(k)];
        after[hh] = before[hh] + add;
    }
    std::array<PieceClock, 3> out;
    for (int p = 0; p < 3; ++p) {
        out[static_cast<std::size_t>(p)] = {kPeriods[p],
                                            2 * std::numbers::pi * (value % kPeriods[p]) / kPeriods[p],
                                            read(before, p), read(after, p)};
    }
    return out;
}

}  // namespace fone::analysis
