#include "nn/fused_ops.h"

#include <cmath>
#include <limits>
#include <vector>

#include <ATen/Parallel.h>
#include <ATen/TensorIterator.h>  // at::internal::GRAIN_SIZE

namespace fone {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::tensor_list;

// Rows per parallel task, sized by the work: rows of `work_per_row` elements (multiply-adds for attention)
// make a task of LibTorch's own grain (32,768 elements), so a tensor smaller than that never forks and joins
// threads (each fork wakes sleeping threads, and on a shared machine waits for them to be scheduled).
int64_t rows_per_task(int64_t work_per_row) {
    return std::max<int64_t>(1, at::internal::GRAIN_SIZE / std::max<int64_t>(1, work_per_row));
}

// ---- rotary ----------------------------------------------------------------------------------------------

// y1 = x1 c - x2 s, y2 = x2 c + x1 s over [B, L, N, hd] (last dim contiguous), sign -1 for the inverse
// rotation (the backward: the transpose of a rotation is the rotation by -angle).
void rotate_into(const torch::Tensor& x, const torch::Tensor& cos, const torch::Tensor& sin, float sign,
                 torch::Tensor& y) {
    const int64_t b = x.size(0), l = x.size(1), n = x.size(2), half = x.size(3) / 2;
    const auto xs = x.strides();
    const float* xp = x.data_ptr<float>();
    const float* cp = cos.data_ptr<float>();
    const float* sp = sin.data_ptr<float>();
    float* yp = y.data_ptr<float>();
    at::parallel_for(0, b * l, rows_per_task(n * 2 * half), [&](int64_t begin, int64_t end) {
        for (int64_t r = begin; r < end; ++r) {
            const int64_t bi = r / l, li = r % l;
            const float* c = cp + li * half;
            const float* s = sp + li * half;
            for (int64_t h = 0; h < n; ++h) {
                const float* x1 = xp + bi * xs[0] + li * xs[1] + h * xs[2];
                const float* x2 = x1 + half;
                float* y1 = yp + (r * n + h) * 2 * half;
                float* y2 = y1 + half;
                if (sign > 0) {
                    for (int64_t j = 0; j < half; ++j) {
                        y1[j] = x1[j] * c[j] - x2[j] * s[j];
                        y2[j] = x2[j] * c[j] + x1[j] * s[j];
                    }
                } else {  // dx1 = g1 c + g2 s, dx2 = g2 c - g1 s
                    for (int64_t j = 0; j < half; ++j) {
                        y1[j] = x1[j] * c[j] + x2[j] * s[j];
                        y2[j] = x2[j] * c[j] - x1[j] * s[j];
                    }
                }
            }
        }
    });
}

torch::Tensor last_dim_contiguous(const torch::Tensor& x) {
    return x.stride(-1) == 1 ? x : x.contiguous();
}

struct Rotary : torch::autograd::Function<Rotary> {
    static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& x, const torch::Tensor& cos,
                                 const torch::Tensor& sin) {
        const auto xc = last_dim_contiguous(x);
        const auto c = cos.contiguous(), s = sin.contiguous();
        auto y = torch::empty(x.sizes(), x.options());
        rotate_into(xc, c, s, 1.0f, y);
        ctx->save_for_backward({c, s});
        return y;
    }
    static tensor_list backward(AutogradContext* ctx, tensor_list grads) {
        const auto saved = ctx->get_saved_variables();
        const auto g = last_dim_contiguous(grads[0]);
        auto dx = torch::empty(g.sizes(), g.options());
        rotate_into(g, saved[0], saved[1], -1.0f, dx);
        return {dx, torch::Tensor(), torch::Tensor()};
    }
};

// ---- RMSNorm ---------------------------------------------------------------------------------------------

