// The number schemes (core/src/schemes/scheme.h) against tokenizations and values worked out by hand: digit,
// subword (Llama-3 chunks, and right to left), NumeroLogic, Abacus order and positions, FoNE on digit
// tokens, xVal scaling, BitTokens' bits, head, loss and reading, teacher-forced targets, tokens per number,
// the Number Token Loss recomputed independently from the logits, and the tasks' extra operators.
#include <QtTest>

#include <cmath>
#include <cstring>

#include "one_block_model.h"
#include "schemes/scheme.h"

using namespace fone;

namespace {

FoneSpec spec(int m, int n) {
    FoneSpec s;
    s.int_digits = m;
    s.frac_digits = n;
    return s;
}

std::unique_ptr<NumberScheme> scheme(const std::string& method, const FoneSpec& s = spec(7, 3)) {
    TrainConfig c;
    c.method = method;
    return make_scheme(c, s);
}

std::unique_ptr<NumberScheme> scheme_of(const TrainConfig& c, const FoneSpec& s = spec(7, 3),
                                        const std::vector<Op>& extra = {}) {
    return make_scheme(c, s, extra);
}

QStringList names(const NumberScheme& sc, const torch::Tensor& row) {
    QStringList out;
    for (int64_t k = 0; k < row.size(0); ++k)
        out << QString::fromStdString(sc.vocabulary()[static_cast<std::size_t>(row[k].item<int64_t>())]);
    return out;
}

QStringList words(const char* text) {
    return QString(text).split(' ');
}

}  // namespace

