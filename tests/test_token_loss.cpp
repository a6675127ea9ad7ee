// Token by token losses of text runs (issue 30, fone/train/token_loss.h, fone/analysis/token_loss.h):
// a model whose logits are all zero pays ln V for every token (worked by hand: every number's token count
// too), the text pieces' mean loss is the log of the text perplexity `evaluate` measures on the same
// windows, two methods align piece by piece, other tokenizers and corpora are refused, and `fone analyse
// token-loss` answers with the checkpoint it read, a PNG, and one-line errors.
#include <QtTest>
#include <cmath>

#include "fone/analysis/token_loss.h"
#include "fone/numbers/number_parser.h"
#include "fone_process.h"
#include "one_block_model.h"
#include "schemes/text_scheme.h"
#include "train/token_loss_model.h"

using namespace fone;
using fone_test::run_fone;

namespace {

// Two documents with numbers of the kinds the Factbook writes; the first line names the document.
const std::vector<TextExample> kDocs = {
    {"", "Ruritania\nArea: total: 3,287,263 sq km; growth -1.25% in the year."},
    {"", "Freedonia\nArea: total: 41,040 sq km; population growth 0.5% and 12 regions."},
    {"", "Elbonia\nArea: total: 120 sq km; mud: 99.9% of the land."},
};

struct Setup {
    std::unique_ptr<TextLmScheme> scheme;
    FoneTransformer model{nullptr};
};

// An untrained model of a text scheme whose tokenizer is trained on `docs`; documents packed into
// windows of `context` tokens (several windows per document).
Setup make_setup(const std::string& method, const std::vector<TextExample>& docs = kDocs, int context = 16) {
    const TextTokenizer tok = TextTokenizer::train(docs, text_scheme_from_name(method), {300, 0.9995});
    TrainConfig c;
    c.text_task = "text";
    c.method = method;
    c.text_loss = "all";
    c.text_context = context;
    TextSplits s;
    s.train = docs;
    Setup t;
    t.scheme = std::make_unique<TextLmScheme>(tok, text_spec(c, s), c);
    torch::manual_seed(3);
    t.model = FoneTransformer(fone_test::one_block_model(static_cast<int>(t.scheme->vocabulary().size())),
                              t.scheme->heads());
    t.model->eval();
    return t;
}

analysis::DocumentLosses losses(Setup& t, const TextExample& doc, const std::string& name) {
    analysis::DocumentLosses d = document_losses(*t.scheme, t.model, doc, torch::kCPU);
    d.run = name;
    d.method = t.scheme->name();
    d.document = doc.answer.substr(0, doc.answer.find('\n'));
    d.documents = 3;
    return d;
}

std::vector<const analysis::LossPiece*> numbers_of(const analysis::DocumentLosses& d) {
    std::vector<const analysis::LossPiece*> out;
    for (const analysis::LossPiece& p : d.pieces)
        if (p.number) out.push_back(&p);
    return out;
}

}  // namespace