struct RmsNorm : torch::autograd::Function<RmsNorm> {
    static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& x, const torch::Tensor& weight,
                                 double eps) {
        const auto xc = x.contiguous();
        const auto w = weight.contiguous();
        const int64_t d = x.size(-1), rows = x.numel() / d;
        auto y = torch::empty(x.sizes(), x.options());
        auto inv = torch::empty({rows}, x.options());  // rsqrt(mean(x^2) + eps) per row
        const float* xp = xc.data_ptr<float>();
        const float* wp = w.data_ptr<float>();
        float* yp = y.data_ptr<float>();
        float* ip = inv.data_ptr<float>();
        at::parallel_for(0, rows, rows_per_task(d), [&](int64_t begin, int64_t end) {
            for (int64_t r = begin; r < end; ++r) {
                const float* xr = xp + r * d;
                float* yr = yp + r * d;
                double ss = 0;
                for (int64_t j = 0; j < d; ++j)
                    ss += static_cast<double>(xr[j]) * xr[j];
                const float ir = static_cast<float>(1.0 / std::sqrt(ss / d + eps));
                ip[r] = ir;
                for (int64_t j = 0; j < d; ++j)
                    yr[j] = xr[j] * ir * wp[j];
            }
        });
        ctx->save_for_backward({xc, w, inv});
        return y;
    }

    // y = x r w with r = (mean(x^2) + eps)^-1/2: dx = r (g w) - x r^3 mean(g w x), dw = sum over rows g x r.
    static tensor_list backward(AutogradContext* ctx, tensor_list grads) {
        const auto saved = ctx->get_saved_variables();
        const auto &x = saved[0], &w = saved[1], &inv = saved[2];
        const auto g = grads[0].contiguous();
        const int64_t d = x.size(-1), rows = x.numel() / d;
        auto dx = torch::empty(x.sizes(), x.options());
        const int threads = at::get_num_threads();
        auto dw_parts = torch::zeros({threads, d}, x.options());
        const float *xp = x.data_ptr<float>(), *wp = w.data_ptr<float>(), *ip = inv.data_ptr<float>();
        const float* gp = g.data_ptr<float>();
        float* dxp = dx.data_ptr<float>();
        float* dwp = dw_parts.data_ptr<float>();
        at::parallel_for(0, rows, rows_per_task(d), [&](int64_t begin, int64_t end) {
            float* dw = dwp + at::get_thread_num() * d;
            for (int64_t r = begin; r < end; ++r) {
                const float *xr = xp + r * d, *gr = gp + r * d;
                const float ir = ip[r];
                double dot = 0;
                for (int64_t j = 0; j < d; ++j)
                    dot += static_cast<double>(gr[j]) * wp[j] * xr[j];
                const float k = static_cast<float>(static_cast<double>(ir) * ir * ir * dot / d);
                float* dxr = dxp + r * d;
                for (int64_t j = 0; j < d; ++j) {
                    dxr[j] = ir * (gr[j] * wp[j]) - xr[j] * k;
                    dw[j] += gr[j] * xr[j] * ir;
                }
            }
        });
        return {dx, dw_parts.sum(0), torch::Tensor()};
    }
};

// ---- SwiGLU gate -----------------------------------------------------------------------------------------

// The sigmoid comes from LibTorch (its vectorised exp; a scalar exp here made this the slowest kernel), the
// rest is one pass forward and one backward.
struct SwiGlu : torch::autograd::Function<SwiGlu> {
    static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& gate_up) {
        const auto gu = gate_up.contiguous();
        const int64_t i2 = gu.size(-1), n = i2 / 2, rows = gu.numel() / i2;
        const auto sig = torch::sigmoid(gu.narrow(-1, 0, n)).contiguous();  // s(a)
        auto y = torch::empty(sig.sizes(), gu.options());
        const float *p = gu.data_ptr<float>(), *sp = sig.data_ptr<float>();
        float* yp = y.data_ptr<float>();
        at::parallel_for(0, rows, rows_per_task(i2), [&](int64_t begin, int64_t end) {
            for (int64_t r = begin; r < end; ++r) {
                const float *a = p + r * i2, *b = a + n, *s = sp + r * n;
                float* yr = yp + r * n;
                for (int64_t j = 0; j < n; ++j)
                    yr[j] = a[j] * s[j] * b[j];
            }
        });
        ctx->save_for_backward({gu, sig});
        return y;
    }
    // silu(a) = a s(a); silu'(a) = s (1 + a (1 - s)).
    static tensor_list backward(AutogradContext* ctx, tensor_list grads) {
        const auto saved = ctx->get_saved_variables();
        const auto &gu = saved[0], &sig = saved[1];
        const auto g = grads[0].contiguous();
        const int64_t i2 = gu.size(-1), n = i2 / 2, rows = gu.numel() / i2;
        auto dgu = torch::empty(gu.sizes(), gu.options());
        const float *p = gu.data_ptr<float>(), *sp = sig.data_ptr<float>(), *gp = g.data_ptr<float>();
        float* dp = dgu.data_ptr<float>();
        at::parallel_for(0, rows, rows_per_task(i2), [&](int64_t begin, int64_t end) {
            for (int64_t r = begin; r < end; ++r) {
                const float *a = p + r * i2, *b = a + n, *s = sp + r * n, *gr = gp + r * n;
                float *da = dp + r * i2, *db = da + n;
                for (int64_t j = 0; j < n; ++j) {
                    da[j] = gr[j] * b[j] * (s[j] * (1.0f + a[j] * (1.0f - s[j])));
                    db[j] = gr[j] * (a[j] * s[j]);
                }
            }
        });
        return {dgu};
    }
};

