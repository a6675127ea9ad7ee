// fone-adapter, the paper's simplified FoNE on a pretrained model (schemes/adapter_scheme.h): numbers stay in
// the model's own tokens, and each number piece's embedding gets a learned projection of its FoNE added,
// zero at the start. On the tiny Llama of tests/golden/pretrained/llama: the run starts as exactly the
// pretrained model (its logits with the adapter bit for bit those without it, and the folder's own forward
// to float rounding); the alignment phase changes the projection alone; `fone export --format hf` merges the
// adapter into the embedding table and the export reopens with the run's logits to float rounding; bad input
// is refused.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <fstream>

#include "checkpoints/run_model.h"
#include "fone/hf/forward.h"
#include "fone/pretrained/model_folder.h"
#include "fone/store/train_config.h"
#include "fone_process.h"
#include "schemes/adapter_scheme.h"

namespace fp = fone::pretrained;
using namespace fone_test;

namespace {

const std::string kLlama = std::string(FONE_SOURCE_DIR) + "/tests/golden/pretrained/llama";
const std::string kPrompt = "Q: What is 98 plus 45?\n\nA: 143. In 2024, 1,250 of 3,750 were 33.5%.";

// A small corpus full of numbers, one document a line.
void write_corpus(const QString& path) {
    std::ofstream out(path.toStdString());
    for (int i = 0; i < 48; ++i)
        out << "In " << 1990 + i << ", " << 125 * i + 7 << " of " << 375 + 13 * i << " boxes cost " << i * 2.5
            << " dollars; " << 98 + i << " plus " << 45 + 2 * i << " is " << 143 + 3 * i << ".\n";
}

fone::TrainConfig config_for(const QString& corpus, const std::string& folder = kLlama) {
    return fone::resolve_train_config({{{"task", "text"},
                                        {"data", corpus.toStdString()},
                                        {"method", "fone-adapter"},
                                        {"train_size", 32},
                                        {"val_size", 8},
                                        {"test_size", 8},
                                        {"text_context", 64},
                                        {"init_from", folder}}});
}

// The run model's logits [L, vocab] for the scheme's tokens of `text`, with or without the adapter's input.
torch::Tensor logits_of(fone::RunModel& r, const std::string& text, bool adapter) {
    torch::NoGradGuard no_grad;
    fone::Batch b = r.scheme->encode_prompt(text);
    if (!adapter) b.in.fone = b.in.num_mask = torch::Tensor();
    return r.model->lm_logits(r.model->forward(b.in, false))[0];
}

std::vector<int64_t> ids_of(const fone::RunModel& r, const std::string& text) {
    const fone::Batch b = r.scheme->encode_prompt(text);
    const auto t = b.in.tokens[0].contiguous();
    return {t.data_ptr<int64_t>(), t.data_ptr<int64_t>() + t.numel()};
}

double max_difference(const torch::Tensor& a, const std::vector<float>& b) {
    return (a - torch::tensor(b)).abs().max().item<double>();
}

QStringList train_args(const QString& corpus, const QString& runs, const QString& name, int align_steps) {
    return {"train",
            "--init-from",
            QString::fromStdString(kLlama),
            "--method",
            "fone-adapter",
            "--task",
            "text",
            "--data",
            corpus,
            "--train-size",
            "32",
            "--val-size",
            "8",
            "--test-size",
            "8",
            "--context",
            "64",
            "--batch",
            "4",
            "--epochs",
            "1",
            "--lr",
            "0.01",
            "--warmup",
            "0",
            "--align-steps",
            QString::number(align_steps),
            "--snapshots",
            "none",
            "--threads",
            "1",
            "--runs-dir",
            runs,
            "--name",
            name};
}

// Every parameter of two models: equal bit for bit (false) or the names that differ.
QStringList changed_parameters(fone::FoneTransformer& a, fone::FoneTransformer& b) {
    QStringList changed;
    const auto pa = a->named_parameters(), pb = b->named_parameters();
    for (const auto& p : pa)
        if (!torch::equal(p.value(), pb[p.key()])) changed << QString::fromStdString(p.key());
    return changed;
}

}  // namespace

class TestFoneAdapter : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void number_pieces_of_a_llama3_tokenizer();
    void starts_as_the_pretrained_model();
    void alignment_trains_the_projection_alone_then_export();
    void bad_input_is_refused();
    void an_adapter_run_answers_every_command();
};

