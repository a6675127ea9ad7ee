// How close bf16 training must stay to fp32 (`fone train --precision bf16`, docs/gpu.md, "bf16"): one rule
// and one measurement for the CPU test (tests/test_precision.cpp) and the GPU test (tests/gpu/test_cuda.cpp).
// No Qt.
//
// One step: bf16 keeps 8 significant bits (a relative rounding of 2^-9 = 0.2% per product); through a few
// layers the loss moves by well under a percent and the gradients by a few percent: 3% and 10% leave room.
// A run: two models from the same initial weights take the same batches with AdamW, one in fp32 and one
// under bf16 autocast, and their trajectories part slowly as rounding differences grow. The rule compares
// the mean loss of each quarter of the steps: within kBf16CurveRelative of fp32's, or within
// kBf16CurveAbsolute where the loss is already near zero.
#pragma once

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "checkpoints/run_model.h"
#include "nn/device_setup.h"
#include "nn/gradients.h"

namespace fone_test {

inline constexpr double kBf16StepLoss = 0.03;       // relative, one step's loss
inline constexpr double kBf16StepGradients = 0.10;  // relative, all gradients together
inline constexpr double kBf16CurveRelative = 0.15;  // per quarter of the run
inline constexpr double kBf16CurveAbsolute = 0.05;
inline constexpr int kCurveQuarters = 4;

// Every step's training loss of `steps` AdamW steps of `config`'s model (its splits as batches, batches of
// config.batch in a fixed order) on `device`, under bf16 autocast or not: the trainer's step, without the
// run folder. torch is seeded by config.seed first, so both precisions start from the same weights.
inline std::vector<double> loss_curve(const fone::TrainConfig& config, const torch::Device& device, bool bf16,
                                      int steps) {
    torch::manual_seed(config.seed);
    fone::RunModel r = fone::open_run_model(config, "", fone::RunData::batches);
    r.model->to(device);
    const fone::Batch train = fone::to_device(r.train, device);
    torch::optim::AdamW opt(r.model->parameters(),
                            torch::optim::AdamWOptions(config.lr).weight_decay(config.weight_decay));
    const int64_t batch = static_cast<int64_t>(config.batch);
    std::vector<double> losses;
    for (int s = 0; s < steps; ++s) {
        const int64_t start = (s * batch) % std::max<int64_t>(1, train.n - batch + 1);
        const fone::Batch b = fone::select_rows(train, torch::arange(start, start + batch).to(device));
        opt.zero_grad();
        torch::Tensor loss;
        {
            const fone::Bf16Autocast autocast(device, bf16);
            loss = r.scheme->loss(r.model, b, true);
        }
        loss.backward();
        if (config.clip > 0) fone::clip_gradient_norm(r.model->parameters(), config.clip);
        opt.step();
        losses.push_back(loss.item<double>());
    }
    return losses;
}

// Whether two runs' per-step losses agree by the rule above; `why` gives each quarter's means.
inline bool curves_agree(const std::vector<double>& fp32, const std::vector<double>& bf16, std::string& why) {
    std::ostringstream s;
    bool ok = fp32.size() == bf16.size() && fp32.size() >= static_cast<std::size_t>(kCurveQuarters);
    const std::size_t n = std::min(fp32.size(), bf16.size()), per = n / kCurveQuarters;
    for (int q = 0; ok && q < kCurveQuarters; ++q) {
        double a = 0, b = 0;
        for (std::size_t i = q * per; i < (q + 1) * per; ++i)
            a += fp32[i], b += bf16[i];
        a /= static_cast<double>(per), b /= static_cast<double>(per);
        const bool close =
            std::isfinite(b) && std::abs(a - b) <= std::max(kBf16CurveRelative * a, kBf16CurveAbsolute);
        s << "quarter " << q + 1 << ": fp32 " << a << ", bf16 " << b << (close ? "" : " (too far)") << "; ";
        ok &= close;
    }
    if (fp32.size() != bf16.size() || n < static_cast<std::size_t>(kCurveQuarters))
        s << "curves of " << fp32.size() << " and " << bf16.size() << " steps";
    why = s.str();
    return ok;
}

// |a - b| / |a| over all gradients together (the kBf16StepGradients measure).
inline double relative_difference(const std::vector<torch::Tensor>& a, const std::vector<torch::Tensor>& b) {
    double diff = 0, norm = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        diff += (a[i] - b[i]).pow(2).sum().item<double>();
        norm += a[i].pow(2).sum().item<double>();
    }
    return std::sqrt(diff / std::max(norm, 1e-30));
}

}  // namespace fone_test
