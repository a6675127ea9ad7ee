// The language model on text with numbers (issue 4): the text scheme's batches and loss masking against
// values worked out by hand, generation ([NUM] + the digit head's value, formatted by write_number; the
// KV cache against the full forward pass), and `fone train --task word-problems`, `fone eval`,
// `fone generate` as a user runs them: run files, resume after kill -9, NaN, bad inputs.
#include <QElapsedTimer>
#include <QtTest>

#include <QJsonArray>

#include <cmath>
#include <csignal>
#include <map>
#include <random>

#include "fone/checkpoints/checkpoint.h"
#include "fone/numbers/float_bits.h"
#include "fone/numbers/number_parser.h"
#include "fone/store/run_store.h"
#include "fone/text/corpus.h"
#include "fone/text/tokenizer_check.h"
#include "fone_process.h"
#include "nn/token_choice.h"
#include "one_block_model.h"
#include "schemes/scheme_parts.h"
#include "schemes/text_scheme.h"

using namespace fone;
using namespace fone_test;
namespace tt = fone::text_token;

namespace {

// ---- in-process: a tiny model on a tiny corpus ---------------------------------------------------------

const std::vector<TextExample> kCorpus = {
    {"What does the pen cost?", "The pen costs $41.40."},
    {"How many pens are there?", "There are 12 pens."},
    {"What does the lamp cost?", "The lamp costs $7.05."},
};

TrainConfig text_config(const std::string& method) {
    TrainConfig c;
    c.text_task = "word-problems";
    c.method = method;
    c.model.hidden = 64;  // the tiny models' width (bittokens' input scale reads it)
    // bittokens: the 64 bits of x only, so that they fit the 64-wide models zero-padded.
    c.bittokens_reciprocal = false;
    return c;
}

struct Tiny {
    std::unique_ptr<TextLmScheme> scheme;
    FoneTransformer model{nullptr};
};

// A scheme for the corpus and a 1-layer model trained on it until it writes every answer.
Tiny train_tiny(const std::string& method, int steps) {
    TokenizerOptions to;
    to.vocab_size = 300;
    const TextTokenizer tok = TextTokenizer::train(kCorpus, text_tokens_of(method), to);
    const TrainConfig c = text_config(method);
    TextSplits splits;
    splits.train = kCorpus;
    Tiny t;
    t.scheme = std::make_unique<TextLmScheme>(tok, text_spec(c, splits), c);
    torch::manual_seed(7);
    t.model = FoneTransformer(fone_test::one_block_model(static_cast<int>(t.scheme->vocabulary().size()), 64),
                              t.scheme->heads());
    const Batch b = t.scheme->encode_text(kCorpus);
    torch::optim::AdamW opt(t.model->parameters(), torch::optim::AdamWOptions(3e-3));
    for (int s = 0; s < steps; ++s) {
        opt.zero_grad();
        t.scheme->loss(t.model, b, true).backward();
        opt.step();
    }
    t.model->eval();
    return t;
}

// Trained once per (method, steps) and shared by the tests: the models are deterministic.
Tiny& trained_tiny(const std::string& method, int steps) {
    static std::map<std::pair<std::string, int>, Tiny> cache;
    auto it = cache.find({method, steps});
    if (it == cache.end()) it = cache.emplace(std::make_pair(method, steps), train_tiny(method, steps)).first;
    return it->second;
}

// ---- through `fone` ----------------------------------------------------------------------------------

QStringList tiny_text(const QString& runs, const QString& name, const QStringList& extra = {}) {
    return QStringList{"train",
                       "--task",
                       "word-problems",
                       "--train-size",
                       "192",
                       "--test-size",
                       "8",
                       "--val-size",
                       "0",
                       "--epochs",
                       "2",
                       "--batch",
                       "32",
                       "--vocab-size",
                       "400",
                       "--threads",
                       "1",
                       "--eval-every",
                       "0",
                       "--checkpoint-every",
                       "2",
                       "--runs-dir",
                       runs,
                       "--name",
                       name} +
           fone_test::one_block_model_options() + extra;
}

}  // namespace

class TestTextTrain : public QObject {
    Q_OBJECT
  private:
    QTemporaryDir dir_;
    QString runs() const { return dir_.path() + "/runs"; }
    QString reference_digest_;

  private Q_SLOTS:
    // ---- settings
    // ----------------------------------------------------------------------------------------------

    void text_settings_and_their_json() {
        // fone_base lists the text tasks itself; they are the generators' names and "text".
        std::vector<std::string> names = text_task_names();
        names.insert(names.begin(), "text");
        QCOMPARE(text_task_names_for_training(), names);
        const TrainConfig c = resolve_train_config({{{"task", "word-problems"}, {"method", "digit"}}});
        QCOMPARE(QString::fromStdString(c.text_task), QString("word-problems"));
        QVERIFY(c.is_text());
        // Word problems: one pass over 240,000 (3,750 steps of 64); fewer are passed over again.
        QCOMPARE(c.train_size, std::size_t(240000));
        QCOMPARE(c.epochs, 1);
        QCOMPARE(c.eval_every, 937);
        const TrainConfig few = resolve_train_config({{{"task", "word-problems"}, {"train_size", 4000}}});
        QCOMPARE(few.epochs, 60);
        QCOMPARE(few.eval_every, 937);
        const TrainConfig units = resolve_train_config({{{"task", "units"}}});
        QCOMPARE(units.train_size, std::size_t(20000));  // the other text tasks
        QCOMPARE(units.epochs, 4);
        QCOMPARE(c.test_size, std::size_t(200));
        QCOMPARE(c.batch, std::size_t(64));
        QCOMPARE(c.drills, 0.75);  // word problems train with drills and a heavier digit loss
        QCOMPARE(c.digit_loss_weight, 10.0);
        QCOMPARE(resolve_train_config({{{"task", "units"}}}).drills, 0.0);  // the other tasks: neither
        QCOMPARE(resolve_train_config({{{"task", "units"}}}).digit_loss_weight, 1.0);
        QCOMPARE(resolve_train_config({{{"task", "word-problems"}, {"drills", 0}}}).drills, 0.0);
        QCOMPARE(c.to_json()["task"].get<std::string>(), std::string("word-problems"));
        const TrainConfig back = TrainConfig::from_json(c.to_json());
        QCOMPARE(back.to_json(), c.to_json());
        // A run made before drills existed reads as drills 0: its data is drawn again as it was.
        nlohmann::json old = c.to_json();
        old.erase("drills");
        QCOMPARE(TrainConfig::from_json(old).drills, 0.0);
        // Arithmetic configs keep their task and gain only the text keys.
        const TrainConfig arith = resolve_train_config({{{"task", "mul3"}}});
        QVERIFY(!arith.is_text());
        QCOMPARE(arith.to_json()["task"].get<std::string>(), std::string("mul3"));
        // What a text run cannot take, named.
        const auto problems = [](const nlohmann::json& j) {
            try {
                resolve_train_config({j});
            } catch (const std::invalid_argument& e) {
                return QString(e.what());
            }
            return QString();
        };
        QVERIFY(problems({{"task", "tables"}, {"method", "abacus"}})
                    .contains("fone, digit, subword, xval, bittokens or fone-adapter"));
        QVERIFY(problems({{"task", "text"}}).contains("--data"));
        QVERIFY(problems({{"task", "units"}, {"data", "x.jsonl"}}).contains("--task text"));
        QVERIFY(problems({{"task", "units"}, {"text_loss", "prompt"}}).contains("text_loss"));
        QVERIFY(problems({{"task", "units"}, {"digit_loss_weight", -1}}).contains("digit_loss_weight"));
        QVERIFY(problems({{"task", "units"}, {"drills", 0.25}}).contains("drills"));
        // No training problems: that alone is the error, not also the epochs it would make.
        QVERIFY(problems({{"task", "word-problems"}, {"train_size", 0}}).contains("train_size"));
        QVERIFY(!problems({{"task", "word-problems"}, {"train_size", 0}}).contains("epochs"));
        QVERIFY(problems({{"task", "word-problems"}, {"drills", 0.95}}).contains("drills"));
        QVERIFY(problems({{"task", "word-problems"}, {"drills", -0.5}}).contains("drills"));
        QVERIFY(problems({{"task", "words"}}).contains("text, word-problems, units, tables"));
    }