void TestFoneAdapter::number_pieces_of_a_llama3_tokenizer() {
    const fp::BpeTokenizer llama3 = fp::BpeTokenizer::load(FONE_LLAMA3_TOKENIZER);
    const std::vector<int> values = fone::number_piece_values(llama3, 128256);
    // Llama-3's pieces of one to three digits: all 1,110 of "0".."999" and "00".."099", "000".."009"...
    int pieces = 0;
    for (const int v : values)
        pieces += v >= 0;
    QCOMPARE(pieces, 10 + 100 + 1000);
    const auto id = llama3.single_token("527");
    QVERIFY(id.has_value());
    QCOMPARE(values[static_cast<std::size_t>(*id)], 527);
    QCOMPARE(values[static_cast<std::size_t>(*llama3.single_token("007"))], 7);
    QCOMPARE(values[static_cast<std::size_t>(*llama3.single_token(" the"))], -1);
    // "12345" is "123" + "45": two pieces, as the model reads it.
    const std::vector<int64_t> split = llama3.encode("12345", false);
    QCOMPARE(split.size(), std::size_t{2});
    QCOMPARE(values[static_cast<std::size_t>(split[0])], 123);
    QCOMPARE(values[static_cast<std::size_t>(split[1])], 45);
    // FoNE of a piece: periods 10, 100, 1000, no sign (width 6); 45: cos/sin of 2 pi 45 / T.
    const fone::FoneSpec spec = fone::adapter_spec();
    QCOMPARE(spec.width(), 6);
    const std::vector<double> f = fone::encode(fone::Decimal::from_int(45), spec);
    QVERIFY(std::abs(f[0] - std::cos(2 * M_PI * 45 / 10)) < 1e-12);
    QVERIFY(std::abs(f[5] - std::sin(2 * M_PI * 45 / 1000)) < 1e-12);
}

void TestFoneAdapter::starts_as_the_pretrained_model() {
    QTemporaryDir dir;
    write_corpus(dir.path() + "/corpus.txt");
    torch::manual_seed(3);
    fone::RunModel r = fone::open_run_model(config_for(dir.path() + "/corpus.txt"), dir.path().toStdString(),
                                            fone::RunData::batches);
    r.model->eval();
    QCOMPARE(r.config.model.vocab_size, 320);  // the model's whole vocabulary
    QVERIFY(r.model->fone_map);
    QCOMPARE(r.model->fone_map->weight.abs().sum().item<double>(), 0.0);
    // The prompt has number pieces, and the adapter's input reaches them.
    const fone::Batch b = r.scheme->encode_prompt(kPrompt);
    QVERIFY(b.in.num_mask.sum().item<int64_t>() >= 10);
    // Step 0: with the adapter exactly the model without it (x + 0 is x), at every position.
    const torch::Tensor with = logits_of(r, kPrompt, true), without = logits_of(r, kPrompt, false);
    QVERIFY(torch::equal(with, without));
    // And the folder's own forward (checked against transformers in test_pretrained) to float rounding:
    // the run's fused q|k|v and gate|up products sum in another order.
    const fp::ModelFolder folder = fp::ModelFolder::open(kLlama);
    const fp::ForwardResult want = fp::forward_last(folder, ids_of(r, kPrompt), 1);
    const double d = max_difference(with[-1], want.logits_last);
    qInfo("step 0: largest |run - folder| logit difference %.3g", d);
    QVERIFY2(d < 1e-5, qPrintable(QString::number(d)));
    // The run keeps the folder's config and tokenizer: it answers and exports without the folder.
    QVERIFY(QFile::exists(dir.path() + "/pretrained/tokenizer.json"));
    QVERIFY(QFile::exists(dir.path() + "/pretrained/config.json"));
}

