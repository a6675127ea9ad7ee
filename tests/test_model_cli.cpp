// `fone model inspect | tokenize | forward` and `fone analyse ... --source model` on the tiny models of
// tests/golden/pretrained/, as a user runs them: the JSON contracts, forward's numbers against
// transformers' (1e-4), the analyses' files, and bad folders as one line and exit status 2.
#include <QJsonArray>
#include <QtTest>

#include "fone_process.h"

using namespace fone_test;

namespace {

const QString kGolden = QStringLiteral(FONE_SOURCE_DIR "/tests/golden/pretrained/");

QJsonObject golden(const QString& folder) {
    return read_json(kGolden + folder + "/golden.json");
}

double max_difference(const QJsonArray& got, const QJsonArray& want) {
    if (got.size() != want.size()) return INFINITY;
    double worst = 0;
    for (int i = 0; i < got.size(); ++i)
        worst = std::max(worst, std::abs(got[i].toDouble() - want[i].toDouble()));
    return worst;
}

}  // namespace

class TestModelCli : public QObject {
    Q_OBJECT
  private:
    QTemporaryDir dir_;

  private Q_SLOTS:
    void inspect_describes_the_folder() {
        const auto r = run_fone({"model", "inspect", kGolden + "llama-bf16-sharded"});
        QVERIFY2(r.code == 0, r.err.constData());
        const QJsonObject j = first_line(r.out);
        QCOMPARE(j["family"].toString(), QString("llama"));
        for (const char* key : {"layers", "hidden_size", "heads", "kv_heads", "vocab_size", "dtype",
                                "parameters", "single_token_integers", "tokenizer", "files"})
            QVERIFY2(j.contains(key), key);
        QCOMPARE(j["layers"].toInt(), 2);
        QCOMPARE(j["hidden_size"].toInt(), 32);
        QCOMPARE(j["heads"].toInt(), 4);
        QCOMPARE(j["kv_heads"].toInt(), 1);
        QCOMPARE(j["vocab_size"].toInt(), 320);
        QCOMPARE(j["dtype"].toString(), QString("BF16"));
        QCOMPARE(j["parameters"].toDouble(), golden("llama-bf16-sharded")["parameters"].toDouble());
        QCOMPARE(j["files"].toArray().size(), 4);
        const QJsonArray first_range = j["single_token_integers"].toObject()["ranges"].toArray()[0].toArray();
        QCOMPARE(first_range[0].toInt(), 0);
    }

    void forward_matches_transformers_data() {
        QTest::addColumn<QString>("folder");
        for (const char* f :
             {"llama", "llama-bf16-sharded", "qwen2", "gpt2-fp16", "pythia", "neox-sequential"})
            QTest::newRow(f) << f;
    }
    void forward_matches_transformers() {
        QFETCH(QString, folder);
        const QJsonObject g = golden(folder);
        QStringList ids;
        for (const auto& v : g["token_ids"].toArray())
            ids << QString::number(v.toInt());
        const auto r = run_fone(
            {"model", "forward", kGolden + folder, "--token-ids", ids.join(','), "--json", "--threads", "1"});
        QVERIFY2(r.code == 0, r.err.constData());
        const QJsonObject j = first_line(r.out);
        double worst = max_difference(j["logits_last"].toArray(), g["logits_last"].toArray());
        const QJsonArray hidden = j["hidden_last"].toArray(), want = g["hidden_last"].toArray();
        QCOMPARE(hidden.size(), want.size());
        for (int l = 0; l < hidden.size(); ++l)
            worst = std::max(worst, max_difference(hidden[l].toArray(), want[l].toArray()));
        QVERIFY2(worst < 1e-4, qPrintable(QString::number(worst)));
        // --text: the folder's tokenizer, then the same forward.
        const auto t =
            run_fone({"model", "forward", kGolden + folder, "--text", g["text"].toString(), "--json"});
        QVERIFY2(t.code == 0, t.err.constData());
        QVERIFY(max_difference(first_line(t.out)["logits_last"].toArray(), g["text_logits_last"].toArray()) <
                1e-4);
        QCOMPARE(first_line(t.out)["token_ids"].toArray(), g["text_ids"].toArray());
    }