    // ---- batches, loss masking, digit slots --------------------------------------------------------------

    void digit_slots_come_from_the_corpus() {
        TextSplits s;
        s.train = {{"Pay $417.24 now.", "Done."}};
        s.test = {{"", "It was -3.5 degrees and 1000 people came."}};
        FoneSpec spec = text_spec(text_config("fone"), s);
        QCOMPARE(spec.int_digits, 4);   // 1000
        QCOMPARE(spec.frac_digits, 2);  // 417.24
        QVERIFY(spec.sign_feature);
        TrainConfig c = text_config("fone");
        c.int_digits = 6;
        spec = text_spec(c, s);
        QCOMPARE(spec.int_digits, 6);
        QCOMPARE(spec.frac_digits, 2);
    }

    void batch_targets_numbers_and_answer_mask() {
        const TextTokenizer tok = TextTokenizer::train(kCorpus, TextScheme::fone, {300, 0.9995});
        const TextExample ex{"Ana pays $3.45.", "She pays $6.9."};
        const EncodedText e = tok.encode(ex);
        TrainConfig c = text_config("fone");
        c.int_digits = 1;
        c.frac_digits = 2;
        const TextLmScheme all(tok, text_spec(c), c);
        const Batch b = all.encode_text({ex, {"", "Short 7."}});
        const int64_t len = static_cast<int64_t>(e.ids.size());
        QCOMPARE(b.n, int64_t(2));
        QCOMPARE(b.in.tokens.size(1), len);  // right-padded to the longest
        QVERIFY(!b.in.key_mask.defined());   // causal attention never sees the padding after a row
        std::vector<int64_t> num_at;
        for (int64_t t = 0; t < len; ++t) {
            QCOMPARE(b.in.tokens[0][t].item<int64_t>(), int64_t(e.ids[static_cast<std::size_t>(t)]));
            const int64_t want = t + 1 < len ? e.ids[static_cast<std::size_t>(t + 1)] : -100;
            QCOMPARE(b.targets[0][t].item<int64_t>(), want);
            QCOMPARE(b.number_start[0][t].item<bool>(), want == tt::kNum);
            if (e.ids[static_cast<std::size_t>(t)] == tt::kNum) num_at.push_back(t);
        }
        QCOMPARE(num_at.size(), std::size_t(2));
        // The labels of 3.45 sit where [NUM] is the target: digits least significant first, 5 4 3.
        const auto d = b.digits[0][num_at[0] - 1];
        QCOMPARE(d[0].item<int64_t>(), int64_t(5));
        QCOMPARE(d[1].item<int64_t>(), int64_t(4));
        QCOMPARE(d[2].item<int64_t>(), int64_t(3));
        // 6.9: 0 9 6 (the two fractional slots are always there).
        const auto d2 = b.digits[0][num_at[1] - 1];
        QCOMPARE(d2[0].item<int64_t>(), int64_t(0));
        QCOMPARE(d2[1].item<int64_t>(), int64_t(9));
        QCOMPARE(d2[2].item<int64_t>(), int64_t(6));
        // FoNE of 3.45 at its [NUM] position, nothing elsewhere.
        const auto want = fone::encode(Decimal::parse("3.45"), text_spec(c));
        for (std::size_t k = 0; k < want.size(); ++k)
            QVERIFY(std::abs(b.in.fone[0][num_at[0]][static_cast<int64_t>(k)].item<float>() - want[k]) <
                    1e-6);
        QCOMPARE(b.in.fone[0][0].abs().sum().item<float>(), 0.0f);
        // The second row: padding has no target.
        const int64_t len2 = static_cast<int64_t>(tok.encode(TextExample{"", "Short 7."}).ids.size());
        for (int64_t t = len2 - 1; t < len; ++t)
            QCOMPARE(b.targets[1][t].item<int64_t>(), int64_t(-100));

        // text_loss "answer": no target before the answer's first token.
        c.text_loss = "answer";
        const TextLmScheme answer_only(tok, text_spec(c), c);
        const Batch a = answer_only.encode_text({ex});
        const int64_t ans = std::find(e.ids.begin(), e.ids.end(), tt::kAns) - e.ids.begin();
        for (int64_t t = 0; t < len; ++t)
            QCOMPARE(a.targets[0][t].item<int64_t>(),
                     t < ans ? int64_t(-100) : b.targets[0][t].item<int64_t>());
    }

    // Issue 30: documents packed into windows of --context tokens. Read back, the windows are the
    // documents' token stream (each window starts at the last token of the one before), every row is at
    // most the context, a cut never falls inside a number, and every stream token but the first is a
    // target once, with the same targets as the unpacked rows.
    void documents_pack_into_windows() {
        std::vector<TextExample> docs;
        for (int i = 0; i < 12; ++i)
            docs.push_back({"", "Area: " + std::to_string(1000003 * (i + 1)) + " sq km; growth -" +
                                    std::to_string(i) + ".25% in 2024. Coordinates: 20 00 N, 77 00 E."});
        for (const char* method : {"digit", "fone"}) {
            const TextTokenizer tok =
                TextTokenizer::train(docs, text_scheme_from_name(method), {300, 0.9995});
            TrainConfig c = text_config(method);
            c.text_task = "text";
            c.text_loss = "all";
            c.text_context = 64;
            TextSplits s;
            s.train = docs;
            const TextLmScheme scheme(tok, text_spec(c, s), c);
            QVERIFY(scheme.packs(docs));
            QVERIFY(!scheme.packs({{"a prompt", "an answer"}}));
            const Batch b = scheme.encode_text(docs);
            QCOMPARE(b.answer_texts.size(), docs.size());  // one entry per document, not per window
            EncodedText stream;
            for (const TextExample& d : docs) {
                const EncodedText e = tok.encode(d);
                const int offset = static_cast<int>(stream.ids.size());
                stream.ids.insert(stream.ids.end(), e.ids.begin(), e.ids.end());
                for (const TokenSpan& sp : e.number_spans)
                    stream.number_spans.push_back({sp.begin + offset, sp.end + offset});
            }
            QVERIFY(b.in.tokens.size(1) <= 64);
            std::vector<int64_t> back;
            int64_t targets = 0;
            for (int64_t i = 0; i < b.n; ++i) {
                int64_t len = 0;
                while (len < b.in.tokens.size(1) && b.in.tokens[i][len].item<int64_t>() != tt::kPad)
                    ++len;
                for (int64_t t = i == 0 ? 0 : 1; t < len; ++t)
                    back.push_back(b.in.tokens[i][t].item<int64_t>());
                for (int64_t t = 0; t + 1 < len; ++t) {
                    QCOMPARE(b.targets[i][t].item<int64_t>(), b.in.tokens[i][t + 1].item<int64_t>());
                    ++targets;
                }
                const int64_t cut = static_cast<int64_t>(back.size());  // stream position after this row
                for (const TokenSpan& sp : stream.number_spans)
                    QVERIFY2(!(sp.begin < cut && cut < sp.end), method);
            }
            QCOMPARE(back, std::vector<int64_t>(stream.ids.begin(), stream.ids.end()));
            QCOMPARE(targets, static_cast<int64_t>(stream.ids.size()) - 1);
            QVERIFY(b.n > 3);  // the documents did not fit one window
            if (std::string(method) == "fone") {
                // Every number's [NUM] once (a window's first token repeats the last of the one before), and
                // its labels where [NUM] is the target.
                const int64_t nums =
                    b.in.num_mask.sum().item<int64_t>() - b.in.num_mask.select(1, 0).sum().item<int64_t>();
                QCOMPARE(nums, static_cast<int64_t>(stream.number_spans.size()));
                QCOMPARE(b.number_start.sum().item<int64_t>(), b.targets.eq(tt::kNum).sum().item<int64_t>());
            }
        }
    }