void TestFoneAdapter::alignment_trains_the_projection_alone_then_export() {
    QTemporaryDir dir;
    const QString corpus = dir.path() + "/corpus.txt", runs = dir.path() + "/runs";
    write_corpus(corpus);
    const auto r = run_fone(train_args(corpus, runs, "aligned", -1));
    QVERIFY2(r.code == 0, r.err.constData());
    QCOMPARE(json_lines(r.out).last()["status"].toString(), QString("finished"));
    // Only the projection changed: the trained run against the pretrained model it started from.
    fone::AnsweringRun trained =
        fone::open_for_answers((runs + "/aligned").toStdString(), 1, fone::RunData::none);
    const fone::TrainConfig c = config_for(corpus);
    torch::manual_seed(c.seed);  // as the trainer does: any weight the folder does not set starts alike
    fone::RunModel start = fone::open_run_model(c, "", fone::RunData::batches);
    QCOMPARE(changed_parameters(trained.run.model, start.model),
             QStringList({"fone_map.weight", "fone_map.bias"}));
    // After a one-step alignment phase every weight trains.
    const auto all = run_fone(train_args(corpus, runs, "then-all", 1));
    QVERIFY2(all.code == 0, all.err.constData());
    fone::AnsweringRun after =
        fone::open_for_answers((runs + "/then-all").toStdString(), 1, fone::RunData::none);
    QVERIFY(changed_parameters(after.run.model, start.model).contains("embed.weight"));

    // The export: a plain Llama folder whose logits are the run's.
    const QString out = dir.path() + "/exported";
    const auto e =
        run_fone({"export", "--run", "aligned", "--runs-dir", runs, "--out", out, "--format", "hf"});
    QVERIFY2(e.code == 0, e.err.constData());
    for (const char* f : {"config.json", "model.safetensors", "tokenizer.json"})
        QVERIFY2(QFile::exists(out + "/" + f), f);
    QCOMPARE(read_json(out + "/config.json")["tie_word_embeddings"].toBool(true), false);
    // Issue 44: a received run whose pretrained/ holds a link among the kept names and a file of another
    // name (a private key): the export refused the link in one line, and never copies the other file
    // (before: every entry of pretrained/ was copied, links followed).
    {
        const QString kept = runs + "/aligned/pretrained";
        QFile secret(dir.path() + "/id_rsa");
        QVERIFY(secret.open(QIODevice::WriteOnly));
        secret.write("PRIVATE-KEY-MATERIAL");
        secret.close();
        QVERIFY(QFile::copy(secret.fileName(), kept + "/id_rsa"));
        QVERIFY(QFile::link(secret.fileName(), kept + "/tokenizer_config.json"));
        const QString out2 = dir.path() + "/exported-2";
        const auto refused =
            run_fone({"export", "--run", "aligned", "--runs-dir", runs, "--out", out2, "--format", "hf"});
        QVERIFY(refused.code != 0 && !QFileInfo::exists(out2));
        QVERIFY2(
            refused.err.contains("tokenizer_config.json: is a symbolic link") && refused.err.count('\n') == 1,
            refused.err.constData());
        QVERIFY(QFile::remove(kept + "/tokenizer_config.json"));
        const auto clean =
            run_fone({"export", "--run", "aligned", "--runs-dir", runs, "--out", out2, "--format", "hf"});
        QVERIFY2(clean.code == 0, clean.err.constData());
        QVERIFY(QFile::exists(out2 + "/tokenizer.json") && !QFile::exists(out2 + "/id_rsa"));
        QVERIFY(QFile::remove(kept + "/id_rsa"));
    }
    const torch::Tensor run_logits = logits_of(trained.run, kPrompt, true);
    // Our reader on the export: the folder forward (float rounding apart, as at step 0).
    const fp::ModelFolder exported = fp::ModelFolder::open(out.toStdString());
    const double d = max_difference(run_logits[-1],
                                    fp::forward_last(exported, ids_of(trained.run, kPrompt), 1).logits_last);
    qInfo("export: largest |run - exported folder| logit difference %.3g", d);
    QVERIFY2(d < 1e-5, qPrintable(QString::number(d)));
    // The export as a new fone-adapter run's start: the same network, but the export summed each number
    // piece's row e + (W f + b) once, in the `fone` process, where the run sums it at every forward, here.
    // The two processes may use different BLAS kernels (with no OPENBLAS_CORETYPE set, `fone` can pick a
    // better kernel than this test's process has: docs/training.md, "The BLAS kernel"), so W f may differ
    // in its last bits (a few ulps of float32), and the logits by float rounding: the bound of the folder
    // comparisons above. Bit-equality held only where both processes ran one kernel.
    fone::RunModel reopened =
        fone::open_run_model(config_for(corpus, out.toStdString()), "", fone::RunData::batches);
    reopened.model->eval();
    const double dr = (logits_of(reopened, kPrompt, true) - run_logits).abs().max().item<double>();
    qInfo("export reopened as a run: largest logit difference %.3g", dr);
    QVERIFY2(dr < 1e-5, qPrintable(QString::number(dr)));
    // The adapter moved the number pieces' rows and no other.
    const auto merged = reopened.model->embed->weight, original = start.model->embed->weight;
    const auto& scheme = dynamic_cast<const fone::AdapterScheme&>(*start.scheme);
    const auto moved = (merged - original).abs().sum(1).gt(0);
    QVERIFY(torch::equal(moved, scheme.piece_mask()));
}

