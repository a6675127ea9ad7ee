// Files from other people, bounded by construction (issue 33): every writer refuses a symbolic link or a
// special file in its target's place and leaves the link's target untouched; every reader of outside JSON
// refuses nesting past kMaxJsonDepth before it costs anything; model folders refuse special files, a
// tensor held by two shards, a weight_map that contradicts the files and a config whose head_dim would be
// 0; a tokenizer.json regex that backtracks without end is an error, not a hang. Each case failed (wrote
// through the link, crashed, hung or ran with a wrong shape) on the code before the issue.
#include <sys/stat.h>
#include <unistd.h>

#include <Eigen/Cholesky>
#include <QElapsedTimer>
#include <QtTest>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <span>
#include <sstream>

#include "fone/analysis/replay.h"
#include "fone/analysis/snapshot_file.h"
#include "fone/io/file_write.h"
#include "fone/io/json_bounded.h"
#include "fone/io/json_files.h"
#include "fone/io/safetensors.h"
#include "fone/pretrained/forward_memory.h"
#include "fone/pretrained/model_folder.h"
#include "fone/pretrained/tokenizer.h"
#include "fone/store/experiments.h"
#include "fone/store/run_lock.h"
#include "fone/store/run_store.h"
#include "fone/store/train_config.h"
#include "fone/tasks/dataset_file.h"

namespace fs = std::filesystem;
namespace fp = fone::pretrained;
namespace st = fone::safetensors;
namespace fa = fone::analysis;
using fone::Decimal;
using nlohmann::json;

namespace {

const std::string kGolden = std::string(FONE_SOURCE_DIR) + "/tests/golden/pretrained/";

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

void spit(const std::string& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
}

// The message of what f throws ("" when it does not throw).
template <typename F>
std::string error_of(F&& f) {
    try {
        f();
        return "";
    } catch (const std::exception& e) {
        return e.what();
    }
}

bool has(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

// 100,000 levels of '[' (200 KB): what crashed nlohmann's recursive copy and dump.
std::string deep_json(int levels = 100000) {
    return std::string(static_cast<std::size_t>(levels), '[') +
           std::string(static_cast<std::size_t>(levels), ']');
}

std::string open_problem(const std::string& dir) {
    return error_of([&] { fp::ModelFolder::open(dir); });
}

std::string copy_of(const std::string& name, const std::string& into) {
    const fs::path to = fs::path(into) / name;
    fs::create_directories(into);
    fs::copy(kGolden + name, to, fs::copy_options::recursive);
    return to.string();
}

}  // namespace

class TestOutsideFiles : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void writers_refuse_symbolic_links();
    void writers_refuse_special_files();
    void planted_temporary_is_not_written_through();
    void deep_json_is_refused_by_every_reader();
    void bounded_json_keeps_what_it_accepts();
    void model_folder_special_files_are_refused();
    void model_folder_duplicate_tensor_names_both_files();
    void model_folder_weight_map_is_consulted();
    void llama_config_without_head_dim_needs_a_multiple();
    void tokenizer_regex_has_a_time_limit();
    void tokenizer_many_added_tokens();
    void non_finite_bits_by_hand();
    void pretrained_non_finite_weight_is_refused();
    void forward_memory_is_checked_first();
    void ridge_dual_equals_primal();
    void replay_of_a_wide_snapshot_is_not_cubic();
    // Issue 44
    void safetensors_header_values_are_bounded();
    void snapshot_step_must_be_a_whole_number();
    void inspect_scan_has_a_deadline();
    void a_starting_run_is_not_interrupted();
    void experiment_files_name_files_here();
};