    // A number longer than a text run takes (kMaxTextNumberDigits) is text to every method (issue 41): the
    // slots fit the other numbers; with strict_numbers it is the one-line error of before.
    void a_400_digit_number_is_text_or_with_strict_numbers_an_error() {
        TextSplits s;
        s.train = {{"", "Debt: $" + std::string(400, '9') + " (2024 est.)"}};
        for (const char* method : {"fone", "digit"}) {
            const FoneSpec spec = text_spec(text_config(method), s);
            QCOMPARE(spec.int_digits, 4);  // 2024
            QCOMPARE(spec.frac_digits, 0);
            TrainConfig strict = text_config(method);
            strict.strict_numbers = true;
            try {
                text_spec(strict, s);
                QFAIL("no error");
            } catch (const NumberError& e) {
                const std::string m = e.what();
                QVERIFY2(m.find('\n') == std::string::npos && m.find("400 integer") != std::string::npos &&
                             m.find("at most 40") != std::string::npos,
                         m.c_str());
            }
        }
    }

    // The teacher-forced number measures: a model trained until it writes every answer gives each
    // number's value exactly (every digit, within 1%, log-sMAPE 1); an untrained one does not.
    void teacher_forced_number_measures() {
        for (const char* method : {"fone", "digit"}) {
            for (const int steps : {0, 300}) {
                Tiny& t = trained_tiny(method, steps);
                const Batch b = t.scheme->encode_text(kCorpus);
                const auto ev = t.scheme->evaluate(t.model, b, torch::kCPU);
                const double digits = ev["next_number_digit_accuracy"],
                             within = ev["next_number_within_1_percent"], smape = ev["next_number_log_smape"],
                             exact = ev["next_number_exact_match"];
                if (steps == 300) {
                    QCOMPARE(exact, 1.0);
                    QCOMPARE(digits, 1.0);
                    QCOMPARE(within, 1.0);
                    QCOMPARE(smape, 1.0);
                } else {
                    QVERIFY2(smape < 1.0 && within < 1.0, method);
                }
                // Every row holds a number: the Table 5 perplexity is the perplexity of all rows.
                QCOMPARE(ev["text_perplexity_numbers"].get<double>(), ev["text_perplexity"].get<double>());
            }
        }
    }

    void text_perplexity_leaves_number_tokens_out() {
        // Hand-made logits: zeros but log(k) at the target, so p(target) = k / (V - 1 + k).
        const int pieces = 10, vocab = 22;  // a digit-scheme layout: ids >= 10 write numbers
        auto logits = torch::zeros({2, 4, vocab});
        auto targets = torch::full({2, 4}, int64_t(-100), torch::kInt64);
        const auto set = [&](int b, int t, int64_t target, double k) {
            targets[b][t] = target;
            logits[b][t][target] = std::log(k);
        };
        set(0, 0, 3, 2.0);         // text
        set(0, 1, 12, 9.0);        // a digit token
        set(0, 2, tt::kNum, 1.0);  // [NUM]
        set(1, 0, 7, 5.0);         // text
        logits[1][1][4] = 100.0;   // no target here: whatever the logits, nothing counts
        const TextTokenSums s = text_token_sums(logits, targets, pieces);
        const double text = -std::log(2.0 / 23.0) - std::log(5.0 / 26.0);
        const double numbers = -std::log(9.0 / 30.0) - std::log(1.0 / 22.0);
        QCOMPARE(s.text_tokens, int64_t(2));
        QCOMPARE(s.all_tokens, int64_t(4));
        QVERIFY(std::abs(s.text_nll - text) < 1e-5);
        QVERIFY(std::abs(s.all_nll - (text + numbers)) < 1e-5);
        QVERIFY(std::abs(std::exp(s.text_nll / s.text_tokens) - std::sqrt(23.0 / 2 * 26.0 / 5)) <
                1e-4);  // 7.733
    }

    void fone_loss_adds_the_weighted_digit_loss() {
        Tiny& t = trained_tiny("fone", 0);  // untrained
        const Batch b = t.scheme->encode_text(kCorpus);
        const auto h = t.model->forward(b.in, false);
        const auto lm = torch::nn::functional::cross_entropy(
            t.model->lm_logits(h).reshape({-1, static_cast<int64_t>(t.scheme->vocabulary().size())}),
            b.targets.reshape({-1}), torch::nn::functional::CrossEntropyFuncOptions().ignore_index(-100));
        // The digit loss by hand at the two [NUM] targets of each row, with fourier.h's digit_loss.
        const FoneSpec spec = t.scheme->digit_spec();
        const auto at = b.targets.eq(tt::kNum).nonzero();
        QCOMPARE(at.size(0), int64_t(3));  // one number in each answer, none in the prompts
        double digit = 0;
        for (int64_t k = 0; k < at.size(0); ++k) {
            const int64_t i = at[k][0].item<int64_t>(), p = at[k][1].item<int64_t>();
            const auto x = t.model->head_norm(h[i][p]).contiguous();
            const std::vector<float> hv(x.data_ptr<float>(), x.data_ptr<float>() + x.numel());
            const Decimal value = parse_numbers(kCorpus[static_cast<std::size_t>(i)].answer).numbers[0].value;
            digit += fone::digit_loss(hv, value, spec, t.model->temperature());
        }
        digit /= static_cast<double>(at.size(0));
        const double total = t.scheme->loss(t.model, b, true).item<double>();
        QVERIFY2(std::abs(total - (lm.item<double>() + digit)) < 1e-4,
                 qPrintable(QString("%1 vs %2 + %3").arg(total).arg(lm.item<double>()).arg(digit)));
        // digit: the next-token cross-entropy alone.
        Tiny& d = trained_tiny("digit", 0);
        const Batch db = d.scheme->encode_text(kCorpus);
        const auto dl = d.model->lm_logits(d.model->forward(db.in, false));
        const double want = torch::nn::functional::cross_entropy(
                                dl.reshape({-1, dl.size(-1)}), db.targets.reshape({-1}),
                                torch::nn::functional::CrossEntropyFuncOptions().ignore_index(-100))
                                .item<double>();
        QVERIFY(std::abs(d.scheme->loss(d.model, db, true).item<double>() - want) < 1e-5);
    }