class TestSchemes : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void digit_tokens_one_per_character() {
        auto s = scheme("digit");
        const Batch b = s->encode_prompt("123.456+654.321=");
        QCOMPARE(names(*s, b.prompt[0]), words("[BOS] 1 2 3 . 4 5 6 + 6 5 4 . 3 2 1 ="));
        QCOMPARE(s->tokens_for(Decimal::parse("999.999")), int64_t(7));  // the paper's 7
        QCOMPARE(s->tokens_for(Decimal::parse("-5")), int64_t(2));
    }

    void subword_chunks_left_to_right() {
        auto s = scheme("subword");
        QCOMPARE(names(*s, s->encode_prompt("1234567.891+1=").prompt[0]),
                 words("[BOS] 123 456 7 . 891 + 1 ="));
        // Leading zeros of an inner chunk are kept: "007" is its own token, so 1000070 reads back exactly.
        QCOMPARE(names(*s, s->encode_prompt("1000070*0.25=").prompt[0]), words("[BOS] 100 007 0 * 0 . 25 ="));
        QCOMPARE(s->tokens_for(Decimal::parse("999.999")), int64_t(3));  // the paper's 3
        QCOMPARE(s->vocabulary().size(), std::size_t(10 + 1 + 10 + 100 + 1000));
    }

    void subword_chunks_right_to_left() {
        TrainConfig c;
        c.method = "subword";
        c.subword_direction = "r2l";
        auto s = scheme_of(c);
        QCOMPARE(names(*s, s->encode_prompt("1234567.891+1=").prompt[0]),
                 words("[BOS] 1 234 567 . 891 + 1 ="));
        QCOMPARE(names(*s, s->encode_prompt("1000070*0.25=").prompt[0]), words("[BOS] 1 000 070 * 0 . 25 ="));
        QCOMPARE(s->vocabulary().size(), std::size_t(10 + 1 + 10 + 100 + 1000));  // the same tokens
        c.method = "ntl";
        c.ntl_tokens = "subword";
        auto ntl = scheme_of(c);
        QCOMPARE(names(*ntl, ntl->encode_prompt("1234+5=").prompt[0]), words("[BOS] 1 234 + 5 ="));
    }

    void numerologic_writes_the_digit_count_first() {
        TrainConfig c;
        c.method = "numerologic";
        auto s = scheme_of(c);
        QCOMPARE(names(*s, s->encode_prompt("42+3.14=").prompt[0]),
                 words("[BOS] { 2 : 4 2 } + { 1 . 2 : 3 . 1 4 } ="));
        QCOMPARE(s->tokens_for(Decimal::parse("42")), int64_t(6));
        QCOMPARE(s->vocabulary().size(), std::size_t(10 + 1 + 10 + 3));
        // The answer is written the same way and then [EOS]: the targets are its tokens.
        Example e{{Decimal::from_int(40), Decimal::from_int(2)}, {"+"}, Decimal::from_int(42)};
        const Batch b = s->encode({e});
        QCOMPARE(names(*s, b.in.tokens[0]), words("[BOS] { 2 : 4 0 } + { 1 : 2 } = { 2 : 4 2 } [EOS]"));
        QVERIFY(s->sequence_length(b) >= b.prompt.size(1) + 14);  // room for "{1.3:" and the digits
        c.numerologic_tokens = "subword";
        c.subword_direction = "r2l";
        auto sub = scheme_of(c);
        QCOMPARE(names(*sub, sub->encode_prompt("1234567+1=").prompt[0]),
                 words("[BOS] { 7 : 1 234 567 } + { 1 : 1 } ="));
    }

    void bittokens_feed_the_bits_of_x_and_1_over_x() {
        TrainConfig c;
        c.method = "bittokens";
        c.model.hidden = 512;
        auto s = scheme_of(c);
        const Batch b = s->encode_prompt("12.5+3=");
        QCOMPARE(names(*s, b.in.tokens[0]), words("[BOS] [NUM] + [NUM] ="));
        QCOMPARE(s->tokens_for(Decimal::parse("12.5")), int64_t(1));
        QCOMPARE(s->heads().fone_width, int64_t(128));
        QCOMPARE(s->heads().regression, int64_t(64));
        // zero_pad: the [NUM] embedding is replaced (scale 0 there), the bits scaled by sqrt(512 / 128) = 2.
        QCOMPARE(b.in.scale[0][1].item<float>(), 0.0f);
        QCOMPARE(b.in.scale[0][2].item<float>(), 1.0f);
        // 12.5 = 0x4029000000000000: 0 10000000010 1001 0...; 1/12.5 = 0.08 = 0x3FB47AE147AE147B.
        const char* x = "0100000000101001";
        const char* r = "0011111110110100";
        for (int k = 0; k < 16; ++k) {
            QCOMPARE(b.in.fone[0][1][k].item<float>(), x[k] == '1' ? 2.0f : -2.0f);
            QCOMPARE(b.in.fone[0][1][64 + k].item<float>(), r[k] == '1' ? 2.0f : -2.0f);
        }
        QCOMPARE(b.in.fone[0][2][0].item<float>(), 0.0f);  // "+" has no bits
        c.bittokens_reciprocal = false;
        QCOMPARE(scheme_of(c)->heads().fone_width, int64_t(64));
    }

    // A model whose number head always says the bits of 15.5 (zero weights, bias ±5): the answer is 15.5,
    // the loss is the LM head's cross-entropy plus 10 x the mean binary cross-entropy worked out here, and
    // log-sMAPE is BitTokens' formula.
    void bittokens_head_reads_bits_and_trains_by_bce() {
        TrainConfig c;
        c.method = "bittokens";
        c.model.hidden = 128;
        auto s = scheme_of(c, spec(4, 1));
        torch::manual_seed(2);
        ModelConfig mc = fone_test::one_block_model(static_cast<int>(s->vocabulary().size()));
        mc.hidden = 128;
        mc.heads = 2;
        mc.head_dim = 64;
        FoneTransformer model(mc, s->heads());
        model->eval();
        const std::uint64_t word = 0x402F000000000000ull;  // 15.5 = 1.9375 · 2^3
        {
            torch::NoGradGuard no_grad;
            model->regression_head->weight.zero_();
            for (int k = 0; k < 64; ++k)
                model->regression_head->bias[k] = ((word >> (63 - k)) & 1) ? 5.0f : -5.0f;
        }
        Example right{{Decimal::parse("12.5"), Decimal::from_int(3)}, {"+"}, Decimal::parse("15.5")};
        Example wrong{{Decimal::parse("10"), Decimal::parse("2.5")}, {"+"}, Decimal::parse("12.5")};
        const Batch b = s->encode({right, wrong});
        const auto answers = s->answer(model, b);
        QCOMPARE(answers[0]->to_string(), std::string("15.5"));
        QCOMPARE(answers[1]->to_string(), std::string("15.5"));
        torch::NoGradGuard no_grad;
        // BCE with logit ±5: -log(sigmoid(5)) per agreeing bit, -log(sigmoid(-5)) per disagreeing one.
        // 15.5 (0x402F...) and 12.5 (0x4029...) differ in two bits (0x2F ^ 0x29 = 0b110).
        const double agree = std::log1p(std::exp(-5.0)), disagree = std::log1p(std::exp(5.0));
        const std::uint64_t diff = word ^ 0x4029000000000000ull;
        const int flipped = __builtin_popcountll(diff);
        const double bce = (64 * agree + (64 - flipped) * agree + flipped * disagree) / 128.0;
        const auto h = model->forward(b.in, true).squeeze(1);
        namespace F = torch::nn::functional;
        const double lm =
            F::cross_entropy(model->lm_logits(h), torch::full({2}, int64_t(3), torch::kInt64)).item<double>();
        QVERIFY(std::fabs(s->loss(model, b, false).item<double>() - (lm + 10 * bce)) < 1e-4);
        // log-sMAPE: exact for the first; |15.5 - 12.5| / (12.5 + 15.5) = 3/28 for the second.
        const auto m = s->evaluate(model, b, torch::kCPU);
        const double second = std::log10(3.0 / 28.0) / -15.0;
        QVERIFY(std::fabs(m["log_smape"].get<double>() - (1.0 + second) / 2) < 1e-9);
        QCOMPARE(m["exact_match"].get<double>(), 0.5);
    }

    void extra_operators_follow_the_scheme_tokens() {
        for (const char* method : {"fone", "digit", "bittokens", "numerologic", "subword"}) {
            TrainConfig c;
            c.method = method;
            c.model.hidden = 128;
            const auto plain = scheme_of(c);
            const auto with = scheme_of(c, spec(7, 3), {Op::divide, Op::max});
            // Earlier runs keep their vocabulary; the new words come after the method's own tokens.
            QCOMPARE(with->vocabulary().size(), plain->vocabulary().size() + 2);
            QVERIFY(std::equal(plain->vocabulary().begin(), plain->vocabulary().end(),
                               with->vocabulary().begin()));
            QCOMPARE(with->vocabulary()[plain->vocabulary().size()], std::string("/"));
            QCOMPARE(with->vocabulary().back(), std::string("max"));
            const Batch b = with->encode_prompt("12/4=");
            const auto tokens = b.prompt.defined() ? b.prompt[0] : b.in.tokens[0];
            QVERIFY(names(*with, tokens).contains("/"));
            try {
                plain->encode_prompt("12/4=");
                QFAIL("no error for '/'");
            } catch (const std::invalid_argument& e) {
                QVERIFY2(std::strstr(e.what(), "no token for '/'") != nullptr, e.what());
            }
        }
    }

    void number_token_schemes_one_token() {
        for (const char* m : {"fone", "xval", "fone-direct"}) {
            auto s = scheme(m);
            QCOMPARE(s->tokens_for(Decimal::parse("999.999")), int64_t(1));
            QCOMPARE(names(*s, s->encode_prompt("12.5+3=").in.tokens[0]), words("[BOS] [NUM] + [NUM] ="));
        }
    }

    void abacus_reverses_digits_and_counts_positions() {
        auto s = scheme("abacus");
        const Batch b = s->encode_prompt("12.5+3=");
        QCOMPARE(names(*s, b.prompt[0]), words("[BOS] 5 . 2 1 + 3 ="));
        const auto pos = b.in.positions[0];
        const std::vector<int64_t> expected = {0, 1, 2, 3, 4, 0, 1, 0};
        for (int64_t k = 0; k < 8; ++k)
            QCOMPARE(pos[k].item<int64_t>(), expected[static_cast<std::size_t>(k)]);
    }

    void fone_abacus_embeds_digits_by_their_fone() {
        auto s = scheme("fone+abacus");
        const Batch b = s->encode_prompt("3+10=");  // [BOS] 3 + 0 1 =
        QCOMPARE(names(*s, b.in.tokens[0]), words("[BOS] [NUM] + [NUM] [NUM] ="));
        // FoNE(3) with period 10: angle 108 degrees; FoNE(0) = (1, 0); FoNE(1): 36 degrees.
        QVERIFY(std::fabs(b.in.fone[0][1][0].item<float>() - (-0.30901699f)) < 1e-6);
        QVERIFY(std::fabs(b.in.fone[0][1][1].item<float>() - 0.95105652f) < 1e-6);
        QCOMPARE(b.in.fone[0][3][0].item<float>(), 1.0f);
        QCOMPARE(b.in.fone[0][3][1].item<float>(), 0.0f);
        QVERIFY(std::fabs(b.in.fone[0][4][0].item<float>() - 0.80901699f) < 1e-6);
        QCOMPARE(b.in.fone[0][2][0].item<float>(), 0.0f);  // "+" has no features
    }

    void xval_scales_the_number_embedding() {
        auto s = scheme("xval", spec(2, 0));
        const Batch b = s->encode_prompt("12+5=");
        const auto scale = b.in.scale[0];  // value / 10^m, 1 elsewhere
        QCOMPARE(scale[0].item<float>(), 1.0f);
        QCOMPARE(scale[1].item<float>(), 0.12f);
        QCOMPARE(scale[3].item<float>(), 0.05f);
    }

    void teacher_forced_targets_are_the_answer_tokens() {
        auto s = scheme("digit", spec(2, 0));
        Example e{{Decimal::from_int(1), Decimal::from_int(2)}, {"+"}, Decimal::from_int(3)};
        Example f{{Decimal::from_int(10), Decimal::from_int(20)}, {"+"}, Decimal::from_int(30)};
        const Batch b = s->encode({e, f});
        // Row 0, left-padded by three to the length of row 1 ([BOS] 1 0 + 2 0 = 3 0 [EOS]).
        QCOMPARE(names(*s, b.in.tokens[0]), words("[PAD] [PAD] [PAD] [BOS] 1 + 2 = 3 [EOS]"));
        const auto t = b.targets[0];
        for (int64_t k = 0; k < 10; ++k) {
            const int64_t want = k == 7   ? s->encode_prompt("3=").prompt[0][1].item<int64_t>()
                                 : k == 8 ? 2
                                          : -100;
            QCOMPARE(t[k].item<int64_t>(), want);  // "=" predicts 3, 3 predicts [EOS] (id 2)
        }
        QCOMPARE(names(*s, b.prompt[1]), words("[BOS] 1 0 + 2 0 ="));
        QCOMPARE(names(*s, b.prompt[0]), words("[PAD] [PAD] [BOS] 1 + 2 ="));
    }

    void number_token_loss_matches_a_hand_computation() {
        TrainConfig c;
        c.method = "ntl";
        c.ntl_lambda = 1.0;
        auto ntl = make_scheme(c, spec(2, 0));
        c.ntl_lambda = 0.0;
        auto plain = make_scheme(c, spec(2, 0));
        torch::manual_seed(3);
        FoneTransformer model(fone_test::one_block_model(static_cast<int>(ntl->vocabulary().size())),
                              ntl->heads());
        Example e{{Decimal::from_int(17), Decimal::from_int(25)}, {"+"}, Decimal::from_int(42)};
        const Batch b = ntl->encode({e});
        torch::NoGradGuard no_grad;
        const double with = ntl->loss(model, b, false).item<double>();
        const double without = plain->loss(model, b, false).item<double>();
        // W1 by hand: at each answer position whose target is a digit y, sum_j softmax_j |j - y| over the
        // ten digit tokens (ids 11..20).
        const auto logits = model->lm_logits(model->forward(b.in, false))[0].to(torch::kFloat64);
        double w1 = 0.0;
        int count = 0;
        for (int64_t k = 0; k < b.targets.size(1); ++k) {
            const int64_t y = b.targets[0][k].item<int64_t>();
            if (y < 11) continue;  // not a digit ([EOS], or no target)
            double z = 0.0, acc = 0.0;
            for (int j = 0; j < 10; ++j)
                z += std::exp(logits[k][11 + j].item<double>());
            for (int j = 0; j < 10; ++j)
                acc += std::exp(logits[k][11 + j].item<double>()) / z * std::abs(j - (y - 11));
            w1 += acc;
            ++count;
        }
        QCOMPARE(count, 2);  // "4" and "2"
        QVERIFY(std::fabs((with - without) - w1 / count) < 1e-4);
    }

    // Periods 5·10^k only (the paper's mod-5 ablation): a slot scores digit j by <pair, φ(j, 5)>, so j
    // and j + 5 tie: the head cannot tell 3 from 8. With {2, 5, 10} the three pairs' scores add up.
    void mixed_period_head_scores_by_hand() {
        ModelConfig c = fone_test::one_block_model(10);
        c.head_norm = "none";
        c.head_temperature = false;
        ModelHeads h;
        h.digit_slots = 1;
        h.digit_multipliers = {5};
        FoneTransformer m(c, h);
        auto hidden = torch::zeros({1, 32});
        const double a = 2 * M_PI * 3 / 5;
        hidden[0][0] = std::cos(a);
        hidden[0][1] = std::sin(a);
        const auto logits = m->digit_logits(hidden)[0][0];
        QVERIFY(std::fabs(logits[3].item<float>() - 1.0f) < 1e-6);
        QVERIFY(std::fabs(logits[8].item<float>() - 1.0f) < 1e-6);
        QVERIFY(std::fabs(logits[0].item<float>() - (-0.80901699f)) < 1e-6);  // cos 216°

        h.digit_multipliers = {2, 5, 10};
        FoneTransformer mixed(c, h);
        auto x = torch::zeros({1, 32});
        // Pairs in the order of the multipliers: (1, 0) for c = 2, (0, 1) for c = 5, (1, 0) for c = 10.
        x[0][0] = 1;
        x[0][3] = 1;
        x[0][4] = 1;
        const auto l = mixed->digit_logits(x)[0][0];
        for (int j = 0; j < 10; ++j) {
            const double want =
                std::cos(2 * M_PI * j / 2) + std::sin(2 * M_PI * j / 5) + std::cos(2 * M_PI * j / 10);
            QVERIFY(std::fabs(l[j].item<float>() - want) < 1e-5);
        }
    }

    // Generation feeds one token at a time through a key-value cache: the hidden state must be the one a
    // full forward pass over the whole sequence gives (padding included).
    void cached_generation_matches_full_forward() {
        torch::manual_seed(7);
        ModelHeads h;
        h.abacus_positions = 8;
        FoneTransformer m(fone_test::one_block_model(20), h);
        m->eval();
        torch::NoGradGuard no_grad;
        const auto tokens =
            torch::tensor({0, 0, 1, 5, 6, 7, 9, 1, 4, 5, 6, 7, 8, 9}, torch::kInt64).view({2, 7});
        const auto positions =
            torch::tensor({0, 0, 0, 1, 2, 3, 0, 0, 1, 0, 1, 2, 3, 4}, torch::kInt64).view({2, 7});
        const auto mask = tokens.ne(0);
        const auto full = m->forward(ModelInputs{tokens, mask, {}, {}, {}, positions}, true);
        KvCache cache;
        m->forward(
            ModelInputs{tokens.narrow(1, 0, 5), mask.narrow(1, 0, 5), {}, {}, {}, positions.narrow(1, 0, 5)},
            true, nullptr, &cache);
        m->forward(
            ModelInputs{tokens.narrow(1, 5, 1), mask.narrow(1, 0, 6), {}, {}, {}, positions.narrow(1, 5, 1)},
            true, nullptr, &cache);
        const auto step =
            m->forward(ModelInputs{tokens.narrow(1, 6, 1), mask, {}, {}, {}, positions.narrow(1, 6, 1)}, true,
                       nullptr, &cache);
        QCOMPARE(cache[0].k.size(2), int64_t(7));
        QVERIFY2(torch::allclose(full, step, 1e-5, 1e-5), "cached and full forward differ");
    }

    // The LM head runs only at positions with a target: the loss must equal cross-entropy over every
    // position's logits with the untargeted ones ignored (computed here the long way), for digit and
    // subword tokens and with the Number Token Loss on.
    void loss_at_answer_positions_equals_masked_full_loss() {
        namespace F = torch::nn::functional;
        Example e{{Decimal::parse("17.5"), Decimal::parse("325")}, {"+"}, Decimal::parse("342.5")};
        Example f{{Decimal::parse("1"), Decimal::parse("2")}, {"+"}, Decimal::parse("3")};
        for (const char* m : {"digit", "subword"}) {
            auto s = scheme(m, spec(4, 1));
            torch::manual_seed(11);
            FoneTransformer model(fone_test::one_block_model(static_cast<int>(s->vocabulary().size())),
                                  s->heads());
            const Batch b = s->encode({e, f});
            torch::NoGradGuard no_grad;
            const auto logits = model->lm_logits(model->forward(b.in, false));
            const double full =
                F::cross_entropy(logits.reshape({-1, logits.size(-1)}), b.targets.reshape({-1}),
                                 F::CrossEntropyFuncOptions().ignore_index(-100))
                    .item<double>();
            QVERIFY(std::fabs(s->loss(model, b, false).item<double>() - full) < 1e-5);
        }
    }

    // Attention over 12 positions: the full pass goes through batched matmuls, each cached one-query
    // step through the broadcast path; both must give the same hidden state.
    void one_query_steps_match_a_longer_full_forward() {
        torch::manual_seed(5);
        FoneTransformer m(fone_test::one_block_model(20), ModelHeads{});
        m->eval();
        torch::NoGradGuard no_grad;
        const auto tokens = torch::randint(1, 20, {3, 12}, torch::kInt64);
        tokens[0][0] = 0;  // one left-padded row
        const auto mask = tokens.ne(0);
        const auto full = m->forward(ModelInputs{tokens, mask, {}, {}, {}, {}}, true);
        KvCache cache;
        torch::Tensor step = m->forward(
            ModelInputs{tokens.narrow(1, 0, 9), mask.narrow(1, 0, 9), {}, {}, {}, {}}, true, nullptr, &cache);
        for (int64_t k = 9; k < 12; ++k)
            step = m->forward(ModelInputs{tokens.narrow(1, k, 1), mask.narrow(1, 0, k + 1), {}, {}, {}, {}},
                              true, nullptr, &cache);
        QVERIFY2(torch::allclose(full, step, 1e-5, 1e-5), "cached one-query steps and full forward differ");
    }

    void unknown_words_and_misfits_are_clear_errors() {
        auto s = scheme("digit", spec(2, 0));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, s->encode_prompt("12 plus 5 ="));
        QVERIFY_THROWS_EXCEPTION(NumberError, s->encode_prompt("123+5="));  // 3 digits, 2 slots
        TrainConfig c;
        c.method = "digit";
        FoneSpec b7 = spec(3, 0);
        b7.base = 7;
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, make_scheme(c, b7));
    }
};

QTEST_APPLESS_MAIN(TestSchemes)
#include "test_schemes.moc"