void TestFoneAdapter::bad_input_is_refused() {
    QTemporaryDir dir;
    const QString corpus = dir.path() + "/corpus.txt", runs = dir.path() + "/runs";
    write_corpus(corpus);
    // A folder without a tokenizer: refused before a run directory exists.
    const QString bare = dir.path() + "/no-tokenizer";
    QDir().mkpath(bare);
    for (const char* f : {"config.json", "model.safetensors"})
        QFile::copy(QString::fromStdString(kLlama + "/" + f), bare + "/" + f);
    QStringList args = train_args(corpus, runs, "bare", -1);
    args[args.indexOf(QString::fromStdString(kLlama))] = bare;
    const auto t = run_fone(args);
    QCOMPARE(t.code, 2);
    QVERIFY2(t.err.contains("has no tokenizer.json") && t.err.count('\n') == 1, t.err.constData());
    QVERIFY(!QFile::exists(runs + "/bare"));
    // Issue 44: a tokenizer without number pieces trained to "finished" with 0/0 shown as 0%: refused.
    const QString no_numbers = dir.path() + "/no-number-pieces";
    QDir().mkpath(no_numbers);
    for (const char* f : {"config.json", "model.safetensors"})
        QFile::copy(QString::fromStdString(kLlama + "/" + f), no_numbers + "/" + f);
    {
        QFile in(QString::fromStdString(kLlama + "/tokenizer.json"));
        QVERIFY(in.open(QIODevice::ReadOnly));
        QJsonObject tok = QJsonDocument::fromJson(in.readAll()).object();
        QJsonObject model = tok["model"].toObject(), vocab = model["vocab"].toObject(), renamed;
        const auto has_ascii_digit = [](const QString& t) {
            return std::any_of(t.begin(), t.end(), [](QChar c) { return c >= '0' && c <= '9'; });
        };
        for (auto it = vocab.begin(); it != vocab.end(); ++it)
            renamed[has_ascii_digit(it.key()) ? "<d" + it.key() + ">" : it.key()] = it.value();
        QJsonArray merges;
        for (const QJsonValue& m : model["merges"].toArray()) {
            const QString text =
                m.isArray() ? m.toArray()[0].toString() + m.toArray()[1].toString() : m.toString();
            if (!has_ascii_digit(text)) merges.append(m);
        }
        model["vocab"] = renamed;
        model["merges"] = merges;
        tok["model"] = model;
        QFile out(no_numbers + "/tokenizer.json");
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(QJsonDocument(tok).toJson());
    }
    args = train_args(corpus, runs, "no-numbers", -1);
    args[args.indexOf(QString::fromStdString(kLlama))] = no_numbers;
    const auto nothing = run_fone(args);
    QCOMPARE(nothing.code, 2);
    QVERIFY2(nothing.err.contains("has no number pieces") && nothing.err.count('\n') == 1,
             nothing.err.constData());
    QVERIFY(!QFile::exists(runs + "/no-numbers"));
    // fone-adapter without --init-from, and --init-from on text with another method.
    const auto no_folder = run_fone(
        {"train", "--method", "fone-adapter", "--task", "text", "--data", corpus, "--runs-dir", runs});
    QCOMPARE(no_folder.code, 2);
    QVERIFY2(no_folder.err.contains("needs --init-from"), no_folder.err.constData());
    // An export of a run of another method, and an export target that exists.
    const auto digit = run_fone(
        {"train", "--task",      "dec-add", "--method",   "digit", "--train-size", "64",   "--val-size",
         "8",     "--test-size", "8",       "--epochs",   "1",     "--hidden",     "16",   "--layers",
         "1",     "--heads",     "2",       "--kv-heads", "2",     "--head-dim",   "8",    "--intermediate",
         "32",    "--threads",   "1",       "--runs-dir", runs,    "--name",       "digit"});
    QVERIFY2(digit.code == 0, digit.err.constData());
    const auto other = run_fone(
        {"export", "--run", "digit", "--runs-dir", runs, "--out", dir.path() + "/x", "--format", "hf"});
    QVERIFY(other.code != 0);  // as export's other errors (status 1)
    QVERIFY2(other.err.contains("only a fone-adapter run") && other.err.count('\n') == 1,
             other.err.constData());
    QVERIFY(!QFile::exists(dir.path() + "/x"));
    const auto taken =
        run_fone({"export", "--run", "digit", "--runs-dir", runs, "--out", runs, "--format", "hf"});
    QVERIFY(taken.code != 0);
    QVERIFY2(taken.err.contains("exists") && taken.err.count('\n') == 1, taken.err.constData());
}