    // xval and bittokens: the next-token cross-entropy + their number loss at the [NUM] targets, by hand:
    // xval the squared error of the regression against value / 10^m (m = 2 here: 41.40, 12, 7.05), bittokens
    // 10 x the mean binary cross-entropy of the 64 logits against the value's float64 bits (std::bit_cast).
    void xval_and_bittokens_losses_by_hand() {
        for (const char* method : {"xval", "bittokens"}) {
            Tiny& t = trained_tiny(method, 0);
            const Batch b = t.scheme->encode_text(kCorpus);
            const auto h = t.model->forward(b.in, false);
            const auto lm = torch::nn::functional::cross_entropy(
                t.model->lm_logits(h).reshape({-1, static_cast<int64_t>(t.scheme->vocabulary().size())}),
                b.targets.reshape({-1}), torch::nn::functional::CrossEntropyFuncOptions().ignore_index(-100));
            const auto at = b.targets.eq(tt::kNum).nonzero();
            QCOMPARE(at.size(0), int64_t(3));
            QCOMPARE(t.scheme->digit_spec().int_digits, 2);
            double number = 0;
            for (int64_t k = 0; k < at.size(0); ++k) {
                const int64_t i = at[k][0].item<int64_t>(), p = at[k][1].item<int64_t>();
                const double value =
                    parse_numbers(kCorpus[static_cast<std::size_t>(i)].answer).numbers[0].value.to_double();
                const auto out = t.model->regress(h[i][p]).to(torch::kFloat64);
                if (std::string(method) == "xval") {
                    const double e = out[0].item<double>() - value / 100.0;
                    number += e * e;
                    continue;
                }
                const auto word = std::bit_cast<std::uint64_t>(value);
                double bce = 0;
                for (int j = 0; j < 64; ++j) {
                    const double z = out[j].item<double>(), y = double((word >> (63 - j)) & 1u);
                    bce += std::max(z, 0.0) - z * y + std::log1p(std::exp(-std::abs(z)));
                }
                number += 10.0 * bce / 64.0;
            }
            number /= static_cast<double>(at.size(0));
            const double total = t.scheme->loss(t.model, b, true).item<double>();
            QVERIFY2(
                std::abs(total - (lm.item<double>() + number)) < 1e-4,
                qPrintable(
                    QString("%1: %2 vs %3 + %4").arg(method).arg(total).arg(lm.item<double>()).arg(number)));
        }
    }

    // The inputs at [NUM] by hand: xval scales [NUM]'s embedding by value / 10^m and leaves every other
    // token's at 1; bittokens replaces it (scale 0) by the value's bits as ±1 times sqrt(64 / 64) = 1:
    // 12 = 1.5 x 2^3 is sign 0, exponent 1023 + 3 = 10000000010, significand 1000...0.
    void xval_and_bittokens_inputs_by_hand() {
        const Batch xb = trained_tiny("xval", 0).scheme->encode_text(kCorpus);
        const Batch bb = trained_tiny("bittokens", 0).scheme->encode_text(kCorpus);
        const auto nums = xb.in.tokens.eq(tt::kNum);
        QVERIFY(!xb.in.fone.defined());
        QVERIFY(xb.in.scale.masked_select(nums.logical_not()).eq(1.0f).all().item<bool>());
        QVERIFY(torch::allclose(xb.in.scale.masked_select(nums), torch::tensor({0.414f, 0.12f, 0.0705f}), 0,
                                1e-7));
        QVERIFY(torch::equal(bb.in.tokens, xb.in.tokens));
        QVERIFY(bb.in.scale.masked_select(nums.logical_not()).eq(1.0f).all().item<bool>());
        QVERIFY(bb.in.scale.masked_select(nums).eq(0.0f).all().item<bool>());
        QCOMPARE(bb.in.fone.size(2), int64_t(64));
        const auto twelve = bb.in.fone.index({nums})[1];  // the second answer's number
        std::vector<float> want(64, -1.0f);
        for (const int j : {1, 10, 12})  // the exponent's two ones, the significand's first bit
            want[static_cast<std::size_t>(j)] = 1.0f;
        QVERIFY(torch::equal(twelve, torch::tensor(want)));
        QVERIFY(bb.in.fone.index({nums.logical_not()}).eq(0.0f).all().item<bool>());
        // The labels sit at the position before each number: its value (float64) and digits.
        const auto values = bb.answers.masked_select(bb.number_start);
        QVERIFY(torch::equal(values, torch::tensor({41.4, 12.0, 7.05}, torch::kFloat64)));
        QVERIFY(torch::equal(bit_labels(values)[1], (torch::tensor(want) + 1) / 2));
    }

    // A number round-trips through each encoding: bittokens' 64 bits read back (as logits of their
    // signs) as the value to 14 significant digits; xval's value / 10^m multiplied back and rounded to the
    // slots: exactly in float64, to float32's 7 significant digits from the input as the model sees it.
    void numbers_round_trip_through_xval_and_bittokens() {
        FoneSpec factbook;  // the Factbook's slots: 11 integer, 4 fractional digits
        factbook.int_digits = 11;
        factbook.frac_digits = 4;
        QCOMPARE(xval_scale(factbook), 1e11);
        for (const char* text :
             {"41.4", "12", "7.05", "-0.25", "3287263", "34050000000", "0.0475", "-1.1", "0"}) {
            const Decimal x = Decimal::parse(text);
            float f[64];
            bit_features_into(x.to_double(), false, f);
            const std::vector<double> back = doubles_of_bit_logits(torch::from_blob(f, {1, 64}).clone());
            QCOMPARE(decimal_of_double(back[0]), std::optional<Decimal>(x));
            QCOMPARE(xval_rounded(x.to_double() / 1e11 * 1e11, factbook), std::optional<Decimal>(x));
            const double seen = static_cast<float>(x.to_double() / 1e11) * 1e11;
            QVERIFY2(std::abs(seen - x.to_double()) <= 1e-7 * std::abs(x.to_double()), text);
        }
        QCOMPARE(xval_rounded(1e12, factbook), std::optional<Decimal>());  // 10 x the slots: unreadable
    }