class TestTokenLoss : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    // Embedding and output weights zero: every logit is 0, so every token costs ln V nats, and a number
    // costs ln V per token: 3,287,263 is 7 digit tokens or 3 subword chunks (328 726 3); -1.25 is 5 digit
    // tokens (- 1 . 2 5) or 4 subword ones (- 1 . 25). The most probable token is then [PAD] (id 0), which
    // writes no number.
    void zero_logits_cost_ln_v_per_token() {
        const std::map<std::string, std::vector<int>> tokens = {{"digit", {7, 5}}, {"subword", {3, 4}}};
        for (const auto& [method, counts] : tokens) {
            Setup t = make_setup(method);
            {
                torch::NoGradGuard no_grad;
                for (auto& p : t.model->named_parameters())
                    if (p.key() == "embed.weight" || p.key().rfind("lm_head", 0) == 0) p.value().zero_();
            }
            const double ln_v = std::log(static_cast<double>(t.scheme->vocabulary().size()));
            const analysis::DocumentLosses d = losses(t, kDocs[0], "zero");
            QVERIFY(d.pieces.size() > 10);
            for (const analysis::LossPiece& p : d.pieces)
                QVERIFY2(std::fabs(p.loss - p.tokens * ln_v) < 1e-4, p.text.c_str());
            const auto numbers = numbers_of(d);
            QCOMPARE(numbers.size(), std::size_t{2});
            QCOMPARE(numbers[0]->text, std::string("3,287,263"));
            QCOMPARE(numbers[0]->value, std::string("3287263"));
            QCOMPARE(numbers[0]->tokens, counts[0]);
            QCOMPARE(numbers[1]->value, std::string("-1.25"));
            QCOMPARE(numbers[1]->tokens, counts[1]);
            QCOMPARE(numbers[0]->predicted, std::string());
            QCOMPARE(d.pieces.back().text, std::string("[EOS]"));
        }
    }

    // The mean loss of the text pieces is the log of the text perplexity that evaluate (a separate path:
    // text_token_sums over the same windows) reports for the document, for every method; the document's
    // text is the pieces' text.
    void text_losses_average_to_the_evaluated_perplexity() {
        for (const char* method : {"fone", "digit", "subword"}) {
            Setup t = make_setup(method);
            for (const TextExample& doc : kDocs) {
                const analysis::DocumentLosses d = losses(t, doc, "r");
                const nlohmann::json e =
                    t.scheme->evaluate(t.model, t.scheme->encode_text({doc}), torch::kCPU);
                QCOMPARE(static_cast<int64_t>(d.text_tokens()), e["text_tokens"].get<int64_t>());
                const double want = std::log(e["text_perplexity"].get<double>());
                QVERIFY2(std::fabs(d.text_loss() - want) < 1e-6 * std::max(1.0, want),
                         qPrintable(QString("%1: %2 against %3").arg(method).arg(d.text_loss()).arg(want)));
                std::string text, written;  // spaces aside (a line's first piece may carry one)
                for (const analysis::LossPiece& p : d.pieces)
                    if (p.text != "[EOS]") text += p.text;
                std::erase(text, ' ');
                written = doc.answer;
                std::erase(written, ' ');
                QCOMPARE(text, written);
            }
        }
    }

    // fone: one token a number, its loss the LM's -log p([NUM]) plus the digit head's nats on the
    // number's digits and sign, which is (slots + 1) x the model's digit_loss there.
    void fone_numbers_add_the_digit_head() {
        Setup t = make_setup("fone");
        const analysis::DocumentLosses d = losses(t, kDocs[1], "f");
        const auto numbers = numbers_of(d);
        QCOMPARE(numbers.size(), std::size_t{3});
        for (const analysis::LossPiece* p : numbers) {
            QCOMPARE(p->tokens, 1);
            Decimal x;
            QVERIFY(Decimal::try_parse(p->predicted, x));  // the digit head always reads a number
        }
        // Worked: the encoded document's first number is predicted at the position before its [NUM].
        torch::NoGradGuard no_grad;
        const Batch b = t.scheme->encode_text({{"", kDocs[1].answer}});
        const auto h = t.model->forward(b.in, false);
        const auto logits = t.model->lm_logits(h).to(torch::kFloat32);
        const auto at = b.number_start.nonzero();  // [K, 2] (row, position)
        const int64_t row = at[0][0].item<int64_t>(), pos = at[0][1].item<int64_t>();
        const double lm = -torch::log_softmax(logits[row][pos], -1)[text_token::kNum].item<double>();
        const double head = t.model
                                ->digit_loss(h[row][pos].unsqueeze(0), b.digits[row][pos].unsqueeze(0),
                                             b.signs[row][pos].unsqueeze(0))
                                .item<double>() *
                            static_cast<double>(t.model->slots + 1);
        QVERIFY2(std::fabs(numbers[0]->loss - (lm + head)) < 1e-4,
                 qPrintable(QString("%1 against %2").arg(numbers[0]->loss).arg(lm + head)));
    }

    // The same document under fone, digit and subword: the same pieces; a tokenizer trained on another
    // corpus cuts the text otherwise and is refused, as is another document.
    void methods_align_and_strangers_are_refused() {
        Setup fone = make_setup("fone"), digit = make_setup("digit"), subword = make_setup("subword");
        const auto f = losses(fone, kDocs[0], "fone-run"), g = losses(digit, kDocs[0], "digit-run"),
                   s = losses(subword, kDocs[0], "subword-run");
        const analysis::TokenLossComparison c = analysis::compare_documents(f, g);
        QCOMPARE(c.a.pieces.size(), c.b.pieces.size());
        (void)analysis::compare_documents(g, s);
        const analysis::ComparisonSummary sum = analysis::summarise(c);
        QCOMPARE(sum.numbers, std::size_t{2});
        QCOMPARE(sum.text_pieces + sum.numbers, c.a.pieces.size());
        QVERIFY(std::fabs(sum.text_loss_a - f.text_loss()) < 1e-12);
        const std::vector<TextExample> other = {{"", "Quite other words: 5 lorries and 7 barges went by."},
                                                {"", "Zzyzx zone: 12 zebras, zero zeppelins."}};
        Setup stranger = make_setup("digit", other);
        const auto x = losses(stranger, kDocs[0], "stranger");
        try {
            (void)analysis::compare_documents(g, x);
            QFAIL("pieces of another tokenizer were compared");
        } catch (const std::invalid_argument& e) {
            QVERIFY2(QString(e.what()).contains("different pieces") && !QString(e.what()).contains('\n'),
                     e.what());
        }
        analysis::DocumentLosses elsewhere = g;
        elsewhere.document = "Freedonia";
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, analysis::compare_documents(f, elsewhere));
    }

    // The JSON the window reads gives the comparison back; JSON of another shape is refused.
    void json_round_trip() {
        Setup digit = make_setup("digit"), subword = make_setup("subword");
        const auto c =
            analysis::compare_documents(losses(digit, kDocs[2], "d"), losses(subword, kDocs[2], "s"));
        const nlohmann::json j = analysis::token_loss_json(c);
        const analysis::TokenLossComparison back = analysis::token_loss_from_json(j);
        QCOMPARE(back.a.pieces.size(), c.a.pieces.size());
        for (std::size_t i = 0; i < c.a.pieces.size(); ++i) {
            QCOMPARE(back.a.pieces[i].loss, c.a.pieces[i].loss);
            QCOMPARE(back.b.pieces[i].tokens, c.b.pieces[i].tokens);
            QCOMPARE(back.b.pieces[i].predicted, c.b.pieces[i].predicted);
        }
        QCOMPARE(j["summary"]["numbers"].get<int>(), 2);
        QCOMPARE(back.a.run, std::string("d"));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 analysis::token_loss_from_json(nlohmann::json::array()));
        nlohmann::json broken = j;
        broken["pieces"][0]["loss_a"] = "much";
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, analysis::token_loss_from_json(broken));
    }

    // Through `fone`: two tiny runs on one corpus and one on another. The comparison names both
    // checkpoints and writes its PNG; a document out of range, a name no document has and runs on other
    // corpora are one-line errors.
    void the_command_answers_and_refuses_in_one_line() {
        QTemporaryDir dir;
        const QString runs = dir.path() + "/runs";
        const auto corpus = [&](const QString& name, const QStringList& lines) {
            QFile f(dir.path() + "/" + name);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(lines.join('\n').toUtf8() + "\n");
        };
        QStringList lines;
        for (int i = 0; i < 8; ++i)
            lines << QString("Land %1: area %2 sq km, growth -%3.5% in 20%4.")
                         .arg(i)
                         .arg(1000 + 37 * i)
                         .arg(i)
                         .arg(10 + i);
        corpus("a.txt", lines);
        corpus("b.txt", {"Other text 1.", "More other text 22.", "Still other 333.", "And 4 more.",
                         "Five 55.", "Six 6."});
        const auto train = [&](const QString& name, const QString& method, const QString& data) {
            const fone_test::Result r = run_fone(QStringList{"train",
                                                             "--task",
                                                             "text",
                                                             "--data",
                                                             dir.path() + "/" + data,
                                                             "--method",
                                                             method,
                                                             "--test-size",
                                                             "2",
                                                             "--val-size",
                                                             "0",
                                                             "--epochs",
                                                             "1",
                                                             "--batch",
                                                             "4",
                                                             "--context",
                                                             "64",
                                                             "--vocab-size",
                                                             "300",
                                                             "--threads",
                                                             "1",
                                                             "--name",
                                                             name,
                                                             "--runs-dir",
                                                             runs} +
                                                 fone_test::one_block_model_options(16));
            QVERIFY2(r.code == 0, r.err.constData());
        };
        train("d", "digit", "a.txt");
        train("s", "subword", "a.txt");
        train("o", "digit", "b.txt");
        const fone_test::Result ok =
            run_fone({"analyse", "token-loss", "--runs-dir", runs, "--run", "d", "--against", "s", "--doc",
                      "1", "--json", "--out", dir.path() + "/png"});
        QVERIFY2(ok.code == 0, ok.err.constData());
        const nlohmann::json j = nlohmann::json::parse(ok.out.toStdString());
        QVERIFY(j["a"]["checkpoint"].get<std::string>().ends_with(".safetensors"));
        QCOMPARE(j["b"]["method"].get<std::string>(), std::string("subword"));
        QCOMPARE(j["index"].get<int>(), 1);
        QVERIFY(j["pieces"].size() > 10);
#ifdef FONE_WITH_PLOTS  // a build without Qt (the LibTorch 2.x check) writes no PNG: "png" is null
        QVERIFY(QFileInfo(QString::fromStdString(j["files"]["png"].get<std::string>())).size() > 1000);
#else
        QVERIFY(j["files"]["png"].is_null());
#endif
        const std::string title = j["document"].get<std::string>();
        const fone_test::Result by_name =
            run_fone({"analyse", "token-loss", "--runs-dir", runs, "--run", "s", "--against", "d", "--doc",
                      QString::fromStdString(title)});
        QVERIFY2(by_name.code == 0 && by_name.out.contains("nats per text token"), by_name.err.constData());
        const std::vector<std::pair<QStringList, QString>> bad = {
            {{"--run", "d", "--against", "s", "--doc", "2"}, "(0..1)"},
            {{"--run", "d", "--against", "s", "--doc", "Atlantis"}, "no test document"},
            {{"--run", "d", "--against", "o"}, "different"},
        };
        for (const auto& [args, says] : bad) {
            const fone_test::Result r =
                run_fone(QStringList{"analyse", "token-loss", "--runs-dir", runs} + args);
            const QString err = QString::fromUtf8(r.err).trimmed();
            QVERIFY2(r.code != 0 && err.contains(says) && !err.contains('\n') && r.out.isEmpty(),
                     qPrintable(args.join(' ') + ": " + err));
        }
    }
};

QTEST_GUILESS_MAIN(TestTokenLoss)
#include "test_token_loss.moc"
