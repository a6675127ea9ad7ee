// `fone train --init-from DIR`: a run's transformer takes a pretrained Llama/Qwen2 folder's shape and
// weights. In process: the model built that way computes what the pretrained model computes (the hidden
// states and, over the method's tokens, the logits of the folder's own forward, itself checked against
// transformers in test_pretrained), for a tied Llama-3.2-style model, an untied bf16 sharded one and Qwen2
// with its biases; the method's tokens map to Llama-3's own tokens. Through `fone`: a tiny Llama fine-tuned
// end to end, then evaluated and asked.
#include <QtTest>
#include <cmath>

#include "checkpoints/run_model.h"
#include "fone/hf/forward.h"
#include "fone/pretrained/model_folder.h"
#include "fone/store/run_store.h"
#include "fone/store/train_config.h"
#include "fone/train/training.h"
#include "fone_process.h"
#include "hf/init_from.h"
#include "schemes/scheme_parts.h"

namespace fp = fone::pretrained;
using namespace fone_test;

namespace {

const std::string kGolden = std::string(FONE_SOURCE_DIR) + "/tests/golden/pretrained/";

fone::TrainConfig config_for(const std::string& folder, const std::string& method) {
    return fone::resolve_train_config({{{"task", "dec-add"},
                                        {"method", method},
                                        {"train_size", 64},
                                        {"val_size", 8},
                                        {"test_size", 16},
                                        {"init_from", kGolden + folder}}});
}

}  // namespace

class TestInitFrom : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void defaults_and_refusals();
    void method_tokens_are_llama3_tokens();
    void model_computes_the_pretrained_model_data();
    void model_computes_the_pretrained_model();
    void fine_tunes_a_tiny_llama_end_to_end();
    void the_folder_is_one_layer_and_opened_once();
};

void TestInitFrom::defaults_and_refusals() {
    const fone::TrainConfig c = config_for("llama", "fone");
    QCOMPARE(c.lr, 5e-5);  // the paper's fine-tuned Llama-3.2-1B
    QCOMPARE(c.batch, std::size_t{200});
    fone::TrainConfig shaped = c;
    fp::adopt_pretrained_shape(shaped);
    QCOMPARE(shaped.model.hidden, 32);
    QCOMPARE(shaped.model.kv_heads, 2);
    QCOMPARE(shaped.model.rope_scaling.type, std::string("llama3"));
    QVERIFY(shaped.model.tie_embeddings);
    // The shape survives the run's config.json.
    QCOMPARE(fone::TrainConfig::from_json(shaped.to_json()).model.rope_scaling, shaped.model.rope_scaling);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, config_for("llama", "xval"));
    fone::TrainConfig gpt2 = config_for("gpt2-fp16", "digit");
    try {
        fp::adopt_pretrained_shape(gpt2);
        QFAIL("a GPT-2 folder was taken");
    } catch (const std::invalid_argument& e) {
        QVERIFY2(std::string(e.what()).find("gpt2") != std::string::npos, e.what());
    }
}

void TestInitFrom::method_tokens_are_llama3_tokens() {
    const fp::BpeTokenizer llama3 = fp::BpeTokenizer::load(FONE_LLAMA3_TOKENIZER);
    fp::PretrainedConfig config;
    config.vocab_size = 128256;
    config.eos_token_id = 128001;
    const fone::TrainConfig c = fone::resolve_train_config({{{"task", "dec-add"}, {"method", "subword"}}});
    const fone::RunModel run = fone::open_run_model(c, "", fone::RunData::none);
    const auto& vocabulary = run.scheme->vocabulary();
    const auto ids = fp::pretrained_ids(vocabulary, llama3, config);
    for (std::size_t t = 0; t < vocabulary.size(); ++t) {
        if (vocabulary[t] == "[PAD]" || vocabulary[t] == "[NUM]") {
            QVERIFY(ids[t].empty());
            continue;
        }
        QVERIFY2(ids[t].size() == 1, vocabulary[t].c_str());  // every chunk of up to 3 digits is a token
    }
    QCOMPARE(ids[fone::kBos], std::vector<int64_t>{128000});
    QCOMPARE(ids[fone::kEos], std::vector<int64_t>{128001});
    // The method's prompt, token by token, is exactly what Llama-3 makes of the text.
    const fone::Batch b = run.scheme->encode_prompt("527.38+94.605=");
    std::vector<int64_t> mapped;
    for (int64_t i = 0; i < b.in.tokens.size(1); ++i)
        mapped.push_back(ids[static_cast<std::size_t>(b.in.tokens[0][i].item<int64_t>())][0]);
    QCOMPARE(mapped, llama3.encode("527.38+94.605="));
}

