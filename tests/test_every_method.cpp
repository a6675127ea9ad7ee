// Every row of the methods table (fone/store/methods.h) trains through the engine (train_new) on arithmetic
// and on text, or is refused with one line that names the method; and each run ends with the weights it
// ended with before issue 40 moved every method's number head into the method's own file.
//
// tests/golden/method_weights.json holds the weights of those runs as the code before the refactor left
// them (the command that made it is in the file): their digest (FNV-1a over every parameter's bytes,
// weights_digest) and a sample, the first four values of every parameter. The same arithmetic on the same
// machine gives the same bytes, so where this LibTorch uses the BLAS kernel the file was made with, the
// digests must be equal: bit for bit the weights of before. Another kernel sums in another order (float32
// rounding, ~1e-7 relative per operation, a few steps), so elsewhere the samples must agree within 1e-4:
// an AdamW step of these runs moves a weight by up to lr = 3e-3, so a changed loss or input shows there.
//
// FONE_WRITE_GOLDEN=<file> writes the file instead of comparing (how it was made).
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <fstream>

#include "checkpoints/checkpoint_file.h"
#include "checkpoints/run_model.h"
#include "fone/io/json_files.h"
#include "fone/platform/blas_kernel.h"
#include "fone/store/methods.h"
#include "fone/store/run_store.h"
#include "fone/store/train_config.h"
#include "fone/train/training.h"

using namespace fone;
using nlohmann::json;

namespace {

const std::string kGolden = std::string(FONE_SOURCE_DIR) + "/tests/golden/method_weights.json";
const std::string kLlama = std::string(FONE_SOURCE_DIR) + "/tests/golden/pretrained/llama";

// A small corpus of documents full of numbers (fone-adapter's text).
void write_corpus(const std::string& path) {
    std::ofstream out(path);
    for (int i = 0; i < 24; ++i)
        out << "In " << 1990 + i << ", " << 125 * i + 7 << " of " << 375 + 13 * i << " boxes cost " << i * 2.5
            << " dollars.\n";
}

// The run of `method` on `kind` ("arithmetic" or "text"): the one-block model, one thread, a fixed seed.
json settings_of(const std::string& method, const std::string& kind, const std::string& corpus) {
    json s = {{"method", method},
              {"seed", 7},
              {"threads", 1},
              {"epochs", 1},
              {"batch", 32},
              {"val_size", 0},
              {"snapshots", "none"},
              {"size_level", 0},
              {"model",
               {{"hidden", 64},
                {"layers", 1},
                {"heads", 2},
                {"kv_heads", 1},
                {"head_dim", 32},
                {"intermediate", 128}}},
              {"bittokens_reciprocal", false}};  // 64 bits: they fit the 64-wide model zero-padded
    if (kind == "arithmetic") {
        s.update({{"task", "dec-add"}, {"sampling", "uniform"}, {"train_size", 64}, {"test_size", 16}});
    } else if (find_number_method(method) && find_number_method(method)->scheme == "pretrained-adapter") {
        s.update({{"task", "text"},
                  {"data", corpus},
                  {"init_from", kLlama},
                  {"train_size", 16},
                  {"test_size", 4},
                  {"text_context", 64}});
        s.erase("model");  // the folder's shape
    } else {
        s.update({{"task", "word-problems"}, {"train_size", 96}, {"test_size", 4}, {"text_vocab_size", 400}});
    }
    return s;
}

// What one run gives: its weights' digest and absolute sum, or the message it was refused with.
json run_of(const std::string& method, const std::string& kind, const std::string& corpus, RunStore& store) {
    try {
        const TrainConfig c = resolve_train_config({settings_of(method, kind, corpus)});
        const TrainOutcome out = train_new(c, store, [](const json&) {});
        if (out.status != kStatusFinished) return {{"failed", out.message}};
        const AnsweringRun a = open_for_answers(out.run_dir, 1, RunData::none);
        FoneTransformer model = a.run.model;
        std::vector<double> sample;
        for (const auto& p : model->parameters()) {
            const auto flat = p.detach().reshape({-1}).to(torch::kFloat64);
            for (int64_t i = 0; i < std::min<int64_t>(4, flat.numel()); ++i)
                sample.push_back(flat[i].item<double>());
        }
        return {{"digest", weights_digest(model)}, {"sample", sample}};
    } catch (const std::exception& e) {
        return {{"refused", e.what()}};
    }
}

std::string blas_core() {
    const BlasInfo b = torch_blas();
    return b.openblas ? b.core : "not OpenBLAS";
}

}  // namespace

class TestEveryMethod : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void every_method_trains_or_is_refused_in_one_line() {
        QTemporaryDir dir;
        RunStore store(dir.path().toStdString() + "/runs");
        const std::string corpus = dir.path().toStdString() + "/corpus.txt";
        write_corpus(corpus);
        json runs = json::object();
        for (const NumberMethod& m : number_methods())
            for (const std::string kind : {"arithmetic", "text"})
                runs[kind + "/" + m.name] = run_of(m.name, kind, corpus, store);
        const char* write_to = std::getenv("FONE_WRITE_GOLDEN");
        if (write_to) {
            const json golden = {{"made_by",
                                  "FONE_WRITE_GOLDEN=tests/golden/method_weights.json "
                                  "build/bin/test_every_method (the code before issue 40)"},
                                 {"torch", TORCH_VERSION},
                                 {"blas_core", blas_core()},
                                 {"runs", runs}};
            std::ofstream(write_to) << golden.dump(2) << "\n";
            qInfo("wrote %s", write_to);
            return;
        }
        const json golden = read_json_file(kGolden);
        const bool same_arithmetic = golden["torch"] == TORCH_VERSION && golden["blas_core"] == blas_core();
        qInfo("LibTorch %s, BLAS kernel %s (the golden file's: %s, %s): %s", TORCH_VERSION,
              blas_core().c_str(), golden["torch"].get<std::string>().c_str(),
              golden["blas_core"].get<std::string>().c_str(),
              same_arithmetic ? "digests compared bit for bit, samples within 1e-4"
                              : "another kernel: samples compared within 1e-4");
        for (const auto& [key, run] : runs.items()) {
            const std::string method = key.substr(key.find('/') + 1);
            const QByteArray where = QByteArray::fromStdString(key + ": " + run.dump());
            QVERIFY2(!run.contains("failed"), where.constData());
            const json& before = golden["runs"][key];
            if (run.contains("refused")) {
                // Refused on this kind of data: one line, naming the method.
                const std::string why = run["refused"];
                QVERIFY2(before.contains("refused"), where.constData());
                QVERIFY2(why.find('\n') == std::string::npos, where.constData());
                QVERIFY2(why.find(method) != std::string::npos, where.constData());
                continue;
            }
            QVERIFY2(before.contains("digest"), where.constData());
            if (same_arithmetic) QVERIFY2(run["digest"] == before["digest"], where.constData());
            const std::vector<double> now = run["sample"], then = before["sample"];
            QVERIFY2(now.size() == then.size(), where.constData());
            for (std::size_t i = 0; i < now.size(); ++i)
                QVERIFY2(std::fabs(now[i] - then[i]) <= 1e-4, where.constData());
        }
        // Every method trains on arithmetic or text, and every text method of the table on text.
        for (const NumberMethod& m : number_methods())
            if (m.text) QVERIFY2(runs["text/" + m.name].contains("digest"), m.name.c_str());
    }
};

QTEST_GUILESS_MAIN(TestEveryMethod)
#include "test_every_method.moc"