    // The 5-country sample as one-[NUM] runs see it: xval and bittokens the same windows of the same tokens
    // as fone (only the inputs at [NUM] differ), digit the same text pieces around its digit tokens; each
    // one-[NUM] method trains ten steps (the loss falls; xval's wobbles at the first steps) and is
    // evaluated with the number measures.
    void xval_and_bittokens_on_the_factbook_sample() {
        const TextSplits s =
            factbook_splits(read_factbook(std::string(FONE_SOURCE_DIR) + "/tests/data/factbook-sample"));
        std::vector<TextExample> docs = s.train;
        docs.insert(docs.end(), s.test.begin(), s.test.end());
        docs.insert(docs.end(), s.val.begin(), s.val.end());
        const TextTokenizer tok = TextTokenizer::train(docs, TextScheme::fone, {400, 0.9995});
        std::map<std::string, Batch> batches;
        for (const char* method : {"fone", "xval", "bittokens", "digit"}) {
            TrainConfig c = text_config(method);
            c.text_task = "text";
            c.text_loss = "all";
            c.text_context = 128;
            TextSplits all;
            all.train = docs;
            const TextLmScheme scheme(tok.with_scheme(text_tokens_of(method)), text_spec(c, all), c);
            batches[method] = scheme.encode_text(docs);
            if (std::string(method) == "digit") continue;  // (its text pieces: below)
            QVERIFY(torch::equal(batches[method].in.tokens, batches["fone"].in.tokens));
            QVERIFY(torch::equal(batches[method].targets, batches["fone"].targets));
            QVERIFY(torch::equal(batches[method].number_start, batches["fone"].number_start));
            QVERIFY(torch::equal(batches[method].digits, batches["fone"].digits));
            torch::manual_seed(3);
            FoneTransformer model(
                fone_test::one_block_model(static_cast<int>(scheme.vocabulary().size()), 64, 256),
                scheme.heads());
            const Batch b = select_rows(batches[method], torch::arange(0, 8, torch::kInt64));
            torch::optim::AdamW opt(model->parameters(), torch::optim::AdamWOptions(1e-3));
            double first = 0;
            for (int step = 0; step < 10; ++step) {  // ten steps on the same windows: the loss falls
                opt.zero_grad();
                const auto loss = scheme.loss(model, b, true);
                if (step == 0) first = loss.item<double>();
                loss.backward();
                opt.step();
            }
            const double after = scheme.loss(model, b, true).item<double>();
            QVERIFY2(std::isfinite(after) && after < first,
                     qPrintable(QString("%1: %2 -> %3").arg(method).arg(first).arg(after)));
            const auto ev = scheme.evaluate(model, b, torch::kCPU);
            QVERIFY(ev["text_perplexity"].get<double>() > 1.0 && ev["text_tokens"].get<int64_t>() > 500);
            for (const char* key : {"next_number_digit_accuracy", "next_number_within_1_percent",
                                    "next_number_log_smape", "next_number_value_right"})
                QVERIFY2(ev[key].get<double>() >= 0.0 && ev[key].get<double>() <= 1.0, key);
            const auto targets = b.targets;  // the same as fone's: its text targets are the ones counted
            QCOMPARE(ev["text_tokens"].get<int64_t>(),
                     targets.ne(-100).logical_and(targets.ne(tt::kNum)).sum().item<int64_t>());
        }
        // digit's text pieces, number tokens left out, are fone's.
        const auto text_of = [&](TextScheme scheme) {
            std::vector<int> ids;
            const TextTokenizer t = tok.with_scheme(scheme);
            for (const TextExample& d : docs)
                for (const int id : t.encode(d).ids)
                    if (!t.is_number_token(id)) ids.push_back(id);
            return ids;
        };
        QCOMPARE(text_of(TextScheme::digit), text_of(TextScheme::fone));
    }

    // ---- generation --------------------------------------------------------------------------------------

    void generation_writes_num_with_the_digit_heads_value() {
        Tiny& t = trained_tiny("fone", 300);
        const auto prompt = t.scheme->prompt_tokens("What does the pen cost?", true);
        std::vector<GeneratedToken> seen;
        const auto g =
            t.scheme->generate(t.model, {prompt}, GenerateOptions{},
                               [&](std::size_t, const GeneratedToken& tok) { seen.push_back(tok); })[0];
        QVERIFY(g.ended);
        QCOMPARE(seen.size(), g.ids.size());
        QVERIFY(std::find(g.ids.begin(), g.ids.end(), tt::kNum) != g.ids.end());
        QCOMPARE(g.values.size(), std::size_t(1));
        QCOMPARE(g.values[0], Decimal::parse("41.4"));
        // The value, formatted by write_number: two decimals after a currency sign.
        QCOMPARE(QString::fromStdString(t.scheme->generated_text(g)), QString("The pen costs $41.40."));
        for (const auto& s : seen)
            QCOMPARE(s.value.has_value(), s.id == tt::kNum);
    }

    // A stray byte piece would print U+FFFD ("One\uFFFD with263.08"): made the most probable first token
    // here (its output row = 10 x that of the token the model writes first), generation must still
    // write whole characters only, and the same answer as before.
    void generation_writes_whole_characters_only() {
        Tiny t = train_tiny("fone", 300);
        const auto prompt = t.scheme->prompt_tokens("What does the pen cost?", true);
        const auto before = t.scheme->generate(t.model, {prompt}, GenerateOptions{})[0];
        const int stray = 6 + 0x96;  // a continuation byte: never the start of a character
        {
            torch::NoGradGuard no_grad;
            t.model->embed->weight[stray].copy_(t.model->embed->weight[before.ids[0]] * 10);
        }
        const auto after = t.scheme->generate(t.model, {prompt}, GenerateOptions{})[0];
        const std::string text = t.scheme->generated_text(after);
        QVERIFY(std::find(after.ids.begin(), after.ids.end(), stray) == after.ids.end());
        QVERIFY(text.find("\xEF\xBF\xBD") == std::string::npos);
        QCOMPARE(QString::fromStdString(text), QString::fromStdString(t.scheme->generated_text(before)));
        // Sampling at a high temperature: no broken character, and no [NUM] right after a [NUM].
        for (std::uint64_t seed = 1; seed <= 20; ++seed) {
            const auto g = t.scheme->generate(t.model, {prompt}, GenerateOptions{8.0, 0, 30, seed, true})[0];
            QVERIFY(t.scheme->generated_text(g).find("\xEF\xBF\xBD") == std::string::npos);
            for (std::size_t k = 1; k < g.ids.size(); ++k)
                QVERIFY(!(g.ids[k] == tt::kNum && g.ids[k - 1] == tt::kNum));
        }
    }

    void kv_cache_equals_the_full_forward_pass() {
        for (const char* method : {"fone", "digit"}) {
            Tiny& t = trained_tiny(method, 300);
            // Two prompts of different lengths: left padding and its key mask too.
            const std::vector<EncodedText> prompts = {
                t.scheme->prompt_tokens("What does the lamp cost?", true),
                t.scheme->prompt_tokens("How many pens are there?", true)};
            GenerateOptions cached, full;
            full.use_cache = false;
            const auto a = t.scheme->generate(t.model, prompts, cached);
            const auto b = t.scheme->generate(t.model, prompts, full);
            for (std::size_t r = 0; r < prompts.size(); ++r) {
                QCOMPARE(a[r].ids, b[r].ids);
                QCOMPARE(a[r].values, b[r].values);
                for (std::size_t k = 0; k < a[r].probabilities.size(); ++k)
                    QVERIFY(std::abs(a[r].probabilities[k] - b[r].probabilities[k]) < 1e-4);
            }
            QCOMPARE(QString::fromStdString(t.scheme->generated_text(a[0])),
                     QString("The lamp costs $7.05."));
            QCOMPARE(QString::fromStdString(t.scheme->generated_text(a[1])), QString("There are 12 pens."));
        }
    }

    void sampling_is_seeded() {
        Tiny& t = trained_tiny("subword", 30);  // half trained: sampling has choices
        const auto prompt = t.scheme->prompt_tokens("What does the pen cost?", true);
        GenerateOptions o;
        o.temperature = 1.5;
        o.top_k = 5;
        o.max_tokens = 12;
        o.seed = 3;
        const auto a = t.scheme->generate(t.model, {prompt}, o)[0];
        const auto b = t.scheme->generate(t.model, {prompt}, o)[0];
        QCOMPARE(a.ids, b.ids);
        // top-k: each token is among the 5 most probable at its step.
        o.top_k = 1;
        o.seed = 9;
        const auto k1 = t.scheme->generate(t.model, {prompt}, o)[0];
        const auto greedy = t.scheme->generate(t.model, {prompt}, GenerateOptions{0.0, 0, 12, 0, true})[0];
        QCOMPARE(k1.ids, greedy.ids);  // top-1 sampling is greedy
    }

    // A prompt number beyond the run's slots is text (issue 41), as it is in the corpus: no [NUM] for it,
    // and the model continues the prompt.
    void prompt_number_beyond_the_slots_is_text() {
        Tiny& t = trained_tiny("fone", 0);  // m = 2, n = 2 from the corpus
        const auto prompt = t.scheme->prompt_tokens("What does 123456 cost?", true);
        QVERIFY(prompt.numbers.empty());
        QCOMPARE(t.scheme->prompt_tokens("What does 12 cost?", true).numbers.size(), std::size_t(1));
        const auto g = t.scheme->generate(t.model, {prompt}, GenerateOptions{})[0];
        QVERIFY(!g.ids.empty());
    }