// A fone-adapter run is a kind of run every command asks about (issue 40): eval gives its loss and
// perplexity, generate continues a prompt (the model's own greedy choice, token by token), the arithmetic
// benchmark asks it as it asks a model folder, token-loss compares it over its test documents, and predict
// refuses it in the sentence every command uses, naming what answers it.
void TestFoneAdapter::an_adapter_run_answers_every_command() {
    QTemporaryDir dir;
    const QString corpus = dir.path() + "/corpus.txt", runs = dir.path() + "/runs";
    write_corpus(corpus);
    const auto t = run_fone(train_args(corpus, runs, "asked", 1));
    QVERIFY2(t.code == 0, t.err.constData());
    // The start event counts the corpus's numbers in the model's pieces (not 1, from no arithmetic split).
    const QJsonObject start = json_lines(t.out).first();
    QVERIFY2(start["tokens_per_number"].toDouble() > 1.0, t.out.constData());
    QVERIFY(start["text"].toObject()["number_pieces"].toInt() > 0);

    // eval: its test split with the run's best checkpoint (as for every run: the evaluation with the highest
    // exact match, the later of equals), as the run's own evaluation at that step scored it.
    const auto e = run_fone({"eval", "--run", "asked", "--runs-dir", runs, "--threads", "1"});
    QVERIFY2(e.code == 0, e.err.constData());
    const QJsonObject m = json_lines(e.out).first();
    QVERIFY2(m["checkpoint"].toString().endsWith("checkpoint-best.safetensors"), e.out.constData());
    QFile metrics(runs + "/asked/metrics.jsonl");
    QVERIFY(metrics.open(QIODevice::ReadOnly));
    QJsonObject best_eval;
    for (const QJsonObject& event : json_lines(metrics.readAll()))
        if (event["event"].toString() == "eval" &&
            (best_eval.isEmpty() || event["exact_match"].toDouble() >= best_eval["exact_match"].toDouble()))
            best_eval = event;
    QCOMPARE(best_eval["exact_match"].toDouble(),
             read_json(runs + "/asked/summary.json")["best_exact_match"].toDouble());
    QVERIFY(m["loss"].toDouble() > 0);
    QCOMPARE(m["loss"].toDouble(), best_eval["loss"].toDouble());
    QCOMPARE(m["exact_match"].toDouble(), best_eval["exact_match"].toDouble());
    QVERIFY(std::abs(m["perplexity"].toDouble() - std::exp(m["loss"].toDouble())) <
            1e-9 * m["perplexity"].toDouble());
    QVERIFY(m["number_tokens"].toInt() > 0);
    const auto e_file = run_fone({"eval", "--run", "asked", "--runs-dir", runs, "--data", corpus});
    QVERIFY2(e_file.code == 0, e_file.err.constData());
    QVERIFY(json_lines(e_file.out).first()["n"].toInt() > 0);

    // generate: greedy, every token the most probable under the whole sequence's forward (no cache).
    const std::string prompt = "In 1991, 132 of";
    const auto g = run_fone({"generate", "--run", "asked", "--runs-dir", runs, "--max-tokens", "6",
                             "--threads", "1", "--json", QString::fromStdString(prompt)});
    QVERIFY2(g.code == 0, g.err.constData());
    const QList<QJsonObject> events = json_lines(g.out);
    const QJsonObject end = events.last();
    QCOMPARE(end["event"].toString(), QString("end"));
    QCOMPARE(end["tokens"].toInt(), static_cast<int>(events.size()) - 1);
    QString streamed;
    for (int i = 0; i + 1 < events.size(); ++i)
        streamed += events[i]["text"].toString();
    QCOMPARE(streamed, end["text"].toString());
    // (Opening the run to answer, as eval, generate and token-loss do, opens a model folder once at most.)
    const int64_t opens = fp::folder_opens();
    fone::AnsweringRun a = fone::open_for_answers((runs + "/asked").toStdString(), 1, fone::RunData::none);
    qInfo("opening the run to answer opened %lld model folder(s)",
          static_cast<long long>(fp::folder_opens() - opens));
    QVERIFY(fp::folder_opens() - opens <= 1);
    std::vector<int64_t> ids = a.run.adapter->ids_of(prompt);
    for (int i = 0; i + 1 < events.size(); ++i) {
        torch::NoGradGuard no_grad;
        fone::ModelInputs in;
        in.tokens = torch::tensor(ids, torch::kInt64).unsqueeze(0);
        a.run.adapter->add_number_inputs(in);
        const int64_t best =
            a.run.model->lm_logits(a.run.model->forward(in, false))[0][-1].argmax().item<int64_t>();
        QCOMPARE(static_cast<int64_t>(events[i]["id"].toInteger()), best);
        ids.push_back(best);
    }

    // The arithmetic benchmark asks it as a model folder is asked.
    const auto b = run_fone({"eval", "--benchmark", "arithmetic", "--run", "asked", "--runs-dir", runs,
                             "--problems", "2", "--tasks", "2D+", "--json", "--threads", "1"});
    QVERIFY2(b.code == 0, b.err.constData());
    const QJsonObject bj = json_lines(b.out).first();
    QCOMPARE(bj["source"].toString(), QString("run"));
    QCOMPARE(bj["tasks"].toArray()[0].toObject()["n"].toInt(), 2);

    // token-loss: its test documents piece by piece; the pieces' losses are the document's whole loss.
    const auto l = run_fone({"analyse", "token-loss", "--runs-dir", runs, "--run", "asked", "--against",
                             "asked", "--doc", "0", "--json"});
    QVERIFY2(l.code == 0, l.err.constData());
    const QJsonObject lj = json_lines(l.out).first();
    double pieces_loss = 0;
    int numbers = 0;
    for (const auto& p : lj["pieces"].toArray()) {
        pieces_loss += p.toObject()["loss_a"].toDouble();
        numbers += p.toObject()["number"].toBool();
    }
    QVERIFY(numbers > 0);
    fone::AnsweringRun s = fone::open_for_answers((runs + "/asked").toStdString(), 1, fone::RunData::splits);
    const std::vector<int64_t> doc = s.run.adapter->ids_of(fone::write_example(s.run.text_splits.test[0]));
    {
        torch::NoGradGuard no_grad;
        fone::ModelInputs in;
        in.tokens = torch::tensor(doc, torch::kInt64).unsqueeze(0);
        s.run.adapter->add_number_inputs(in);
        const auto logp = torch::log_softmax(s.run.model->lm_logits(s.run.model->forward(in, false))[0], -1);
        double whole = 0;
        for (std::size_t j = 1; j < doc.size(); ++j)
            whole -= logp[static_cast<int64_t>(j) - 1][doc[j]].item<double>();
        QVERIFY2(std::abs(whole - pieces_loss) < 1e-6 * whole,
                 qPrintable(QString("%1 %2").arg(whole).arg(pieces_loss)));
    }

    // predict asks arithmetic runs: one line that names what does answer this one.
    const auto p = run_fone({"predict", "--run", "asked", "--runs-dir", runs, "1+2="});
    QVERIFY(p.code != 0);
    QVERIFY2(p.err.contains("asked is a fone-adapter run") && p.err.contains("fone generate") &&
                 p.err.trimmed().count('\n') == 0,
             p.err.constData());
}

QTEST_MAIN(TestFoneAdapter)
#include "test_fone_adapter.moc"