void TestOutsideFiles::writers_refuse_symbolic_links() {
    QTemporaryDir tmp;
    const std::string dir = tmp.path().toStdString();
    const std::string victim = dir + "/victim";  // ~/.bashrc in a received run folder
    const std::string kept = "line one\nhalf a line";
    spit(victim, kept);
    const auto link = [&](const std::string& name) {
        const std::string path = dir + "/" + name;
        fs::remove(path);
        fs::create_symlink(victim, path);
        return path;
    };
    const std::vector<std::pair<std::string, std::function<void()>>> writers = {
        {"write_file_atomic (status.json, config.json)",
         [&] { fone::write_file_atomic(link("status.json"), "{}"); }},
        {"append_jsonl (metrics.jsonl)",
         [&] {
             fone::append_jsonl(link("metrics.jsonl"), {{"step", 1}});
         }},
        {"repair_jsonl_tail (a resume's tail repair)",
         [&] { fone::repair_jsonl_tail(link("metrics.jsonl")); }},
        {"safetensors::write (checkpoints, snapshots)",
         [&] { st::write(link("checkpoint-last.safetensors"), {}); }},
        {"open_for_writing update (train.lock)",
         [&] { ::close(fone::open_for_writing(link("train.lock"), fone::WriteOpen::update)); }},
        {"RunLock::acquire (train --resume)",
         [&] {
             link("train.lock");
             (void)fone::RunLock::acquire(dir);
         }},
        {"open_for_writing append (a sweep cell's log)",
         [&] { ::close(fone::open_for_writing(link("cell.log"), fone::WriteOpen::append)); }},
        {"write_dataset_file (fone data)", [&] { fone::write_dataset_file(link("sums.txt"), {}); }},
    };
    for (const auto& [what, write] : writers) {
        const std::string why = error_of(write);
        QVERIFY2(has(why, "symbolic link"), (what + ": " + why).c_str());
        QVERIFY2(why.find('\n') == std::string::npos, what.c_str());
        QCOMPARE(slurp(victim), kept);  // the target is untouched
    }
}

void TestOutsideFiles::writers_refuse_special_files() {
    QTemporaryDir tmp;
    const std::string fifo = tmp.path().toStdString() + "/metrics.jsonl";
    QCOMPARE(::mkfifo(fifo.c_str(), 0644), 0);
    // Opening a FIFO for writing with no reader would block: refused at once.
    QVERIFY(has(error_of([&] { fone::append_jsonl(fifo, {{"step", 1}}); }), "not a regular file (a FIFO)"));
    QVERIFY(has(error_of([&] { fone::write_file_atomic(fifo, "x"); }), "not a regular file (a FIFO)"));
    QVERIFY(has(error_of([&] { fone::repair_jsonl_tail(fifo); }), "not a regular file (a FIFO)"));
    const std::string folder = tmp.path().toStdString() + "/status.json";
    fs::create_directory(folder);
    QVERIFY(has(error_of([&] { fone::write_file_atomic(folder, "x"); }), "a directory"));
}

void TestOutsideFiles::planted_temporary_is_not_written_through() {
    QTemporaryDir tmp;
    const std::string dir = tmp.path().toStdString();
    spit(dir + "/victim", "keep");
    const std::string path = dir + "/status.json";
    fs::create_symlink(dir + "/victim", path + ".tmp-" + std::to_string(::getpid()));
    fone::write_file_atomic(path, "{\"status\": \"finished\"}\n");
    QCOMPARE(slurp(dir + "/victim"), std::string("keep"));
    QCOMPARE(slurp(path), std::string("{\"status\": \"finished\"}\n"));
    QVERIFY(!fs::exists(fs::symlink_status(path + ".tmp-" + std::to_string(::getpid()))));
}

void TestOutsideFiles::deep_json_is_refused_by_every_reader() {
    QTemporaryDir tmp;
    const std::string dir = tmp.path().toStdString();
    const std::string deep = deep_json();
    spit(dir + "/config.json", "{\"model\": " + deep + "}");
    json out;
    std::string error;
    QCOMPARE(fone::load_json(dir + "/config.json", out, error), fone::JsonLoad::bad);
    QVERIFY2(has(error, "nests deeper than 64 levels") && has(error, "config.json"), error.c_str());
    QVERIFY(has(error_of([&] { fone::read_json_file(dir + "/config.json"); }), "nests deeper"));
    QVERIFY(has(error_of([&] { fone::read_config_file(dir + "/config.json"); }), "nests deeper"));
    QVERIFY(has(error_of([&] { fone::config_settings_from_text(deep, "--config x"); }), "nests deeper"));
    // A metrics line, a tokenizer.json's normalizer, a model's config.json.
    spit(dir + "/metrics.jsonl", "{\"step\": 1}\n{\"x\": " + deep + "}\n");
    QVERIFY(has(error_of([&] { fone::read_metrics(dir + "/metrics.jsonl"); }), "metrics.jsonl:2"));
    QVERIFY(
        has(error_of([&] { fp::BpeTokenizer::from_json_text("{\"normalizer\": " + deep + "}", "t.json"); }),
            "nests deeper"));
    const std::string model = copy_of("llama", dir);
    spit(model + "/config.json", "{\"model_type\": \"llama\", \"x\": " + deep + "}");
    const std::string why = open_problem(model);
    QVERIFY2(has(why, "nests deeper") && has(why, "config.json"), why.c_str());
}

