// xval's number head (Golkar et al.): a number's input is [NUM]'s embedding multiplied by its value,
// normalised by the largest magnitude the digit slots hold (xval_scale); where a number comes next a linear
// regression head learns that normalised value by mean squared error (added unweighted to the next-token
// cross-entropy on text, xVal's loss), and a value read back is rounded to the slots (xval_rounded).
#include <cmath>

#include "schemes/number_head.h"
#include "schemes/scheme_parts.h"

namespace fone {
namespace {

namespace F = torch::nn::functional;

class XvalHead final : public NumberHead {
  public:
    explicit XvalHead(const HeadSettings& s) : spec_(s.spec), scale_(xval_scale(s.spec)) {}

    ModelHeads heads() const override {
        ModelHeads h;
        h.digit_base = spec_.base;
        h.regression = 1;
        return h;
    }
    int64_t feature_width() const override { return 0; }
    bool scales_embedding() const override { return true; }
    void input(const Decimal& x, float*, float* scale) const override {
        check_fits(x, spec_);
        *scale = static_cast<float>(x.to_double() / scale_);
    }
    bool learns_values() const override { return true; }

    torch::Tensor loss(FoneTransformer& model, const torch::Tensor& h,
                       const NumberTargets& y) const override {
        return F::mse_loss(model->regress(h).squeeze(-1).to(torch::kFloat32),
                           (y.values / scale_).to(torch::kFloat32));
    }

    std::vector<Answer> read(FoneTransformer& model, const torch::Tensor& h) const override {
        // A plain pointer into a CPU tensor: a tensor op per example (v[i].item()) cost as much as a
        // quarter of the forward pass of a batch.
        const auto v =
            (model->regress(h).squeeze(-1).to(torch::kFloat64) * scale_).to(torch::kCPU).contiguous();
        const double* p = v.data_ptr<double>();
        std::vector<Answer> out;
        out.reserve(static_cast<std::size_t>(h.size(0)));
        for (int64_t i = 0; i < h.size(0); ++i)
            out.push_back(xval_rounded(p[i], spec_));
        return out;
    }

    nlohmann::json explain(FoneTransformer& model, const torch::Tensor& h) const override {
        const Answer a = read(model, h)[0];
        return {{"value", a ? a->to_string() : ""},
                {"regression", model->regress(h)[0][0].item<double>() * scale_}};
    }

  private:
    FoneSpec spec_;
    double scale_;
};

std::unique_ptr<NumberHead> make_xval_head(const HeadSettings& s) {
    return std::make_unique<XvalHead>(s);
}

}  // namespace

double xval_scale(const FoneSpec& spec) {
    return std::pow(static_cast<double>(spec.base), spec.int_digits);
}

std::optional<Decimal> xval_rounded(double v, const FoneSpec& spec) {
    if (!std::isfinite(v) || std::fabs(v) >= xval_scale(spec) * 10) return std::nullopt;
    const double unit = std::pow(10.0, spec.frac_digits);
    return Decimal::from_scaled(std::llround(v * unit), spec.frac_digits);
}

const NumberHeadMaker& xval_head_maker() {
    static const NumberHeadMaker maker{"xval", make_xval_head};
    return maker;
}

}  // namespace fone
