// The fused CPU kernels (nn/fused_ops.h) against the LibTorch formulas they replace: outputs and
// gradients, computed by autograd in float64 from the same inputs, on strided views, with padding, grouped
// query heads and queries that start after cached keys; and the whole model in float32 (fused) against the
// same model in float64 (the LibTorch path).
#include <QtTest>

#include <cmath>
#include <limits>

#include "nn/fused_ops.h"
#include "nn/gradients.h"
#include "nn/model.h"

using namespace fone;

namespace {

// A float32 leaf and its float64 twin (same values), both requiring gradients.
struct Twin {
    torch::Tensor f, d;
};

Twin twin(const torch::Tensor& values) {
    return {values.to(torch::kFloat32).detach().requires_grad_(true),
            values.to(torch::kFloat64).detach().requires_grad_(true)};
}

bool close(const torch::Tensor& a, const torch::Tensor& b, double tol = 1e-5) {
    return torch::allclose(a.to(torch::kFloat64), b.to(torch::kFloat64), tol, tol);
}

// The model's composite rotary formula (halves convention).
torch::Tensor rotate_reference(const torch::Tensor& x, const torch::Tensor& cos, const torch::Tensor& sin) {
    const int64_t half = x.size(-1) / 2;
    const auto x1 = x.narrow(-1, 0, half), x2 = x.narrow(-1, half, half);
    const auto c = cos.unsqueeze(1), s = sin.unsqueeze(1);  // [L, 1, half]: over the heads
    return torch::cat({x1 * c - x2 * s, x2 * c + x1 * s}, -1);
}

// Attention written out with LibTorch operations: q [B, Lq, H, hd], k, v [B, L, KV, hd].
torch::Tensor attention_reference(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                                  const torch::Tensor& key_mask, double scale) {
    const int64_t lq = q.size(1), l = k.size(1), group = q.size(2) / k.size(2);
    const auto qh = q.transpose(1, 2);  // [B, H, Lq, hd]
    const auto kh = k.transpose(1, 2).repeat_interleave(group, 1),
               vh = v.transpose(1, 2).repeat_interleave(group, 1);
    auto allowed = torch::ones({lq, l}, torch::kBool).tril(l - lq).view({1, 1, lq, l});
    const auto self = torch::eye(l, torch::kBool).narrow(0, l - lq, lq).view({1, 1, lq, l});
    allowed = allowed.logical_and(key_mask.view({key_mask.size(0), 1, 1, l})).logical_or(self);
    auto scores = torch::matmul(qh, kh.transpose(-2, -1)) * scale;
    scores = scores.masked_fill(allowed.logical_not(), -std::numeric_limits<double>::infinity());
    return torch::matmul(torch::softmax(scores, -1), vh).transpose(1, 2);
}

ModelConfig small() {
    ModelConfig c;
    c.vocab_size = 10;
    c.hidden = 32;
    c.layers = 2;
    c.heads = 4;
    c.kv_heads = 2;
    c.intermediate = 48;
    c.head_dim = 8;
    c.max_seq = 16;
    return c;
}

}  // namespace

