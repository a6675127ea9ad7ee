// The transformer against values worked out independently: the paper's parameter counts, RMSNorm by
// hand, rotary positions (relative), the last-position shortcut (same output), FoNE at the input, and the
// digit head against the pure-C++ reference in fourier.h, its loss and readout by hand and against the
// reference.
#include <QtTest>

#include <cmath>
#include <numbers>

#include "fone/numbers/fourier.h"
#include "nn/model.h"
#include "schemes/scheme.h"

using namespace fone;

namespace {

ModelConfig small(const std::string& fone_input = "pad") {
    ModelConfig c;
    c.vocab_size = 10;
    c.hidden = 32;
    c.layers = 2;
    c.heads = 4;
    c.kv_heads = 2;
    c.intermediate = 48;
    c.head_dim = 8;
    c.max_seq = 16;
    c.fone_input = fone_input;
    return c;
}

int64_t numel(FoneTransformer& m) {
    int64_t n = 0;
    for (const auto& p : m->parameters())
        n += p.numel();
    return n;
}

}  // namespace

class TestModel : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void paper_parameter_counts() {
        // The paper's models: Llama-3.2's 128,258-token vocabulary (tied), head_dim 64 (notes, section 1.7):
        // level 1 = 8.31M, level 3 = 26.62M, level 4 = 37.55M. Our extras (head LayerNorm, temperature) are
        // switched off to compare like with like.
        auto paper = [](int level) {
            ModelConfig c = size_level(level);
            c.vocab_size = 128258;
            c.head_norm = "none";
            c.head_temperature = false;
            return count_params(c, 0).total / 1e6;
        };
        QVERIFY(std::abs(paper(1) - 8.31) < 0.01);
        QVERIFY(std::abs(paper(3) - 26.62) < 0.01);
        QVERIFY(std::abs(paper(4) - 37.55) < 0.01);
    }

    void counted_params_match_the_module() {
        for (int level = 1; level <= 4; ++level)
            for (const char* input : {"pad", "linear"}) {
                ModelConfig c = size_level(level);
                c.vocab_size = 10;
                c.fone_input = input;
                FoneTransformer m(c, 15, 7, 10, true);
                QCOMPARE(numel(m), count_params(c, 15).total);
            }
        ModelConfig c = small();
        c.head_norm = "none";
        c.head_temperature = false;
        FoneTransformer m(c, 15, 7, 10, true);
        QCOMPARE(numel(m), count_params(c, 15).total);
    }

    void flops_by_hand() {
        // hidden 4, 1 layer, 1 head of width 2, 1 kv head, intermediate 3, 2 positions, all computed:
        // dense per position = 2(4·2 + 2·4·2 + 2·4) + 2·3·4·3 = 64 + 72 = 136; attention = 2·2·2·2 = 16.
        ModelConfig c;
        c.hidden = 4;
        c.layers = 1;
        c.heads = 1;
        c.kv_heads = 1;
        c.head_dim = 2;
        c.intermediate = 3;
        QCOMPARE(train_flops_per_example(c, 2, 2), 3.0 * 2 * (136 + 16));
        // Last position only: one full position plus keys and values (2·2·4·2 = 32) at the other.
        QCOMPARE(train_flops_per_example(c, 2, 1), 3.0 * (136 + 16 + 32));
    }

    void rmsnorm_by_hand() {
        RMSNorm n(2, 0.0);
        const auto y = n(torch::tensor({{3.0f, 4.0f}}));
        // rms = sqrt((9 + 16) / 2) = 3.5355...
        QVERIFY(std::abs(y[0][0].item<float>() - 3.0f / 3.5355339f) < 1e-6);
        QVERIFY(std::abs(y[0][1].item<float>() - 4.0f / 3.5355339f) < 1e-6);
    }

    void last_position_shortcut_gives_the_same_output() {
        torch::manual_seed(1);
        FoneTransformer m(small(), 15, 7, 10, true);
        m->eval();
        torch::NoGradGuard g;
        const auto tokens = torch::randint(10, {3, 6}, torch::kInt64);
        const auto fone = torch::randn({3, 6, 15});
        const auto mask = torch::rand({3, 6}).gt(0.5);
        const auto full = m->forward(tokens, fone * mask.unsqueeze(-1), mask, {}, false);
        const auto last = m->forward(tokens, fone * mask.unsqueeze(-1), mask, {}, true);
        QCOMPARE(last.size(1), 1);
        QVERIFY(torch::allclose(full.select(1, 5), last.select(1, 0), 1e-5, 1e-5));
        // Causality: changing the last token leaves every earlier position's output unchanged.
        auto t2 = tokens.clone();
        t2.select(1, 5).fill_(3);
        const auto changed = m->forward(t2, fone * mask.unsqueeze(-1), mask, {}, false);
        QVERIFY(torch::allclose(full.narrow(1, 0, 5), changed.narrow(1, 0, 5), 1e-6, 1e-6));
    }

    void left_padding_is_invisible() {
        torch::manual_seed(2);
        FoneTransformer m(small(), 15, 7, 10, true);
        m->eval();
        torch::NoGradGuard g;
        const auto tokens = torch::randint(1, 10, {1, 4}, torch::kInt64);
        const auto zeros = torch::zeros({1, 4, 15});
        const auto none = torch::zeros({1, 4}, torch::kBool);
        const auto plain = m->forward(tokens, zeros, none, {}, true);
        const auto padded_tokens = torch::cat({torch::zeros({1, 2}, torch::kInt64), tokens}, 1);
        const auto key_mask = padded_tokens.ne(0);
        const auto padded = m->forward(padded_tokens, torch::zeros({1, 6, 15}),
                                       torch::zeros({1, 6}, torch::kBool), key_mask, true);
        // Rotary positions are relative, and padding is masked: the same answer.
        QVERIFY(torch::allclose(plain, padded, 1e-5, 1e-5));
    }

    void fone_enters_only_at_number_positions() {
        for (const char* input : {"pad", "linear"}) {
            torch::manual_seed(3);
            FoneTransformer m(small(input), 15, 7, 10, true);
            m->eval();
            torch::NoGradGuard g;
            const auto tokens = torch::tensor({{1, 3, 4, 3, 9}}, torch::kInt64);
            auto mask = tokens.eq(3);
            auto fone = torch::zeros({1, 5, 15});
            fone[0][1] = torch::ones({15});
            const auto with = m->forward(tokens, fone, mask, {}, false);
            const auto without =
                m->forward(tokens, torch::zeros({1, 5, 15}), torch::zeros({1, 5}, torch::kBool), {}, false);
            // Position 0 (before the number) is unaffected; position 1 (the number) is.
            QVERIFY(torch::allclose(with.select(1, 0), without.select(1, 0), 1e-6, 1e-6));
            QVERIFY(!torch::allclose(with.select(1, 1), without.select(1, 1), 1e-3, 1e-3));
        }
    }

    void digit_head_matches_the_reference() {
        ModelConfig c = small();
        c.head_norm = "none";
        c.head_temperature_init = 2.5;
        FoneTransformer m(c, 15, 7, 10, true);
        torch::manual_seed(4);
        const auto h = torch::randn({32});
        const auto logits = m->digit_logits(h.unsqueeze(0))[0];
        std::vector<float> hv(h.data_ptr<float>(), h.data_ptr<float>() + 32);
        FoneSpec spec;
        spec.int_digits = 4;
        spec.frac_digits = 3;
        const auto ref = fone::digit_logits(hv, spec, 2.5);
        for (int k = 0; k < 7; ++k)
            for (int j = 0; j < 10; ++j)
                QVERIFY(std::abs(logits[k][j].item<double>() - ref[k * 10 + j]) < 1e-5);
        QVERIFY(std::abs(m->sign_logit(h.unsqueeze(0))[0].item<double>() - 2.5 * hv[14]) < 1e-5);
    }

    void digit_loss_and_readout_by_hand() {
        ModelConfig c = small();
        c.head_norm = "none";
        FoneTransformer m(c, 15, 2, 10, true);  // two digit slots of base 10 and a sign entry; temperature 1
        torch::NoGradGuard g;
        const auto phi = [](double a, int j) {  // a·φ(j): the pair of digit j, scaled by a
            const double angle = 2 * std::numbers::pi * j / 10;
            return std::pair{a * std::cos(angle), a * std::sin(angle)};
        };
        torch::manual_seed(5);
        auto h = torch::randn({2, 32});  // entries past the head's five do not matter
        const auto set = [&](int row, int slot, std::pair<double, double> pair) {
            h[row][2 * slot] = pair.first;
            h[row][2 * slot + 1] = pair.second;
        };
        set(0, 0, phi(1, 0));  // row 0: slot 0 reads φ(0), slot 1 2·φ(2), sign logit -1.5
        set(0, 1, phi(2, 2));
        h[0][4] = -1.5;
        set(1, 0, phi(1, 5));  // row 1: slot 0 reads φ(5), slot 1 0.5·φ(9), sign logit 0.8
        set(1, 1, phi(0.5, 9));
        h[1][4] = 0.8;
        const DigitPrediction p = m->read_digits(h);
        QCOMPARE(p.digits[0][0].item<int64_t>(), int64_t(0));
        QCOMPARE(p.digits[0][1].item<int64_t>(), int64_t(2));
        QCOMPARE(p.digits[1][0].item<int64_t>(), int64_t(5));
        QCOMPARE(p.digits[1][1].item<int64_t>(), int64_t(9));
        QCOMPARE(p.negative[0].item<bool>(), false);
        QCOMPARE(p.negative[1].item<bool>(), true);
        FoneSpec two;
        two.int_digits = 2;
        two.frac_digits = 0;
        const std::vector<Decimal> read = read_numbers(p, two);
        QCOMPARE(read[0], Decimal::parse("20"));
        QCOMPARE(read[1], Decimal::parse("-95"));
        // Labels 30 (slot 1 one off) and -95. A slot whose pair is a·φ(θ) has logits a·cos(2πj/10 - θ); its
        // cross-entropy for label l is log Σ_j exp(z_j) - z_l (worked out in double precision):
        //   row 0: 1.5384994519 (φ(0), label 0) and 1.5085449104 (2·φ(2), label 3)
        //   row 1: 1.5384994519 (φ(5), label 5) and 1.8641348122 (0.5·φ(9), label 9)
        // mean 1.6124196566; signs: softplus(-1.5) for label 0 and softplus(-0.8) for label 1, mean
        // 0.2862569720; the loss (2 · 1.6124196566 + 0.2862569720) / 3 = 1.1703654284.
        const auto digits = torch::tensor({{0, 3}, {5, 9}}, torch::kInt64);
        const auto signs = torch::tensor({0, 1}, torch::kInt64);
        QVERIFY(std::abs(m->digit_loss(h, digits, signs).item<double>() - 1.1703654284) < 1e-5);
        // Labels as bytes (text batches keep them so) give the same loss.
        QVERIFY(std::abs(m->digit_loss(h, digits.to(torch::kUInt8), signs.to(torch::kUInt8)).item<double>() -
                         1.1703654284) < 1e-5);
    }

    void digit_loss_and_readout_match_the_reference() {
        ModelConfig c = small();
        c.head_norm = "none";
        c.head_temperature_init = 2.5;
        FoneTransformer m(c, 15, 7, 10, true);
        torch::NoGradGuard g;
        FoneSpec spec;
        spec.int_digits = 4;
        spec.frac_digits = 3;
        const std::vector<Decimal> ys = {Decimal::parse("1234.567"), Decimal::parse("-0.5"),
                                         Decimal::parse("9999.999"), Decimal::parse("0"),
                                         Decimal::parse("-42.1"),    Decimal::parse("7.007")};
        const int64_t n = static_cast<int64_t>(ys.size());
        torch::manual_seed(6);
        const auto h = torch::randn({n, 32});
        auto digits = torch::empty({n, 7}, torch::kInt64);
        auto signs = torch::empty({n}, torch::kInt64);
        double reference = 0;
        const DigitPrediction p = m->read_digits(h);
        for (int64_t i = 0; i < n; ++i) {
            const auto label = label_digits(ys[static_cast<std::size_t>(i)], spec);
            for (int k = 0; k < 7; ++k)
                digits[i][k] = label[static_cast<std::size_t>(k)];
            signs[i] = ys[static_cast<std::size_t>(i)].negative() ? 1 : 0;
            const auto row = h[i].contiguous();
            const std::vector<float> hv(row.data_ptr<float>(), row.data_ptr<float>() + 32);
            reference +=
                fone::digit_loss(hv, ys[static_cast<std::size_t>(i)], spec, 2.5) / static_cast<double>(n);
            const fone::DigitReadout want = fone::read_digits(hv, spec, 2.5);
            for (int k = 0; k < 7; ++k)
                QCOMPARE(p.digits[i][k].item<int64_t>(), int64_t(want.digits[static_cast<std::size_t>(k)]));
            QCOMPARE(p.negative[i].item<bool>(), want.negative);
        }
        // The mean over examples of the reference's per-example loss (slots and sign, one mean).
        QVERIFY(std::abs(m->digit_loss(h, digits, signs).item<double>() - reference) < 1e-5);
    }

    void shape_errors() {
        ModelConfig c = small();
        c.hidden = 8;
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, FoneTransformer(c, 15, 7, 10, true));
        c = small();
        c.kv_heads = 3;
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, FoneTransformer(c, 15, 7, 10, true));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, size_level(7));
    }
};

QTEST_APPLESS_MAIN(TestModel)
#include "test_model.moc"