    // ---- through fone
    // --------------------------------------------------------------------------------------

    void train_word_problems_writes_the_run_files() {
        const auto r = run_fone(tiny_text(runs(), "wp"));
        QVERIFY2(r.code == 0, r.err.constData());
        const auto ev = json_lines(r.out);
        QCOMPARE(ev.first()["event"].toString(), QString("start"));
        QCOMPARE(ev.first()["text"].toObject()["tokenizer"].toString(), QString("tokenizer.model"));
        QCOMPARE(ev.last()["status"].toString(), QString("finished"));
        int evals = 0, progress = 0;
        for (const auto& e : ev) {
            progress += e["event"].toString() == "progress";
            if (e["event"].toString() != "eval") continue;
            ++evals;
            for (const char* key : {"exact_match", "number_accuracy", "answer_exact_match", "digit_accuracy",
                                    "text_perplexity", "next_number_exact_match", "tokens_per_example",
                                    "tokens_per_number", "text_tokens", "loss", "eval_seconds", "n"})
                QVERIFY2(e.contains(key), key);
            QCOMPARE(e["tokens_per_number"].toDouble(), 1.0);  // fone: one token per number
            QCOMPARE(e["n"].toInt(), 8);
            QVERIFY(e["text_perplexity"].toDouble() > 1.0);
        }
        QCOMPARE(evals, 2);
        QVERIFY(progress >= 1);
        reference_digest_ = ev.last()["weights_digest"].toString();
        const QString run_dir = runs() + "/wp";
        for (const char* f :
             {"config.json", "status.json", "metrics.jsonl", "summary.json", "checkpoint-last.safetensors",
              "checkpoint-best.safetensors", "tokenizer.model"})
            QVERIFY2(QFile::exists(run_dir + "/" + f), f);
        QCOMPARE(read_json(run_dir + "/config.json")["task"].toString(), QString("word-problems"));
        QCOMPARE(read_json(run_dir + "/status.json")["status"].toString(), QString("finished"));
        // The run store lists it like any run.
        const auto list = run_fone({"runs", "--runs-dir", runs(), "list", "--format", "json"});
        QVERIFY2(list.out.contains("word-problems"), list.out.constData());

        const auto e = run_fone(
            {"eval", "--run", "wp", "--runs-dir", runs(), "--threads", "1", "--mispredictions", "2"});
        QVERIFY2(e.code == 0, e.err.constData());
        const QJsonObject m = first_line(e.out);
        QCOMPARE(m["n"].toInt(), 8);
        QCOMPARE(m["task"].toString(), QString("word-problems"));
        QVERIFY(m.contains("text_perplexity"));
        QVERIFY(m["mispredictions"].toArray().size() <= 2);

        // eval on a JSONL file of the user's.
        const QString file = dir_.path() + "/mine.jsonl";
        QFile f(file);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(
            "{\"prompt\": \"Ana buys 2 pens at $1.50 each. How much does she pay?\", \"answer\": \"She pays "
            "$3.\"}\n");
        f.close();
        const auto e2 =
            run_fone({"eval", "--run", "wp", "--runs-dir", runs(), "--threads", "1", "--data", file});
        QVERIFY2(e2.code == 0, e2.err.constData());
        QCOMPARE(first_line(e2.out)["n"].toInt(), 1);
    }

    void inspect_checkpoint_opens_a_text_run() {
        // The checkpoint of the run above, opened with the run's tokenizer: the weights the run ended on.
        const QString run_dir = runs() + "/wp";
        const QJsonObject summary = read_json(run_dir + "/summary.json");
        const nlohmann::json j = inspect_checkpoint((run_dir + "/checkpoint-last.safetensors").toStdString());
        QCOMPARE(QString::fromStdString(j["config"]["task"].get<std::string>()), QString("word-problems"));
        QCOMPARE(j["step"].get<int64_t>(), static_cast<int64_t>(summary["step"].toInteger()));
        QCOMPARE(j["params"].get<int64_t>(), static_cast<int64_t>(summary["params"].toInteger()));
        QCOMPARE(QString::fromStdString(j["weights_digest"].get<std::string>()),
                 summary["weights_digest"].toString());
        // Without the tokenizer beside it, a text checkpoint cannot be opened: a RunError that names the
        // file.
        const QString alone = dir_.path() + "/alone";
        QVERIFY(QDir().mkpath(alone));
        QVERIFY(
            QFile::copy(run_dir + "/checkpoint-last.safetensors", alone + "/checkpoint-last.safetensors"));
        QVERIFY(QFile::copy(run_dir + "/config.json", alone + "/config.json"));
        try {
            inspect_checkpoint((alone + "/checkpoint-last.safetensors").toStdString());
            QFAIL("no error");
        } catch (const RunError& e) {
            QVERIFY2(QString(e.what()).contains("tokenizer.model: missing"), e.what());
        }
    }

    void generate_streams_tokens_and_json() {
        const QString prompt = "Ana buys 12 pens at $3.45 each. How much does she pay?";
        const auto g = run_fone({"generate", "--run", "wp", "--runs-dir", runs(), "--threads", "1", "--json",
                                 "--max-tokens", "12", prompt});
        QVERIFY2(g.code == 0, g.err.constData());
        const auto lines = json_lines(g.out);
        QVERIFY(lines.size() >= 2);
        const QJsonObject end = lines.last();
        QCOMPARE(end["event"].toString(), QString("end"));
        QCOMPARE(end["prompt"].toString(), prompt);
        QString joined;
        for (qsizetype k = 0; k + 1 < lines.size(); ++k) {
            QCOMPARE(lines[k]["event"].toString(), QString("token"));
            QCOMPARE(lines[k]["index"].toInt(), int(k));
            joined += lines[k]["text"].toString();
            if (lines[k]["piece"].toString() == "[NUM]") QVERIFY(lines[k].contains("number"));
        }
        QCOMPARE(joined, end["text"].toString());  // the stream is the text
        QCOMPARE(end["tokens"].toInt(), int(lines.size() - 1));
        QVERIFY(end["numbers"].isArray());
        // The numbers are the ones in the text.
        const ParsedText parsed = parse_numbers(end["text"].toString().toStdString());
        QCOMPARE(end["numbers"].toArray().size(), qsizetype(parsed.numbers.size()));

        // Plain output: the same text (greedy), then a newline.
        const auto plain = run_fone({"generate", "--run", "wp", "--runs-dir", runs(), "--threads", "1",
                                     "--max-tokens", "12", prompt});
        QVERIFY2(plain.code == 0, plain.err.constData());
        QCOMPARE(QString::fromUtf8(plain.out),
                 end["text"].toString() + (end["text"].toString().isEmpty() ? "" : "\n"));

        // Sampling with a seed is repeatable.
        const QStringList sample = {"generate", "--run",         "wp",  "--runs-dir", runs(), "--threads",
                                    "1",        "--temperature", "1.2", "--top-k",    "10",   "--seed",
                                    "5",        "--max-tokens",  "12",  prompt};
        QCOMPARE(run_fone(sample).out, run_fone(sample).out);
    }