void TestOutsideFiles::bounded_json_keeps_what_it_accepts() {
    json j;
    std::string error;
    // 64 levels are accepted, 65 are not; the value is nlohmann's plain parse.
    QVERIFY(fone::parse_json_bounded(deep_json(64), "x", j, &error));
    QVERIFY(!fone::parse_json_bounded(deep_json(65), "x", j, &error));
    QVERIFY(j.is_null());
    QVERIFY(fone::parse_json_bounded("{\"a\": [1, 2.5, \"s\", null, true]}", "x", j, &error));
    QCOMPARE(j, json::parse("{\"a\": [1, 2.5, \"s\", null, true]}"));
    // Errors: one line, capped (a 100 KB unterminated string is not quoted whole), naming the source.
    QVERIFY(!fone::parse_json_bounded("\"" + std::string(100000, 'a'), "req", j, &error));
    QVERIFY2(error.rfind("req: corrupt JSON at byte", 0) == 0 && error.size() < 400, error.c_str());
    QVERIFY(!fone::parse_json_bounded("{\"a\": 1e99999}", "req", j, &error));
    QVERIFY2(has(error, "corrupt JSON") && !has(error, "[json.exception"), error.c_str());
    // Duplicate top-level keys, when asked (safetensors headers).
    QVERIFY(!fone::parse_json_bounded("{\"a\": 1, \"a\": 2}", "h", j, &error, {4, true}));
    QVERIFY(has(error, "names 'a' twice"));
}

void TestOutsideFiles::model_folder_special_files_are_refused() {
    QTemporaryDir tmp;
    for (const char* name : {"config.json", "tokenizer.json", "model.safetensors.index.json"}) {
        const std::string dir = copy_of("llama-bf16-sharded", tmp.path().toStdString() + "/" + name);
        const std::string path = dir + "/" + name;
        fs::remove(path);
        if (std::string(name) == "tokenizer.json") {
            fs::create_symlink("/dev/zero", path);  // reads until memory runs out, before
            QVERIFY(has(error_of([&] { fp::BpeTokenizer::load(path); }), "not a regular file"));
            continue;
        }
        QCOMPARE(::mkfifo(path.c_str(), 0644), 0);  // hung every model-folder command, before
        const std::string why = open_problem(dir);
        QVERIFY2(has(why, "not a regular file (a FIFO)") && has(why, name), why.c_str());
    }
}

void TestOutsideFiles::model_folder_duplicate_tensor_names_both_files() {
    QTemporaryDir tmp;
    const std::string dir = copy_of("llama-bf16-sharded", tmp.path().toStdString());
    // Shard 2 gets a copy of a tensor shard 1 holds (different values: a folder mixed from two models).
    const std::string one = dir + "/model-00001-of-00004.safetensors",
                      two = dir + "/model-00002-of-00004.safetensors";
    std::string name;
    {
        const st::File first = st::File::open(one);
        name = first.tensors().front().name;
        const st::File second = st::File::open(two);
        std::vector<std::string> bytes;
        std::vector<st::TensorData> tensors;
        for (const st::TensorInfo& t : second.tensors())
            tensors.push_back({t.name, t.dtype, t.shape, second.bytes(t).data(), second.bytes(t).size()});
        const st::TensorInfo& t = first.tensors().front();
        std::string zeros(first.bytes(t).size(), '\0');
        tensors.push_back({t.name, t.dtype, t.shape, zeros.data(), zeros.size()});
        const std::string text = st::serialize(tensors, second.metadata());
        spit(two + ".new", text);
    }
    fs::rename(two + ".new", two);
    const std::string why = open_problem(dir);
    QVERIFY2(has(why, name) && has(why, "model-00001-of-00004") && has(why, "model-00002-of-00004"),
             why.c_str());
}

