// Generation from a pretrained model folder against transformers: greedy continuations of the tiny random
// models of every family (tests/golden/pretrained/, written by scripts/make-generation-goldens.py with
// transformers' generate) must be the same tokens; the KV cache must give the logits of running the whole
// sequence at every step; `fone model generate` streams the same text, and its JSON and errors keep their
// contract.
#include <QtTest>
#include <cmath>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "fone/hf/forward.h"
#include "fone/hf/generate.h"
#include "fone/pretrained/model_folder.h"
#include "fone/pretrained/tokenizer.h"
#include "fone_process.h"

namespace fp = fone::pretrained;
using nlohmann::json;

namespace {

const std::string kGolden = std::string(FONE_SOURCE_DIR) + "/tests/golden/pretrained/";

json read_golden() {
    std::ifstream in(kGolden + "generations.json");
    std::stringstream s;
    s << in.rdbuf();
    return json::parse(s.str());
}

double max_difference(const std::vector<float>& a, const std::vector<float>& b) {
    if (a.size() != b.size()) return INFINITY;
    double worst = 0;
    for (std::size_t i = 0; i < a.size(); ++i)
        worst = std::max(worst, static_cast<double>(std::abs(a[i] - b[i])));
    return worst;
}

}  // namespace

class TestModelGenerate : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void greedy_matches_transformers_data() {
        QTest::addColumn<QString>("folder");
        const json golden = read_golden();
        for (const auto& [name, rows] : golden["models"].items())
            QTest::newRow(name.c_str()) << QString::fromStdString(name);
    }

    // Every golden prompt of the family: the same prompt ids from the tokenizer, the same new tokens.
    void greedy_matches_transformers() {
        QFETCH(QString, folder);
        const json rows = read_golden()["models"][folder.toStdString()];
        QVERIFY(rows.size() >= 2);
        const fp::ModelFolder m = fp::ModelFolder::open(kGolden + folder.toStdString());
        const fp::BpeTokenizer tok = fp::BpeTokenizer::load(m.tokenizer_path());
        fp::FolderGenerator g(m, 1);
        for (const json& row : rows) {
            const std::vector<int64_t> prompt = tok.encode(row["prompt"].get<std::string>());
            QCOMPARE(prompt, row["prompt_ids"].get<std::vector<int64_t>>());
            fp::GenerationSettings s;
            s.max_new_tokens = read_golden()["max_new_tokens"].get<int>();
            const fp::Generation out = g.generate(prompt, s);
            QCOMPARE(out.ids, row["new_ids"].get<std::vector<int64_t>>());
            QCOMPARE(
                out.stop,
                std::string(static_cast<int>(out.ids.size()) < s.max_new_tokens ? "eos" : "max_new_tokens"));
        }
    }

    // The cache path's logits at every step equal the no-cache path's (the whole sequence again) and
    // the one-pass logits at every position of the final sequence, for every family.
    void cache_equals_no_cache_data() { greedy_matches_transformers_data(); }
    void cache_equals_no_cache() {
        QFETCH(QString, folder);
        const fp::ModelFolder m = fp::ModelFolder::open(kGolden + folder.toStdString());
        fp::FolderGenerator g(m, 1);
        fp::GenerationSettings s;
        s.max_new_tokens = 12;
        s.stop_at_eos = false;
        s.keep_logits = true;
        const std::vector<int64_t> prompt = {5, 17, 42, 64, 128, 7};
        const fp::Generation cached = g.generate(prompt, s);
        s.use_cache = false;
        const fp::Generation plain = g.generate(prompt, s);
        QCOMPARE(cached.ids, plain.ids);
        std::vector<int64_t> whole = prompt;
        whole.insert(whole.end(), cached.ids.begin(), cached.ids.end() - 1);
        const std::vector<std::vector<float>> one_pass = g.all_logits(whole);
        for (std::size_t i = 0; i < cached.step_logits.size(); ++i) {
            QVERIFY2(max_difference(cached.step_logits[i], plain.step_logits[i]) < 1e-4,
                     qPrintable(QString("step %1").arg(i)));
            QVERIFY(max_difference(cached.step_logits[i], one_pass[prompt.size() - 1 + i]) < 1e-4);
        }
        // and the first step is the forward pass the golden tests check against transformers
        QVERIFY(max_difference(cached.step_logits[0], fp::forward_last(m, prompt, 1).logits_last) < 1e-5);
    }

    // The benchmark's check (lm-eval's is_greedy) on transformers' continuations: their first tokens are
    // what greedy writes; one token changed is not.
    void greedy_check_on_golden_continuations() {
        const json golden = read_golden();
        for (const auto& [name, rows] : golden["models"].items()) {
            const fp::ModelFolder m = fp::ModelFolder::open(kGolden + name);
            fp::FolderGenerator g(m, 1);
            const json& row = rows[0];
            const auto context = row["prompt_ids"].get<std::vector<int64_t>>();
            auto continuation = row["new_ids"].get<std::vector<int64_t>>();
            continuation.resize(std::min<std::size_t>(continuation.size(), 5));
            QVERIFY2(g.writes_greedily(context, continuation), name.c_str());
            continuation.back() = (continuation.back() + 1) % m.config().vocab_size;
            QVERIFY2(!g.writes_greedily(context, continuation), name.c_str());
        }
    }

    // Sampling: the same seed draws the same tokens; top-k 1 is greedy whatever the temperature.
    void sampling_is_seeded() {
        const fp::ModelFolder m = fp::ModelFolder::open(kGolden + "llama");
        fp::FolderGenerator g(m, 1);
        fp::GenerationSettings s;
        s.max_new_tokens = 10;
        s.stop_at_eos = false;
        const std::vector<int64_t> prompt = {0, 17, 42};
        const auto greedy = g.generate(prompt, s).ids;
        s.temperature = 1.5;
        s.seed = 7;
        const auto a = g.generate(prompt, s).ids, b = g.generate(prompt, s).ids;
        QCOMPARE(a, b);
        s.seed = 8;
        QVERIFY(g.generate(prompt, s).ids != a);  // 10 draws at T = 1.5 from a random model
        s.top_k = 1;
        QCOMPARE(g.generate(prompt, s).ids, greedy);
    }

    void learned_positions_end_generation() {
        const fp::ModelFolder m = fp::ModelFolder::open(kGolden + "gpt2-fp16");  // 64 positions
        fp::FolderGenerator g(m, 1);
        fp::GenerationSettings s;
        s.max_new_tokens = 100;
        s.stop_at_eos = false;
        const fp::Generation out = g.generate(std::vector<int64_t>(60, 5), s);
        QCOMPARE(out.stop, std::string("max_positions"));
        QCOMPARE(out.ids.size(), std::size_t{4});  // positions 60..63
    }

    // Through `fone`: the JSON's ids are transformers' (pythia's second prompt: a continuation that ends
    // at <|endoftext|>), one "token" line per new token, and the plain text is those tokens' bytes.
    void cli_streams_the_golden_tokens() {
        const json row = read_golden()["models"]["pythia"][0];
        const QString dir = QString::fromStdString(kGolden + "pythia");
        const QString prompt = QString::fromStdString(row["prompt"].get<std::string>());
        const auto j = fone_test::run_fone({"model", "generate", dir, prompt, "--json", "--threads", "1"});
        QVERIFY2(j.code == 0, j.err.constData());
        const QList<QByteArray> lines = j.out.trimmed().split('\n');
        const json end = json::parse(lines.back().toStdString());
        QCOMPARE(end["event"].get<std::string>(), std::string("end"));
        QCOMPARE(end["ids"].get<std::vector<int64_t>>(), row["new_ids"].get<std::vector<int64_t>>());
        QCOMPARE(end["stop"].get<std::string>(), std::string("eos"));
        QCOMPARE(static_cast<int>(lines.size()), end["tokens"].get<int>() + 1);
        for (const char* key : {"prompt_ids", "text", "first_token_seconds", "seconds", "tokens_per_second"})
            QVERIFY2(end.contains(key), key);
        QCOMPARE(json::parse(lines.front().toStdString())["id"].get<int64_t>(), end["ids"][0].get<int64_t>());
        const auto plain = fone_test::run_fone({"model", "generate", dir, prompt, "--threads", "1"});
        QVERIFY2(plain.code == 0, plain.err.constData());
        QCOMPARE(plain.out.toStdString(), row["text"].get<std::string>() + "\n");  // "16<|endoftext|>"
        QVERIFY(plain.err.contains("stop: eos"));
    }

    // Issue 44: generation had no memory check (a 60,000-token prompt allocated until LibTorch failed with
    // a 4 KB backtrace; `model forward` refused the same with a figure). Refused before any allocation, with
    // the figure; a prompt that fits still runs. (FONE_TEST_PHYSICAL_MEMORY makes the machine 1 GB.)
    void generation_memory_is_checked_first() {
        const fp::ModelFolder m = fp::ModelFolder::open(kGolden + "llama");
        fp::FolderGenerator g(m, 1);
        fp::GenerationSettings s;
        s.max_new_tokens = 2;
        std::string why;
        try {
            g.generate(std::vector<int64_t>(300000, 17), s);
        } catch (const fp::PretrainedError& e) {
            why = e.what();
        }
        QVERIFY2(
            why.find("needs about") != std::string::npos && why.find("300000 tokens") != std::string::npos,
            why.c_str());
        QCOMPARE(g.generate({0, 17, 42}, s).ids.size(), std::size_t{2});
        const std::string prompt(20000, 'x');  // tokenizes to thousands of tokens
        const auto cli = fone_test::run_fone({"model", "generate", QString::fromStdString(kGolden + "llama"),
                                              QString::fromStdString(prompt), "--max-new-tokens", "1"},
                                             {}, 120000, {"FONE_TEST_PHYSICAL_MEMORY=1073741824"});
        QCOMPARE(cli.code, 2);  // bad input, as model forward's
        QVERIFY2(cli.err.contains("needs about") && cli.err.count('\n') == 1 && cli.err.size() < 1000,
                 cli.err.constData());
    }

    void cli_bad_input_is_one_line() {
        const auto no_folder = fone_test::run_fone({"model", "generate", "/nonexistent-folder", "hi"});
        QCOMPARE(no_folder.code, 2);
        QVERIFY(no_folder.err.contains("error"));
        const auto bad_t = fone_test::run_fone(
            {"model", "generate", QString::fromStdString(kGolden + "llama"), "hi", "--temperature", "-1"});
        QVERIFY(bad_t.code != 0);
        QVERIFY(bad_t.out.isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestModelGenerate)
#include "test_model_generate.moc"