// ---- attention over few keys -----------------------------------------------------------------------------

// Strided [B, L, N, hd] access with a contiguous last dim.
struct View4 {
    const float* p;
    int64_t s0, s1, s2;
    explicit View4(const torch::Tensor& t)
        : p(t.data_ptr<float>()), s0(t.stride(0)), s1(t.stride(1)), s2(t.stride(2)) {}
    const float* at(int64_t b, int64_t l, int64_t n) const { return p + b * s0 + l * s1 + n * s2; }
};

struct Shapes {
    int64_t b, lq, l, heads, kv_heads, hd, group;
    explicit Shapes(const torch::Tensor& q, const torch::Tensor& k)
        : b(q.size(0)),
          lq(q.size(1)),
          l(k.size(1)),
          heads(q.size(2)),
          kv_heads(k.size(2)),
          hd(q.size(3)),
          group(q.size(2) / k.size(2)) {}
};

// Whether query i of example bi may see key j (causal, padding hidden but for the query's own key).
inline bool allowed(const Shapes& s, const bool* mask, int64_t bi, int64_t i, int64_t j) {
    const int64_t self = s.l - s.lq + i;
    return j == self || (j < self && (!mask || mask[bi * s.l + j]));
}

struct ShortAttention : torch::autograd::Function<ShortAttention> {
    static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& q_in, const torch::Tensor& k_in,
                                 const torch::Tensor& v_in, const torch::Tensor& key_mask, double scale) {
        const auto q = last_dim_contiguous(q_in), k = last_dim_contiguous(k_in),
                   v = last_dim_contiguous(v_in);
        const Shapes s(q, k);
        const auto mask = key_mask.numel() > 0 ? key_mask.to(torch::kBool).contiguous() : torch::Tensor();
        auto out = torch::empty({s.b, s.lq, s.heads, s.hd}, q.options());
        auto probs = torch::empty({s.b, s.heads, s.lq, s.l}, q.options());
        const View4 qv(q), kv(k), vv(v);
        const bool* mp = mask.defined() ? mask.data_ptr<bool>() : nullptr;
        float* op = out.data_ptr<float>();
        float* pp = probs.data_ptr<float>();
        const float sc = static_cast<float>(scale);
        at::parallel_for(0, s.b, rows_per_task(s.heads * s.lq * s.l * s.hd), [&](int64_t b0, int64_t b1) {
            for (int64_t bi = b0; bi < b1; ++bi)
                for (int64_t h = 0; h < s.heads; ++h)
                    for (int64_t i = 0; i < s.lq; ++i) {
                        const float* qr = qv.at(bi, i, h);
                        float* p = pp + ((bi * s.heads + h) * s.lq + i) * s.l;
                        float top = -std::numeric_limits<float>::infinity();
                        for (int64_t j = 0; j < s.l; ++j) {
                            if (!allowed(s, mp, bi, i, j)) {
                                p[j] = -std::numeric_limits<float>::infinity();
                                continue;
                            }
                            const float* kr = kv.at(bi, j, h / s.group);
                            float dot = 0;
                            for (int64_t d = 0; d < s.hd; ++d)
                                dot += qr[d] * kr[d];
                            p[j] = dot * sc;
                            top = std::max(top, p[j]);
                        }
                        float z = 0;
                        for (int64_t j = 0; j < s.l; ++j)
                            z += p[j] = std::exp(p[j] - top);  // exp(-inf) = 0: hidden keys
                        float* o = op + ((bi * s.lq + i) * s.heads + h) * s.hd;
                        std::fill(o, o + s.hd, 0.0f);
                        for (int64_t j = 0; j < s.l; ++j) {
                            p[j] /= z;
                            if (p[j] == 0) continue;
                            const float* vr = vv.at(bi, j, h / s.group);
                            for (int64_t d = 0; d < s.hd; ++d)
                                o[d] += p[j] * vr[d];
                        }
                    }
        });
        ctx->save_for_backward({q, k, v, probs});
        ctx->saved_data["scale"] = scale;
        return out;
    }

    // With P the probabilities and dO the output's gradient: dV = P^T dO, dP = dO V^T,
    // dS = P (dP - rowsum(P dP)), dQ = scale dS K, dK = scale dS^T Q (summed over the heads of a group).
    static tensor_list backward(AutogradContext* ctx, tensor_list grads) {
        const auto saved = ctx->get_saved_variables();
        const auto &q = saved[0], &k = saved[1], &v = saved[2], &probs = saved[3];
        const float sc = static_cast<float>(ctx->saved_data["scale"].toDouble());
        const Shapes s(q, k);
        const auto g = grads[0].contiguous();  // [B, Lq, H, hd]
        auto dq = torch::empty({s.b, s.lq, s.heads, s.hd}, q.options());
        auto dk = torch::zeros({s.b, s.l, s.kv_heads, s.hd}, q.options());
        auto dv = torch::zeros({s.b, s.l, s.kv_heads, s.hd}, q.options());
        const View4 qv(q), kv(k), vv(v);
        const float *gp = g.data_ptr<float>(), *pp = probs.data_ptr<float>();
        float *dqp = dq.data_ptr<float>(), *dkp = dk.data_ptr<float>(), *dvp = dv.data_ptr<float>();
        at::parallel_for(0, s.b, rows_per_task(s.heads * s.lq * s.l * s.hd), [&](int64_t b0, int64_t b1) {
            std::vector<float> ds(static_cast<std::size_t>(s.l));
            for (int64_t bi = b0; bi < b1; ++bi)
                for (int64_t h = 0; h < s.heads; ++h)
                    for (int64_t i = 0; i < s.lq; ++i) {
                        const int64_t kvh = h / s.group;
                        const float* p = pp + ((bi * s.heads + h) * s.lq + i) * s.l;
                        const float* go = gp + ((bi * s.lq + i) * s.heads + h) * s.hd;
                        float row = 0;
                        for (int64_t j = 0; j < s.l; ++j) {
                            ds[j] = 0;
                            if (p[j] == 0) continue;
                            const float* vr = vv.at(bi, j, kvh);
                            float* dvr = dvp + ((bi * s.l + j) * s.kv_heads + kvh) * s.hd;
                            float dp = 0;
                            for (int64_t d = 0; d < s.hd; ++d) {
                                dp += go[d] * vr[d];
                                dvr[d] += p[j] * go[d];
                            }
                            ds[j] = dp;
                            row += p[j] * dp;
                        }
                        const float* qr = qv.at(bi, i, h);
                        float* dqr = dqp + ((bi * s.lq + i) * s.heads + h) * s.hd;
                        std::fill(dqr, dqr + s.hd, 0.0f);
                        for (int64_t j = 0; j < s.l; ++j) {
                            if (p[j] == 0) continue;
                            const float d_s = p[j] * (ds[j] - row) * sc;
                            const float* kr = kv.at(bi, j, kvh);
                            float* dkr = dkp + ((bi * s.l + j) * s.kv_heads + kvh) * s.hd;
                            for (int64_t d = 0; d < s.hd; ++d) {
                                dqr[d] += d_s * kr[d];
                                dkr[d] += d_s * qr[d];
                            }
                        }
                    }
        });
        return {dq, dk, dv, torch::Tensor(), torch::Tensor()};
    }
};

}  // namespace

bool fused_kernels_apply(const torch::Tensor& x) {
    return x.device().is_cpu() && x.scalar_type() == torch::kFloat32;
}

torch::Tensor fused_rotary(const torch::Tensor& x, const torch::Tensor& cos, const torch::Tensor& sin) {
    return Rotary::apply(x, cos, sin);
}

torch::Tensor fused_rms_norm(const torch::Tensor& x, const torch::Tensor& weight, double eps) {
    return RmsNorm::apply(x, weight, eps);
}

torch::Tensor fused_swiglu(const torch::Tensor& gate_up) {
    return SwiGlu::apply(gate_up);
}

torch::Tensor fused_short_attention(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                                    const torch::Tensor& key_mask, double scale) {
    // Autograd records every tensor argument: "no mask" is an empty tensor rather than an undefined one.
    return ShortAttention::apply(q, k, v, key_mask.defined() ? key_mask : torch::empty({0}, torch::kBool),
                                 scale);
}

}  // namespace fone