class TestFusedOps : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    // The trainer's clip (nn/gradients.h) is LibTorch's clip_grad_norm_ without the read of the norm that
    // made a GPU wait: bit for bit the same gradients, clipped or not, a parameter without a gradient kept
    // so.
    void gradient_clip_is_libtorchs_bitwise() {
        for (const double max_norm : {0.5, 1e6}) {
            torch::manual_seed(11);
            std::vector<torch::Tensor> a, b;
            for (const auto shape : {std::vector<int64_t>{7, 5}, {13}, {3, 4, 2}}) {
                a.push_back(torch::randn(shape).requires_grad_());
                a.back().mutable_grad() = torch::randn(shape) * 3;
                b.push_back(a.back().detach().clone().requires_grad_());
                b.back().mutable_grad() = a.back().grad().clone();
            }
            a.push_back(torch::randn({4}).requires_grad_());  // no gradient
            b.push_back(a.back().detach().clone().requires_grad_());
            torch::nn::utils::clip_grad_norm_(a, max_norm);
            fone::clip_gradient_norm(b, max_norm);
            for (std::size_t i = 0; i + 1 < a.size(); ++i)
                QVERIFY(torch::equal(a[i].grad(), b[i].grad()));
            QVERIFY(!b.back().grad().defined());
        }
    }
    void rotary_is_the_composite_formula_bitwise() {
        torch::manual_seed(1);
        // A strided view, as the model passes it: heads 1..3 of a wider projection.
        const auto wide = torch::randn({3, 5, 6, 8}).requires_grad_(true);
        const auto x = wide.narrow(2, 1, 3);
        const auto angles = torch::rand({5, 4}) * 6.0;
        const auto cos = angles.cos(), sin = angles.sin();
        const auto fused = fused_rotary(x, cos, sin);
        const auto reference = rotate_reference(x, cos, sin);
        QVERIFY(torch::equal(fused, reference));
        const auto g = torch::randn(fused.sizes());
        const auto g_fused = torch::autograd::grad({fused}, {wide}, {g})[0];
        const auto g_reference = torch::autograd::grad({reference}, {wide}, {g})[0];
        QVERIFY(torch::equal(g_fused, g_reference));
    }

    void rms_norm_matches_the_formula() {
        torch::manual_seed(2);
        const Twin x = twin(torch::randn({4, 5, 16}) * 3), w = twin(torch::randn({16}));
        const double eps = 1e-5;
        const auto fused = fused_rms_norm(x.f, w.f, eps);
        const auto reference = x.d * torch::rsqrt(x.d.pow(2).mean(-1, true) + eps) * w.d;
        QVERIFY(close(fused, reference));
        const auto g = torch::randn(fused.sizes());
        const auto gf = torch::autograd::grad({fused}, {x.f, w.f}, {g});
        const auto gd = torch::autograd::grad({reference}, {x.d, w.d}, {g.to(torch::kFloat64)});
        QVERIFY(close(gf[0], gd[0]));
        QVERIFY(close(gf[1], gd[1], 1e-4));  // a sum over 20 rows
    }

    void swiglu_matches_the_formula() {
        torch::manual_seed(3);
        const Twin gu = twin(torch::randn({4, 5, 12}) * 4);
        const auto fused = fused_swiglu(gu.f);
        const auto halves = gu.d.chunk(2, -1);
        const auto reference = torch::silu(halves[0]) * halves[1];
        QVERIFY(close(fused, reference));
        const auto g = torch::randn(fused.sizes());
        QVERIFY(close(torch::autograd::grad({fused}, {gu.f}, {g})[0],
                      torch::autograd::grad({reference}, {gu.d}, {g.to(torch::kFloat64)})[0]));
    }

    void short_attention_matches_the_formula_data() {
        QTest::addColumn<int>("queries");
        QTest::addColumn<int>("keys");
        QTest::newRow("every position (training)") << 6 << 6;
        QTest::newRow("last position only") << 1 << 6;
        QTest::newRow("two new positions after cached keys") << 2 << 7;
    }
    void short_attention_matches_the_formula() {
        QFETCH(int, queries);
        QFETCH(int, keys);
        torch::manual_seed(4);
        const int64_t b = 3, heads = 4, kv_heads = 2, hd = 8;
        // Strided views of one projection, as in the model: [B, L, (H + 2 KV) hd].
        const Twin proj = twin(torch::randn({b, keys, (heads + 2 * kv_heads) * hd}));
        auto views = [&](const torch::Tensor& p) {
            return std::array<torch::Tensor, 3>{
                p.narrow(1, keys - queries, queries)
                    .narrow(-1, 0, heads * hd)
                    .reshape({b, queries, heads, hd}),
                p.narrow(-1, heads * hd, kv_heads * hd).reshape({b, keys, kv_heads, hd}),
                p.narrow(-1, (heads + kv_heads) * hd, kv_heads * hd).reshape({b, keys, kv_heads, hd})};
        };
        // Example 0 unpadded, example 1 with 2 padding positions on the left, example 2 with 3.
        auto key_mask = torch::ones({b, keys}, torch::kBool);
        key_mask[1].narrow(0, 0, 2).fill_(false);
        key_mask[2].narrow(0, 0, 3).fill_(false);
        const double scale = 1.0 / std::sqrt(static_cast<double>(hd));
        const auto f = views(proj.f), d = views(proj.d);
        const auto fused = fused_short_attention(f[0], f[1], f[2], key_mask, scale);
        const auto reference = attention_reference(d[0], d[1], d[2], key_mask, scale);
        QCOMPARE(fused.sizes().vec(), (std::vector<int64_t>{b, queries, heads, hd}));
        QVERIFY(close(fused, reference));
        const auto g = torch::randn(fused.sizes());
        QVERIFY(close(torch::autograd::grad({fused}, {proj.f}, {g})[0],
                      torch::autograd::grad({reference}, {proj.d}, {g.to(torch::kFloat64)})[0]));
    }

    void the_model_is_the_same_with_and_without_the_kernels() {
        // Float32 takes the fused kernels, float64 the LibTorch operations: the same weights give the same
        // hidden states and the same gradients.
        torch::manual_seed(5);
        FoneTransformer fused(small(), 15, 7, 10, true);
        torch::manual_seed(5);
        FoneTransformer plain(small(), 15, 7, 10, true);
        plain->to(torch::kFloat64);
        auto tokens = torch::randint(1, 10, {4, 6}, torch::kInt64);
        tokens[1].narrow(0, 0, 2).fill_(0);  // left padding
        const auto key_mask = tokens.ne(0);
        const auto num_mask = tokens.eq(3);
        const auto fone = torch::randn({4, 6, 15}) * num_mask.unsqueeze(-1);
        for (bool last_only : {false, true}) {
            const auto hf = fused->forward(tokens, fone, num_mask, key_mask, last_only);
            const auto hd = plain->forward(tokens, fone.to(torch::kFloat64), num_mask, key_mask, last_only);
            QVERIFY(close(hf, hd, 1e-4));
            const auto w = torch::randn(hf.sizes());
            (hf * w).sum().backward();
            (hd * w.to(torch::kFloat64)).sum().backward();
            const auto pf = fused->named_parameters(), pd = plain->named_parameters();
            for (const auto& p : pf) {
                const auto& q = pd[p.key()];
                if (!p.value().grad().defined()) {  // the output heads: not on the way to h
                    QVERIFY(!q.grad().defined());
                    continue;
                }
                QVERIFY2(close(p.value().grad(), q.grad(), 1e-4), p.key().c_str());
            }
            fused->zero_grad();
            plain->zero_grad();
        }
    }

    void cached_generation_gives_the_full_forward() {
        torch::manual_seed(6);
        FoneTransformer m(small(), 15, 7, 10, true);
        m->eval();
        torch::NoGradGuard no_grad;
        const auto tokens = torch::randint(1, 10, {2, 6}, torch::kInt64);
        const auto key_mask = tokens.ne(0);
        const auto full = m->forward(ModelInputs{tokens, key_mask, {}, {}, {}, {}}, true);
        KvCache cache;
        m->forward(ModelInputs{tokens.narrow(1, 0, 4), key_mask.narrow(1, 0, 4), {}, {}, {}, {}}, true,
                   nullptr, &cache);
        m->forward(ModelInputs{tokens.narrow(1, 4, 1), key_mask.narrow(1, 0, 5), {}, {}, {}, {}}, true,
                   nullptr, &cache);
        const auto step =
            m->forward(ModelInputs{tokens.narrow(1, 5, 1), key_mask, {}, {}, {}, {}}, true, nullptr, &cache);
        QVERIFY(close(full, step));
    }
};

QTEST_APPLESS_MAIN(TestFusedOps)
#include "test_fused_ops.moc"