    void digit_and_subword_runs_train_and_generate() {
        for (const char* method : {"digit", "subword"}) {
            const QString name = QString("wp-") + method;
            const auto r = run_fone(tiny_text(runs(), name, {"--method", method, "--epochs", "1"}));
            QVERIFY2(r.code == 0, r.err.constData());
            const auto ev = json_lines(r.out);
            QCOMPARE(ev.last()["status"].toString(), QString("finished"));
            for (const auto& e : ev)
                if (e["event"].toString() == "eval") QVERIFY(e["tokens_per_number"].toDouble() > 1.5);
            const auto g =
                run_fone({"generate", "--run", name, "--runs-dir", runs(), "--threads", "1", "--json",
                          "--max-tokens", "5", "Ana buys 2 pens at $1.50 each. How much does she pay?"});
            QVERIFY2(g.code == 0, g.err.constData());
            QCOMPARE(json_lines(g.out).last()["method"].toString(), QString(method));
        }
    }

    void kill9_and_resume_end_on_the_same_weights() {
        const QString run_dir = runs() + "/killed";
        auto p = std::make_unique<QProcess>();
        p->start(QStringLiteral(FONE_BIN_DIR "/fone"),
                 tiny_text(runs(), "killed", {"--epochs", "8", "--eval-every", "1000"}));
        QVERIFY(p->waitForStarted());
        QElapsedTimer t;
        t.start();
        while (!QFile::exists(run_dir + "/checkpoint-last.safetensors") && t.elapsed() < 120000)
            QThread::msleep(20);
        p->kill();  // SIGKILL
        QVERIFY(p->waitForFinished(10000));
        const auto resumed = run_fone({"train", "--resume", run_dir, "--threads", "1"});
        QVERIFY2(resumed.code == 0, resumed.err.constData());
        const auto ev = json_lines(resumed.out);
        QCOMPARE(ev.last()["status"].toString(), QString("finished"));
        const auto full =
            run_fone(tiny_text(runs(), "uninterrupted", {"--epochs", "8", "--eval-every", "1000"}));
        QVERIFY2(full.code == 0, full.err.constData());
        QCOMPARE(ev.last()["weights_digest"].toString(),
                 json_lines(full.out).last()["weights_digest"].toString());
        // The resumed run used the tokenizer it was trained with (the same file, untouched).
        QVERIFY(QFile::exists(run_dir + "/tokenizer.model"));
    }

    void nan_loss_fails_the_run_cleanly() {
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("FONE_INJECT_NAN_STEP", "3");
        p.setProcessEnvironment(env);
        p.start(QStringLiteral(FONE_BIN_DIR "/fone"), tiny_text(runs(), "nan"));
        QVERIFY(p.waitForFinished(120000));
        QCOMPARE(p.exitCode(), 1);
        const auto ev = json_lines(p.readAllStandardOutput());
        QCOMPARE(ev.last()["status"].toString(), QString("failed"));
        QVERIFY(ev.last()["message"].toString().contains("NaN"));
        QCOMPARE(read_json(runs() + "/nan/status.json")["status"].toString(), QString("failed"));
    }

    // ---- bad inputs
    // ------------------------------------------------------------------------------------------

    void bad_data_files_are_named() {
        const auto missing = run_fone({"train", "--task", "text", "--data", dir_.path() + "/nope.jsonl",
                                       "--runs-dir", runs(), "--threads", "1"});
        QVERIFY(missing.code != 0);
        QVERIFY2(missing.err.contains("nope.jsonl"), missing.err.constData());

        const QString bad = dir_.path() + "/bad.jsonl";
        QFile f(bad);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{\"prompt\": \"a\", \"answer\": \"b 1\"}\n{\"prompt\": \"a\"}\n");
        f.close();
        const auto r =
            run_fone({"train", "--task", "text", "--data", bad, "--runs-dir", runs(), "--threads", "1"});
        QVERIFY(r.code != 0);
        QVERIFY2(r.err.contains("bad.jsonl:2"), r.err.constData());

        const auto no_data = run_fone({"train", "--task", "text", "--runs-dir", runs()});
        QCOMPARE(no_data.code, 2);
        QVERIFY2(no_data.err.contains("--data"), no_data.err.constData());

        const auto method = run_fone({"train", "--task", "units", "--method", "ntl", "--runs-dir", runs()});
        QCOMPARE(method.code, 2);
        QVERIFY2(method.err.contains("fone, digit, subword, xval, bittokens or fone-adapter"),
                 method.err.constData());

        // Digit slots too small for the corpus, with --strict-numbers (without it the longer numbers are
        // text: issue 41): the number and the limits are named.
        const auto slots = run_fone(tiny_text(runs(), "slots", {"--int-digits", "1", "--strict-numbers"}));
        QVERIFY(slots.code != 0);
        QVERIFY2(slots.err.contains("integer digits") && slots.err.contains("train split"),
                 slots.err.constData());
    }

    void plain_text_corpus_trains_and_continues() {
        const QString file = dir_.path() + "/docs.txt";
        QFile f(file);
        QVERIFY(f.open(QIODevice::WriteOnly));
        for (int i = 0; i < 60; ++i)
            f.write(QString("Day %1: we sold %2 cups at $%3 each.\n")
                        .arg(i)
                        .arg(i * 3 + 1)
                        .arg(i % 7 + 1)
                        .toUtf8());
        f.close();
        const auto r = run_fone(tiny_text(
            runs(), "docs", {"--task", "text", "--data", file, "--test-size", "6", "--train-size", "1000"}));
        QVERIFY2(r.code == 0, r.err.constData());
        for (const auto& e : json_lines(r.out))
            if (e["event"].toString() == "eval") {
                QCOMPARE(e["generated"].toInt(), 0);  // documents have no prompts
                QCOMPARE(e["exact_match_of"].toString(), QString("next numbers, teacher-forced"));
            }
        // Documents: generate continues the prompt's text.
        const auto g = run_fone({"generate", "--run", "docs", "--runs-dir", runs(), "--threads", "1",
                                 "--json", "--max-tokens", "4", "Day 3: we sold"});
        QVERIFY2(g.code == 0, g.err.constData());
    }

    // Issue 44: a folder corpus had no data digest: its test.jsonl changed and `fone eval` reported
    // another "test split" without a word, and the resume check for changed data could not fire.
    void folder_corpus_changes_are_noticed() {
        const QString folder = dir_.path() + "/split-folder";
        QDir().mkpath(folder);
        for (const char* split : {"train", "test"}) {
            QFile f(folder + "/" + split + ".jsonl");
            QVERIFY(f.open(QIODevice::WriteOnly));
            for (int i = 0; i < (QByteArray(split) == "train" ? 40 : 6); ++i)
                f.write(QString("{\"prompt\": \"Day %1: we sold\", \"answer\": \" %2 cups at $%3 each.\"}\n")
                            .arg(i)
                            .arg(i * 3 + 1)
                            .arg(i % 7 + 1)
                            .toUtf8());
        }
        const auto r =
            run_fone(tiny_text(runs(), "folder", {"--task", "text", "--data", folder, "--epochs", "1"}));
        QVERIFY2(r.code == 0, r.err.constData());
        const QString digest = read_json(runs() + "/folder/config.json")["data_digest"].toString();
        QVERIFY2(!digest.isEmpty(), "a folder corpus has a digest");
        const auto same = run_fone({"eval", "--run", "folder", "--runs-dir", runs(), "--threads", "1"});
        QVERIFY2(same.code == 0 && !first_line(same.out).contains("data_note"), same.out.constData());
        {
            QFile f(folder + "/test.jsonl");
            QVERIFY(f.open(QIODevice::Append));
            f.write("{\"prompt\": \"Day 99: we sold\", \"answer\": \" 7 cups at $2 each.\"}\n");
        }
        const auto changed = run_fone({"eval", "--run", "folder", "--runs-dir", runs(), "--threads", "1"});
        QVERIFY2(changed.code == 0, changed.err.constData());
        QVERIFY2(first_line(changed.out)["data_note"].toString().contains("changed since the run started"),
                 changed.out.constData());
    }