void TestInitFrom::model_computes_the_pretrained_model_data() {
    QTest::addColumn<QString>("folder");
    QTest::addColumn<QString>("method");
    QTest::newRow("llama, fone") << "llama"
                                 << "fone";
    QTest::newRow("llama untied bf16 sharded, subword") << "llama-bf16-sharded"
                                                        << "subword";
    QTest::newRow("qwen2, digit") << "qwen2"
                                  << "digit";
}

void TestInitFrom::model_computes_the_pretrained_model() {
    QFETCH(QString, folder);
    QFETCH(QString, method);
    torch::manual_seed(1);
    const fone::TrainConfig c = config_for(folder.toStdString(), method.toStdString());
    fone::RunModel run = fone::open_run_model(c, "", fone::RunData::batches);
    QCOMPARE(run.config.model.hidden, 32);
    run.model->eval();
    const fp::ModelFolder m = fp::ModelFolder::open(kGolden + folder.toStdString());
    const auto ids =
        fp::pretrained_ids(run.scheme->vocabulary(), fp::BpeTokenizer::load(m.tokenizer_path()), m.config());
    // A prompt of method tokens that each are one pretrained token (a FoNE prompt's [NUM] is not).
    std::vector<int64_t> tokens{fone::kBos}, pretrained;
    for (int64_t t = 0; t < static_cast<int64_t>(ids.size()) && tokens.size() < 9; ++t)
        if (ids[static_cast<std::size_t>(t)].size() == 1 && t != fone::kBos) tokens.push_back(t);
    for (const int64_t t : tokens)
        pretrained.push_back(ids[static_cast<std::size_t>(t)][0]);
    torch::NoGradGuard no_grad;
    std::vector<torch::Tensor> layers;
    const auto input = torch::tensor(tokens, torch::kInt64).unsqueeze(0);
    const auto last = run.model->forward(fone::ModelInputs{input, {}, {}, {}, {}, {}}, false, &layers);
    const fp::ForwardResult want = fp::forward_last(m, pretrained, 1);
    // transformers' hidden states: the embeddings, after blocks 1..L-1, then the final norm's output.
    for (std::size_t l = 0; l + 1 < want.hidden_last.size(); ++l) {
        const auto got = layers[l][0][-1];
        for (int64_t d = 0; d < got.size(0); ++d)
            QVERIFY(std::abs(got[d].item<float>() - want.hidden_last[l][static_cast<std::size_t>(d)]) < 1e-4);
    }
    const auto final_state = last[0][-1];
    const auto logits = run.model->lm_logits(final_state);
    for (std::size_t t = 0; t < ids.size(); ++t) {
        if (ids[t].size() != 1) continue;
        const double d =
            std::abs(logits[static_cast<int64_t>(t)].item<float>() - want.logits_last[ids[t][0]]);
        QVERIFY2(d < 1e-4, qPrintable(QString("token %1: %2").arg(t).arg(d)));
    }
    for (int64_t d = 0; d < final_state.size(0); ++d)
        QVERIFY(std::abs(final_state[d].item<float>() -
                         want.hidden_last.back()[static_cast<std::size_t>(d)]) < 1e-4);
}

void TestInitFrom::fine_tunes_a_tiny_llama_end_to_end() {
    QTemporaryDir dir;
    const QString runs = dir.path() + "/runs";
    const auto r = run_fone({"train",      "--init-from",  QString::fromStdString(kGolden + "llama"),
                             "--task",     "dec-add",      "--method",
                             "fone",       "--train-size", "512",
                             "--val-size", "32",           "--test-size",
                             "64",         "--epochs",     "3",
                             "--lr",       "3e-3",         "--batch",
                             "64",         "--threads",    "1",
                             "--runs-dir", runs,           "--name",
                             "tiny-llama"});
    QVERIFY2(r.code == 0, r.err.constData());
    const auto ev = json_lines(r.out);
    QCOMPARE(ev.last()["status"].toString(), QString("finished"));
    const QJsonObject config = read_json(runs + "/tiny-llama/config.json");
    QCOMPARE(config["init_from"].toString(), QString::fromStdString(kGolden + "llama"));
    QCOMPARE(config["model"].toObject()["hidden"].toInt(), 32);
    QCOMPARE(config["model"].toObject()["rope_scaling"].toObject()["type"].toString(), QString("llama3"));
    // The run is an ordinary run from here: evaluated and asked without the folder.
    const auto e = run_fone({"eval", "--run", "tiny-llama", "--runs-dir", runs});
    QVERIFY2(e.code == 0, e.err.constData());
    QVERIFY(first_line(e.out).contains("exact_match"));
    const auto p = run_fone({"predict", "--run", "tiny-llama", "--runs-dir", runs, "12.5+7.25="});
    QVERIFY2(p.code == 0, p.err.constData());
    // A digit run from the same folder, and a bad folder is bad input (status 2) that makes no run.
    const auto d = run_fone({"train",
                             "--init-from",
                             QString::fromStdString(kGolden + "llama"),
                             "--task",
                             "dec-add",
                             "--method",
                             "digit",
                             "--train-size",
                             "128",
                             "--val-size",
                             "16",
                             "--test-size",
                             "16",
                             "--epochs",
                             "1",
                             "--threads",
                             "1",
                             "--runs-dir",
                             runs,
                             "--name",
                             "tiny-digit"});
    QVERIFY2(d.code == 0, d.err.constData());
    const auto bad = run_fone(
        {"train", "--init-from", dir.path(), "--task", "dec-add", "--runs-dir", runs, "--name", "nothing"});
    QCOMPARE(bad.code, 2);
    QVERIFY2(bad.err.contains("no config.json"), bad.err.constData());
    QVERIFY(!QFile::exists(runs + "/nothing"));
}