    void tokenize_and_summary() {
        const auto r = run_fone({"model", "tokenize", kGolden + "llama", "527.38+94.605=622"});
        QVERIFY2(r.code == 0, r.err.constData());
        QCOMPARE(first_line(r.out)["ids"].toArray(), golden("llama")["text_ids"].toArray());
        const auto s = run_fone({"model", "forward", kGolden + "pythia", "--text", "12+7=", "--top", "3"});
        QVERIFY2(s.code == 0, s.err.constData());
        QCOMPARE(first_line(s.out)["next_tokens"].toArray().size(), 3);
        QCOMPARE(first_line(s.out)["hidden_norms"].toArray().size(), 3);
    }

    void analyses_of_a_model_folder() {
        const QString model = kGolden + "llama", out = dir_.filePath("analyses");
        const auto spectrum = run_fone({"analyse", "spectrum", "--source", "model", "--model", model,
                                        "--numbers", "100", "--layer", "0", "--out", out + "/spectrum"});
        QVERIFY2(spectrum.code == 0, spectrum.err.constData());
        QVERIFY(first_line(spectrum.out)["source"].toString().startsWith("model llama, embeddings"));
        QVERIFY(QFile::exists(out + "/spectrum/spectrum_layers.csv"));  // every layer's spectrum too
        const auto helix = run_fone({"analyse", "helix", "--source", "model", "--model", model, "--numbers",
                                     "100", "--out", out + "/helix"});
        QVERIFY2(helix.code == 0, helix.err.constData());
        const QJsonArray layers = first_line(helix.out)["layers"].toArray();
        QCOMPARE(layers.size(), 3);
        for (const auto& l : layers) {
            const double r2 = l.toObject()["r2"].toDouble(), pca = l.toObject()["pca_r2"].toDouble();
            QVERIFY(r2 >= 0 && r2 <= pca + 1e-9 && pca <= 1 + 1e-9);
        }
        QVERIFY(QFile::exists(out + "/helix/helix.csv"));
        const auto digits = run_fone({"analyse", "digits", "--source", "model", "--model", model, "--numbers",
                                      "200", "--out", out + "/digits"});
        QVERIFY2(digits.code == 0, digits.err.constData());
        QCOMPARE(first_line(digits.out)["places"].toArray().size(), 3);
        QVERIFY(QFile::exists(out + "/digits/digits.csv"));
#ifdef FONE_WITH_PLOTS
        for (const char* png : {"/spectrum/spectrum.png", "/helix/helix.png", "/helix/helix_r2.png",
                                "/digits/digits.png", "/digits/clocks.png"})
            QVERIFY2(QFile::exists(out + png), png);
#endif
        const auto dump = run_fone({"analyse", "dump", "--source", "model", "--model", model, "--numbers",
                                    "5", "--out", out + "/dump"});
        QVERIFY2(dump.code == 0, dump.err.constData());
        QCOMPARE(first_line(dump.out)["layers"].toArray().size(), 3);
    }

    void bad_input_is_one_line() {
        const auto none = run_fone({"model", "inspect", dir_.path()});
        QCOMPARE(none.code, 2);
        QVERIFY(none.err.startsWith("fone model inspect: error:") && none.err.contains("no config.json"));
        QCOMPARE(none.err.count('\n'), 1);
        const auto ids = run_fone({"model", "forward", kGolden + "llama", "--token-ids", "1,x"});
        QCOMPARE(ids.code, 2);
        const auto outside = run_fone({"model", "forward", kGolden + "llama", "--token-ids", "1,5000"});
        QCOMPARE(outside.code, 2);
        QVERIFY(outside.err.contains("outside the vocabulary"));
        const auto no_model =
            run_fone({"analyse", "helix", "--source", "model", "--out", dir_.filePath("x")});
        QVERIFY(no_model.code != 0);
        QVERIFY(no_model.err.contains("--model"));
    }
};

QTEST_MAIN(TestModelCli)
#include "test_model_cli.moc"