void TestOutsideFiles::model_folder_weight_map_is_consulted() {
    QTemporaryDir tmp;
    const std::string dir = copy_of("llama-bf16-sharded", tmp.path().toStdString());
    QVERIFY(open_problem(dir).empty());
    json index = json::parse(slurp(dir + "/model.safetensors.index.json"));
    // A weight of a shard that holds others too (so every shard is still listed), mapped to another shard.
    std::map<std::string, int> per_file;
    for (const auto& [weight, shard] : index["weight_map"].items())
        ++per_file[shard.get<std::string>()];
    std::string name, file;
    for (const auto& [weight, shard] : index["weight_map"].items())
        if (name.empty() && per_file[shard.get<std::string>()] > 1) {
            name = weight;
            file = shard.get<std::string>();
        }
    QVERIFY(!name.empty());
    index["weight_map"][name] = file == "model-00004-of-00004.safetensors"
                                    ? "model-00001-of-00004.safetensors"
                                    : "model-00004-of-00004.safetensors";
    spit(dir + "/model.safetensors.index.json", index.dump());
    const std::string why = open_problem(dir);
    QVERIFY2(has(why, name) && has(why, file + " holds it"), why.c_str());
    // A shard name longer than a file name can be (found by fuzz_model_files: stat's ENAMETOOLONG escaped
    // as a std::filesystem error and ended the process) is refused in words.
    index["weight_map"][name] = std::string(300, '[') + "-of-00004.safetensors";
    spit(dir + "/model.safetensors.index.json", index.dump());
    const std::string long_name = open_problem(dir);
    QVERIFY2(has(long_name, "is not a file name in the folder"), long_name.c_str());
}

void TestOutsideFiles::llama_config_without_head_dim_needs_a_multiple() {
    QTemporaryDir tmp;
    const std::string dir = copy_of("llama", tmp.path().toStdString());
    json config = json::parse(slurp(dir + "/config.json"));
    config.erase("head_dim");
    config["num_attention_heads"] = config["hidden_size"].get<int>() * 2;  // more heads than dimensions
    config["num_key_value_heads"] = config["num_attention_heads"];
    spit(dir + "/config.json", config.dump());
    const std::string why = open_problem(dir);
    QVERIFY2(has(why, "\"head_dim\" is missing") && has(why, "not a multiple"), why.c_str());
}