    // Issue 44: each number's label copied the whole document to quote 40 characters: preparing one long
    // document was quadratic (16 MB: 578 s before the first step). 2 MB with 216,000 numbers now takes
    // seconds (before: the copies alone were about 4 * 10^11 bytes).
    void a_long_document_is_prepared_in_linear_time() {
        const std::string sentence = "In 2024, 1,250 of 3,750 were 33.5%. ";
        std::string doc;
        while (doc.size() < (2u << 20))
            doc += sentence;
        const std::vector<TextExample> small = {{"", sentence + sentence}};
        const TextTokenizer tok = TextTokenizer::train(small, TextScheme::fone, {300, 0.9995});
        TrainConfig c = text_config("fone");
        c.text_task = "text";
        c.text_loss = "all";
        c.text_context = 256;
        TextSplits s;
        s.train = {{"", doc}};
        const TextLmScheme scheme(tok, text_spec(c, s), c);
        QElapsedTimer clock;
        clock.start();
        const Batch b = scheme.encode_text(s.train);
        const double seconds = clock.elapsed() / 1000.0;
        qInfo("a 2 MB document of %zu numbers prepared in %.2f s (%lld windows)",
              4 * (doc.size() / sentence.size()), seconds, static_cast<long long>(b.n));
        QVERIFY(b.n > 1000);
        QVERIFY2(seconds < 60, qPrintable(QString::number(seconds)));
    }

    // Issue 44: a tiny temperature overflowed float32 (logits / 1e-40 = inf, inf - inf = NaN) and the draw
    // fell on the vocabulary's last token; NaN passed. Now the draw approaches greedy, and NaN is refused.
    void tiny_temperature_is_nearly_greedy() {
        std::mt19937_64 rng(1);
        const torch::Tensor logits = torch::tensor({{1.0f, 3.0f, 2.0f, -4.0f}, {0.5f, 0.25f, 0.0f, 0.125f}});
        for (const double t : {1e-40, 1e-300, 1e-6})
            QCOMPARE(choose_tokens(logits, t, 0, rng), (std::vector<int64_t>{1, 0}));
        QCOMPARE(choose_tokens(logits, 1e-40, 2, rng), (std::vector<int64_t>{1, 0}));
        QVERIFY_EXCEPTION_THROWN(choose_tokens(logits, std::nan(""), 0, rng), std::invalid_argument);
        QVERIFY_EXCEPTION_THROWN(choose_tokens(logits, INFINITY, 0, rng), std::invalid_argument);
        Tiny& t = trained_tiny("fone", 60);
        const auto prompt = t.scheme->prompt_tokens("What does the pen cost?", true);
        GenerateOptions o{1e-40, 0, 12, 3, true};
        const auto greedy = t.scheme->generate(t.model, {prompt}, GenerateOptions{0.0, 0, 12, 0, true})[0];
        QCOMPARE(t.scheme->generate(t.model, {prompt}, o)[0].ids, greedy.ids);
    }

    // Issue 44: a corpus with more characters than the vocabulary leaves room for (any CJK corpus at the
    // default 1,000) failed inside SentencePiece after the run existed. The count that SentencePiece makes is
    // made first: refused with the size that fits, and a vocabulary of exactly that size trains.
    void vocabulary_too_small_for_the_characters() {
        std::vector<TextExample> cjk;
        for (int line = 0; line < 20; ++line) {
            QString text;
            for (int k = 0; k < 50; ++k)
                text += QChar(0x4E00 + line * 50 + k);
            cjk.push_back({"", text.toStdString() + " 12"});
        }
        QString e;
        try {
            TextTokenizer::train(cjk, TextScheme::fone, {1000, 0.9995});
        } catch (const TokenizerError& err) {
            e = err.what();
        }
        QVERIFY2(e.contains("--vocab-size") && !e.contains("SentencePiece"), qPrintable(e));
        // The figure the message gives is the size that fits: at it, SentencePiece trains.
        const int needed = e.section("--vocab-size ", 1).section(' ', 0, 0).toInt();
        QVERIFY(needed > 1000);
        QVERIFY_EXCEPTION_THROWN(check_tokenizer_vocabulary(cjk, {1000, 0.9995}), TokenizerError);
        QVERIFY_EXCEPTION_THROWN(check_tokenizer_vocabulary(cjk, {needed - 100, 0.9995}), TokenizerError);
        check_tokenizer_vocabulary(cjk, {needed - 99, 0.9995});  // the smallest that fits
        const TextTokenizer tok = TextTokenizer::train(cjk, TextScheme::fone, {needed - 99, 0.9995});
        QVERIFY(tok.vocab_size() > 262);
    }

    void generate_errors_are_clear() {
        const auto missing = run_fone({"generate", "--run", "no-such-run", "--runs-dir", runs(), "hello"});
        QVERIFY(missing.code != 0);
        QVERIFY2(missing.err.contains("no-such-run"), missing.err.constData());

        // An arithmetic run is not a text run.
        const auto a = run_fone({"train", "--task",     "dec-add", "--train-size",   "64",   "--test-size",
                                 "8",     "--val-size", "0",       "--epochs",       "1",    "--hidden",
                                 "32",    "--layers",   "1",       "--heads",        "2",    "--kv-heads",
                                 "1",     "--head-dim", "16",      "--intermediate", "64",   "--threads",
                                 "1",     "--runs-dir", runs(),    "--name",         "arith"});
        QVERIFY2(a.code == 0, a.err.constData());
        const auto wrong = run_fone({"generate", "--run", "arith", "--runs-dir", runs(), "1+2="});
        QCOMPARE(wrong.code, 2);
        QVERIFY2(wrong.err.contains("arithmetic run") && wrong.err.contains("fone predict"),
                 wrong.err.constData());
        // ... and predict sends a text run to generate.
        const auto predict = run_fone({"predict", "--run", "wp", "--runs-dir", runs(), "1+2="});
        QVERIFY(predict.code != 0);
        QVERIFY2(predict.err.contains("fone generate"), predict.err.constData());

        // A number beyond the run's slots is text to it (issue 41): the prompt is continued, and the
        // number is none of the end event's numbers.
        const auto big = run_fone({"generate", "--run", "wp", "--runs-dir", runs(), "--json", "--max-tokens",
                                   "4", "It costs $123456789.5."});
        QVERIFY2(big.code == 0, big.err.constData());
        QVERIFY(json_lines(big.out).last()["event"].toString() == "end");
        QVERIFY(!json_lines(big.out).last()["numbers"].toArray().contains(QJsonValue("123456789.5")));
        const auto empty = run_fone({"generate", "--run", "wp", "--runs-dir", runs(), "  "});
        QCOMPARE(empty.code, 2);
        QVERIFY2(empty.err.contains("empty"), empty.err.constData());
        const auto placeholder = run_fone({"generate", "--run", "wp", "--runs-dir", runs(), "Pay [NUM] now"});
        QCOMPARE(placeholder.code, 2);
        QVERIFY2(placeholder.err.contains("[NUM]"), placeholder.err.constData());
        const auto temp =
            run_fone({"generate", "--run", "wp", "--runs-dir", runs(), "--temperature", "-1", "hi"});
        QCOMPARE(temp.code, 2);
        QVERIFY2(temp.err.contains("temperature"), temp.err.constData());
    }
};

QTEST_GUILESS_MAIN(TestTextTrain)
#include "test_text_train.moc"