// The folder is one layer of the run's settings (issue 40): `--dry-run --init-from DIR` shows the folder's
// shape and names it as the source, and the run trains that shape. A run opens the folder (config.json and
// every safetensors header: ModelFolder::open) once, to copy its weights; before that only config.json
// is read.
void TestInitFrom::the_folder_is_one_layer_and_opened_once() {
    const QString llama = QString::fromStdString(kGolden + "llama");
    const auto d = run_fone(
        {"train", "--init-from", llama, "--task", "dec-add", "--hidden", "64", "--dry-run", "--json"});
    QVERIFY2(d.code == 0, d.err.constData());
    const QJsonObject shown = first_line(d.out);
    const QJsonObject model = shown["config"].toObject()["model"].toObject();
    QCOMPARE(model["hidden"].toInt(), 32);  // the folder's, over --hidden 64
    QCOMPARE(model["kv_heads"].toInt(), 2);
    QCOMPARE(model["rope_scaling"].toObject()["type"].toString(), QString("llama3"));
    const QJsonObject sources = shown["sources"].toObject();
    for (const char* key : {"model.hidden", "model.layers", "model.rope_scaling", "size_level"})
        QCOMPARE(sources[key].toString(), "pretrained folder " + llama);
    QCOMPARE(sources["lr"].toString(), QString(fone::kSourcePretrained));

    QTemporaryDir dir;
    fone::RunStore store(dir.path().toStdString() + "/runs");
    // A run of `settings`: how it ended, how many times it opened a model folder, its model's shape.
    // (QCOMPARE returns from the function it is in: the checks are made by the test function itself.)
    struct Trained {
        QString status;
        int64_t opens = 0;
        QJsonObject model;
    };
    const auto train = [&](const nlohmann::json& settings) {
        const fone::TrainConfig c = fone::resolve_train_config({settings});
        const int64_t before = fp::folder_opens();
        const fone::TrainOutcome out = fone::train_new(c, store, [](const nlohmann::json&) {});
        Trained t{QString::fromStdString(out.status + " " + out.message), fp::folder_opens() - before, {}};
        if (out.status == fone::kStatusFinished)
            t.model = read_json(QString::fromStdString(out.run_dir) + "/config.json")["model"].toObject();
        return t;
    };
    const Trained arithmetic = train({{"task", "dec-add"},
                                      {"init_from", kGolden + "llama"},
                                      {"train_size", 64},
                                      {"val_size", 0},
                                      {"test_size", 8},
                                      {"epochs", 1},
                                      {"batch", 32},
                                      {"threads", 1},
                                      {"snapshots", "none"}});
    QVERIFY2(arithmetic.status.startsWith(fone::kStatusFinished), qPrintable(arithmetic.status));
    QCOMPARE(arithmetic.opens, int64_t{1});
    for (const char* key : {"hidden", "layers", "heads", "kv_heads", "head_dim", "intermediate"})
        QCOMPARE(arithmetic.model[key].toInt(), model[key].toInt());
    const QString corpus = dir.path() + "/corpus.txt";
    QFile f(corpus);
    QVERIFY(f.open(QIODevice::WriteOnly));
    for (int i = 0; i < 16; ++i)
        f.write(QString("In %1, %2 of %3 boxes cost %4 dollars.\n")
                    .arg(1990 + i)
                    .arg(125 * i + 7)
                    .arg(375 + i)
                    .arg(i * 2.5)
                    .toUtf8());
    f.close();
    const Trained adapter = train({{"task", "text"},
                                   {"data", corpus.toStdString()},
                                   {"method", "fone-adapter"},
                                   {"init_from", kGolden + "llama"},
                                   {"train_size", 8},
                                   {"val_size", 0},
                                   {"test_size", 4},
                                   {"text_context", 64},
                                   {"epochs", 1},
                                   {"batch", 4},
                                   {"threads", 1}});
    QVERIFY2(adapter.status.startsWith(fone::kStatusFinished), qPrintable(adapter.status));
    QCOMPARE(adapter.opens, int64_t{1});
}

QTEST_MAIN(TestInitFrom)
#include "test_init_from.moc"