void TestOutsideFiles::tokenizer_regex_has_a_time_limit() {
    json t = json::parse(slurp(kGolden + "gpt2-fp16/tokenizer.json"));
    // Exponential backtracking: 41 characters took longer than anyone waits.
    t["pre_tokenizer"] = {
        {"type", "Sequence"},
        {"pretokenizers",
         {{{"type", "Split"}, {"pattern", {{"Regex", "(a|a)+b"}}}, {"behavior", "Isolated"}},
          {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", false}}}}};
    const fp::BpeTokenizer tok = fp::BpeTokenizer::from_json_text(t.dump(), "tokenizer.json");
    QCOMPARE(tok.encode("aab", false).empty(), false);  // a short text is fine
    const std::string why = error_of([&] { tok.encode(std::string(41, 'a'), false); });
    QVERIFY2(has(why, "tokenizer.json") && has(why, "time limit"), why.c_str());
}

void TestOutsideFiles::tokenizer_many_added_tokens() {
    json t = json::parse(slurp(kGolden + "gpt2-fp16/tokenizer.json"));
    const std::string plain = t.dump();
    const fp::BpeTokenizer base = fp::BpeTokenizer::from_json_text(plain, "tokenizer.json");
    const int64_t first = base.vocab_size();
    // 100,000 added tokens (21 s to inspect a model, before): encoding stays exact, longest first.
    json added = json::array();
    for (int i = 0; i < 100000; ++i)
        added.push_back({{"id", first + i}, {"content", "<x" + std::to_string(i) + ">"}});
    added.push_back({{"id", first + 100000}, {"content", "<x1><x2>"}});
    t["added_tokens"] = added;
    const fp::BpeTokenizer tok = fp::BpeTokenizer::from_json_text(t.dump(), "tokenizer.json");
    const std::vector<int64_t> ids = tok.encode("<x1><x2><x99999>", false);
    QCOMPARE(ids, (std::vector<int64_t>{first + 100000, first + 99999}));
    QCOMPARE(tok.token_text(first + 5), std::string("<x5>"));
    QCOMPARE(tok.single_token("<x12345>"), std::optional<int64_t>(first + 12345));
    // An added token longer than the limit is refused when the file is read.
    t["added_tokens"] = json::array({{{"id", first}, {"content", std::string(300, 'z')}}});
    QVERIFY(has(error_of([&] { fp::BpeTokenizer::from_json_text(t.dump(), "tokenizer.json"); }),
                "the limit is 256"));
}

// The exponent-all-ones rule, against bit patterns worked out by hand for each width.
void TestOutsideFiles::non_finite_bits_by_hand() {
    const auto first = [](st::Dtype d, auto values) {
        return st::first_non_finite(d, std::as_bytes(std::span(values)));
    };
    // F32: 1.0, -0.0, the largest finite, the smallest subnormal, then +inf.
    QCOMPARE(first(st::Dtype::F32,
                   std::vector<uint32_t>{0x3f800000, 0x80000000, 0x7f7fffff, 0x00000001, 0x7f800000}),
             int64_t(4));
    QCOMPARE(first(st::Dtype::F32, std::vector<uint32_t>{0x3f800000, 0xff7fffff}), int64_t(-1));
    QCOMPARE(first(st::Dtype::F32, std::vector<uint32_t>{0xffc00000}), int64_t(0));  // a quiet NaN
    // F16: the largest finite 0x7bff (65504), then -inf 0xfc00; a NaN 0x7e00.
    QCOMPARE(first(st::Dtype::F16, std::vector<uint16_t>{0x7bff, 0x3c00, 0xfc00}), int64_t(2));
    QCOMPARE(first(st::Dtype::F16, std::vector<uint16_t>{0x7e00}), int64_t(0));
    QCOMPARE(first(st::Dtype::F16, std::vector<uint16_t>{0x7bff, 0x0001}), int64_t(-1));
    // BF16: the largest finite 0x7f7f, then a NaN 0x7fc0; -inf 0xff80.
    QCOMPARE(first(st::Dtype::BF16, std::vector<uint16_t>{0x7f7f, 0x3f80, 0x7fc0}), int64_t(2));
    QCOMPARE(first(st::Dtype::BF16, std::vector<uint16_t>{0xff80}), int64_t(0));
    // F64: 1.0, then a NaN.
    QCOMPARE(first(st::Dtype::F64, std::vector<uint64_t>{0x3ff0000000000000ULL, 0x7ff8000000000000ULL}),
             int64_t(1));
    // Integers are never "non-finite".
    QCOMPARE(first(st::Dtype::I32, std::vector<uint32_t>{0x7f800000}), int64_t(-1));
}

// Issue 33: NaN/Inf in a model folder's weight (F32, F16, BF16 shards) is refused on the weight's first
// read, naming it and its file (before: model forward, generate and --init-from used it: plausible-looking
// numbers or NaN everywhere, exit 0).
void TestOutsideFiles::pretrained_non_finite_weight_is_refused() {
    QTemporaryDir tmp;
    struct Case {
        std::string folder, file;
        uint16_t half;  // the bit pattern for a 16-bit dtype (F32 gets a NaN)
    };
    for (const Case& c :
         {Case{"llama", "model.safetensors", 0}, Case{"gpt2-fp16", "model.safetensors", 0xfc00},
          Case{"llama-bf16-sharded", "model-00002-of-00004.safetensors", 0x7fc0}}) {
        const std::string dir = copy_of(c.folder, tmp.path().toStdString());
        const std::string path = dir + "/" + c.file;
        std::string poisoned, kept;
        {
            const st::File f = st::File::open(path);
            std::vector<std::string> copies;
            copies.reserve(f.tensors().size());
            std::vector<st::TensorData> tensors;
            for (const st::TensorInfo& t : f.tensors()) {
                const auto b = f.bytes(t);
                copies.emplace_back(reinterpret_cast<const char*>(b.data()), b.size());
                if (poisoned.empty() && b.size() >= 8) {
                    const uint32_t nan32 = 0x7fc00000;
                    std::memcpy(copies.back().data() + 4,
                                t.dtype == st::Dtype::F32 ? static_cast<const void*>(&nan32) : &c.half,
                                t.dtype == st::Dtype::F32 ? 4 : 2);
                    poisoned = t.name;
                } else {
                    kept = t.name;
                }
                tensors.push_back({t.name, t.dtype, t.shape, copies.back().data(), copies.back().size()});
            }
            spit(path + ".new", st::serialize(tensors, f.metadata()));
        }
        fs::rename(path + ".new", path);
        const fp::ModelFolder m = fp::ModelFolder::open(dir);  // opening reads no weight
        const std::string why = error_of([&] { m.bytes(poisoned); });
        QVERIFY2(has(why, "\"" + poisoned + "\"") && has(why, c.file) && has(why, "NaN or an infinite") &&
                     why.find('\n') == std::string::npos,
                 why.c_str());
        QVERIFY2(error_of([&] { m.bytes(kept); }).empty(), kept.c_str());  // the others are read as before
    }
}

// Issue 33: what a forward of a model folder allocates is worked out, and checked against the machine, before
// anything is allocated (before: `model forward` asked LibTorch for whatever a config.json and a long input
// came to). The tiny Llama (hidden 32, intermediate 64, 4 heads of 8, 2 kv heads, 2 layers, vocabulary 320,
// tied embedding): one block holds 2 * 32 (norms) + 3 * 2048 (MLP) + 2 * 512 (k, v) + 2 * 1024 (q, o) = 9,280
// weights; all weights 28,832 (with the 10,240 of the embedding and the final norm's 32).
void TestOutsideFiles::forward_memory_is_checked_first() {
    const fp::ModelFolder m = fp::ModelFolder::open(kGolden + "llama");
    // One row of 10 tokens with logits: floats 9,280 (a block) + 10 * 32 (hidden states) + (2 + 2) * 32
    // (last states) + 320 (logits) = 10,048; the block's work 10 * (5 * 32 + 3 * 64 + (4 + 2 * 2) * 8 +
    // 2 * 4 * 10) = 4,960; 4 bytes each: 60,032.
    QCOMPARE(fp::forward_memory_bytes(m, {{1, 10}}, true, false), uint64_t(60032));
    // A generation session converts every weight: 4 * 28,832.
    QCOMPARE(fp::forward_memory_bytes(m, {}, false, true), uint64_t(115328));
    fp::check_forward_memory(m, {{1, 10}}, true, false);  // fits: no throw
    // 200,000 tokens: the attention scores alone are 2 * 4 * 200,000^2 floats (1.28 TB).
    const std::string why = error_of([&] { fp::check_forward_memory(m, {{1, 200000}}, true, false); });
    QVERIFY2(has(why, "this forward needs about") && has(why, "200000 tokens") && has(why, "of memory") &&
                 why.find('\n') == std::string::npos,
             why.c_str());
}

// The dual form of the probes' ridge regression gives the weights of the primal one, computed here directly
// ((XᵀX + λI)⁻¹XᵀY with λ = ridge · trace(XᵀX) / width), for a wide X (more columns than rows).
void TestOutsideFiles::ridge_dual_equals_primal() {
    std::mt19937_64 rng(7);
    std::normal_distribution<double> normal;
    Eigen::MatrixXd x(30, 300), y(30, 2);
    for (Eigen::Index i = 0; i < x.size(); ++i)
        x.data()[i] = normal(rng);
    for (Eigen::Index i = 0; i < y.size(); ++i)
        y.data()[i] = normal(rng);
    const double ridge = 1e-3, lambda = ridge * (x.transpose() * x).trace() / 300.0;
    Eigen::MatrixXd gram = x.transpose() * x;
    gram.diagonal().array() += lambda;
    const Eigen::MatrixXd primal = gram.ldlt().solve(x.transpose() * y);
    const Eigen::MatrixXd dual = fa::ridge_weights(x, y, ridge, 300);
    QCOMPARE(dual.rows(), Eigen::Index(300));
    QVERIFY2((dual - primal).cwiseAbs().maxCoeff() < 1e-8 * primal.cwiseAbs().maxCoeff(),
             std::to_string((dual - primal).cwiseAbs().maxCoeff()).c_str());
    // A narrow X takes the primal path: the same formula.
    const Eigen::MatrixXd narrow = x.leftCols(10);
    Eigen::MatrixXd g10 = narrow.transpose() * narrow;
    g10.diagonal().array() += ridge * g10.trace() / 10.0;
    QVERIFY((fa::ridge_weights(narrow, y, ridge, 10) - g10.ldlt().solve(narrow.transpose() * y))
                .cwiseAbs()
                .maxCoeff() < 1e-12);
}

// Issue 33: a snapshot of 48 numbers and 12,000 dimensions (2.3 MB as a file) is analysed for a replay frame
// in a moment. Before, every probe solved a 12,000 x 12,000 system (1.15 GB, about 10^12 operations each,
// some 20 probes: hours); the test then ran into CTest's timeout.
void TestOutsideFiles::replay_of_a_wide_snapshot_is_not_cubic() {
    fone::Snapshot s;
    s.source = "hidden_states";
    s.dims = 12000;
    for (int i = 0; i < 48; ++i)
        s.numbers.push_back(Decimal::from_int(i * 7 + 3));
    std::mt19937_64 rng(3);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    for (int layer = 0; layer < 2; ++layer) {
        std::vector<float> values(static_cast<std::size_t>(48 * s.dims));
        for (float& v : values)
            v = uniform(rng);
        s.layers.push_back(std::move(values));
    }
    const fa::ReplayState state = fa::analyse_snapshot(s);
    QCOMPARE(state.linear_mod10.size(), std::size_t(2));
    QCOMPARE(state.sinusoidal.size(), std::size_t(2));
    QVERIFY(!state.digits.places.empty());
    QCOMPARE(state.pca.axes.rows(), Eigen::Index(12000));
    for (const double a : state.linear_mod10)
        QVERIFY(a >= 0.0 && a <= 1.0);
}

// A 100 MB header of small entries cost 2.4-2.5 GB to parse: what a header may hold is bounded by its values
// (4,000,000), counted in the first pass, before anything is built.
void TestOutsideFiles::safetensors_header_values_are_bounded() {
    std::string shape;
    for (int i = 0; i < 4'100'000; ++i)
        shape += i ? ",1" : "1";
    const std::string header = R"({"t":{"dtype":"F32","shape":[)" + shape + R"(],"data_offsets":[0,4]}})";
    std::vector<std::byte> file(8 + header.size() + 4);
    const uint64_t n = header.size();
    for (int k = 0; k < 8; ++k)
        file[static_cast<std::size_t>(k)] = static_cast<std::byte>((n >> (8 * k)) & 0xff);
    std::memcpy(file.data() + 8, header.data(), header.size());
    const std::string why = error_of([&] { fone::safetensors::File::from_memory(file, "big.safetensors"); });
    QVERIFY2(has(why, "big.safetensors") && has(why, "more than 4000000 values"), why.c_str());
}

// A snapshot's step from its metadata: NaN became -9223372036854775808 in timeline.csv.
void TestOutsideFiles::snapshot_step_must_be_a_whole_number() {
    QTemporaryDir tmp;
    const std::string path = tmp.path().toStdString() + "/step-00000001.safetensors";
    const std::vector<std::uint16_t> halves = {0x3c00, 0x4000};  // 1.0, 2.0
    for (const char* step : {"nan", "inf", "-3", "2.5", "1e300"}) {
        fone::safetensors::write(path, {{"layer.0", fone::safetensors::Dtype::F16, {1, 2}, halves.data(), 4}},
                                 {{"format", fone::kSnapshotFormat}, {"step", step}, {"numbers", "7"}});
        const std::string why = error_of([&] { fone::read_snapshot(path); });
        QVERIFY2(has(why, "step") || has(why, "finite"), (std::string(step) + ": " + why).c_str());
    }
    fone::safetensors::write(
        path, {{"layer.0", fone::safetensors::Dtype::F16, {1, 2}, halves.data(), 4}},
        {{"format", fone::kSnapshotFormat}, {"step", "12"}, {"numbers", "7"}, {"source", "probe"}});
    QCOMPARE(fone::read_snapshot(path).step, int64_t{12});
}

// `model inspect` splits 20,000 integers with the pre-tokenizer's regex: a regex slow on each (under ICU's
// time limit per call) took 312 s with no input. The scan has a deadline of its own.
void TestOutsideFiles::inspect_scan_has_a_deadline() {
    QTemporaryDir tmp;
    const std::string dir = copy_of("llama", tmp.path().toStdString() + "/slow");
    json t = json::parse(slurp(dir + "/tokenizer.json"));
    t["pre_tokenizer"] = {
        {"type", "Sequence"},
        {"pretokenizers",
         {{{"type", "Split"}, {"pattern", {{"Regex", "(?:\\d?){12}\\d{12}|\\d+"}}}, {"behavior", "Isolated"}},
          {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", false}}}}};
    spit(dir + "/tokenizer.json", t.dump());
    const fp::ModelFolder m = fp::ModelFolder::open(dir);
    QElapsedTimer clock;
    clock.start();
    // 0.2 s: the scan of this regex takes about 1 s on an idle 2-core VM, so a 1 s deadline was a coin toss.
    ::setenv("FONE_TEST_INSPECT_SCAN_SECONDS", "0.2", 1);
    const std::string why = error_of([&] { fp::describe(m); });
    ::unsetenv("FONE_TEST_INSPECT_SCAN_SECONDS");
    QVERIFY2(has(why, "tokenizer.json") && has(why, "more than 0.2 s"), why.c_str());
    QVERIFY2(clock.elapsed() < 5000, qPrintable(QString::number(clock.elapsed())));
    QVERIFY(fp::describe(fp::ModelFolder::open(kGolden + "llama")).contains("single_token_integers"));
}

// A run is published with its lock held before its first status write (data and model being prepared):
// `runs list` said "interrupted" then.
void TestOutsideFiles::a_starting_run_is_not_interrupted() {
    QTemporaryDir tmp;
    fone::RunStore store(tmp.path().toStdString());
    fone::RunLock lock;
    const std::string dir = store.create_run("starting", fone::TrainConfig().to_json(), &lock);
    const auto listed = [&] {
        for (const fone::RunInfo& r : store.list())
            if (r.name == "starting") return r;
        return fone::RunInfo{};
    };
    QCOMPARE(QString::fromStdString(listed().status), QString("running"));
    QVERIFY(has(listed().message, "starting"));
    lock = fone::RunLock();  // the process died before its first status write
    QCOMPARE(QString::fromStdString(listed().status), QString("interrupted"));
}

// An experiment file from someone else named any readable file as "data" (a private key trained into a
// tokenizer, which an export then publishes); one file of 1,000 presets took 11 GB to dry-run.
void TestOutsideFiles::experiment_files_name_files_here() {
    const auto experiment = [](const std::string& settings, int presets) {
        std::string p;
        for (int i = 0; i < presets; ++i) {
            if (i > 0) p += ',';
            p += "\"p" + std::to_string(i) + "\": {\"settings\": {}}";
        }
        return R"({"title": "T", "description": "D", "id": "{seed}", "settings": )" + settings +
               R"(, "grid": {"seed": [1]}, "presets": {)" + p + "}}";
    };
    for (const char* data : {"/home/u/.ssh/id_rsa", "../../.ssh/id_rsa", "~/.ssh/id_rsa", "corpus/../../x"}) {
        const std::string why = error_of([&] {
            fone::parse_experiment(experiment(std::string(R"({"task": "text", "data": ")") + data + "\"}", 1),
                                   "e.json");
        });
        QVERIFY2(has(why, "e.json") && has(why, "relative to the folder"), why.c_str());
    }
    const std::string why = error_of(
        [&] { fone::parse_experiment(experiment(R"({"init_from": "/models/llama"})", 1), "e.json"); });
    QVERIFY2(has(why, "init_from"), why.c_str());
    QCOMPARE(fone::parse_experiment(experiment(R"({"task": "text", "data": "factbook/data"})", 64), "e.json")
                 .presets.size(),
             std::size_t{64});
    const std::string many = error_of([&] { fone::parse_experiment(experiment("{}", 65), "e.json"); });
    QVERIFY2(has(many, "more than 64 presets"), many.c_str());
}

QTEST_MAIN(TestOutsideFiles)
#include "test_outside_files.moc"
