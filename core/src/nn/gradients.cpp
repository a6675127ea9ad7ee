#include "nn/gradients.h"

namespace fone {

void clip_gradient_norm(const std::vector<torch::Tensor>& parameters, double max_norm) {
    std::vector<torch::Tensor> norms;
    for (const torch::Tensor& p : parameters)
        if (p.grad().defined()) norms.push_back(p.grad().data().norm(2.0));
    if (norms.empty()) return;
    const torch::Tensor total = norms.size() == 1 ? norms[0] : torch::stack(norms).norm(2.0);
    const torch::Tensor scale = torch::clamp(max_norm / (total + 1e-6), c10::nullopt, 1.0);
    for (const torch::Tensor& p : parameters)
        if (p.grad().defined()) p.grad().data().mul_(scale);
}

}  // namespace fone
