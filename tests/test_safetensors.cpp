// safetensors: a file written by hand byte for byte, files written by Hugging Face's own `safetensors`
// package (tests/golden/safetensors/, made by make_safetensors_golden.py), round trips, and every way a
// damaged or hostile file is refused with a clear one-line error instead of a crash, a hang or a huge
// allocation.
#include <sys/stat.h>
#include <unistd.h>

#include <QtTest>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "fone/io/safetensors.h"

namespace fs = std::filesystem;
namespace st = fone::safetensors;

namespace {

std::string le64(uint64_t v) {
    std::string s(8, '\0');
    for (int i = 0; i < 8; ++i)
        s[i] = static_cast<char>((v >> (8 * i)) & 0xFF);
    return s;
}

// A file from its header text and data bytes.
std::string file_of(const std::string& header, const std::string& data) {
    return le64(header.size()) + header + data;
}

std::span<const std::byte> as_bytes(const std::string& s) {
    return {reinterpret_cast<const std::byte*>(s.data()), s.size()};
}

// The Error message of parsing these bytes ("" when they parse).
std::string problem(const std::string& bytes) {
    try {
        st::File::from_memory(as_bytes(bytes), "x.safetensors");
        return "";
    } catch (const st::Error& e) {
        return e.what();
    }
}

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

void spit(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
}

}  // namespace

class TestSafetensors : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    // The format worked out by hand: 8-byte little-endian length, the JSON header, the raw data.
    void readsAFileWrittenByHand() {
        const std::string header =
            R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"I64","shape":[],)"
            R"("data_offsets":[8,16]},"__metadata__":{"step":"12"}})";
        std::string data(16, '\0');
        const float a[2] = {1.5f, -2.0f};
        const int64_t b = 42;
        std::memcpy(data.data(), a, 8);
        std::memcpy(data.data() + 8, &b, 8);
        const std::string bytes = file_of(header, data);
        const st::File f = st::File::from_memory(as_bytes(bytes), "hand");
        QCOMPARE(f.tensors().size(), std::size_t(2));
        const st::TensorInfo& ta = f.at("a");
        QCOMPARE(ta.dtype, st::Dtype::F32);
        QCOMPARE(ta.shape, std::vector<int64_t>{2});
        float back[2];
        std::memcpy(back, f.bytes(ta).data(), 8);
        QCOMPARE(back[0], 1.5f);
        QCOMPARE(back[1], -2.0f);
        const st::TensorInfo& tb = f.at("b");
        QVERIFY(tb.shape.empty());
        QCOMPARE(tb.elements(), uint64_t(1));
        int64_t bv = 0;
        std::memcpy(&bv, f.bytes(tb).data(), 8);
        QCOMPARE(bv, int64_t(42));
        QCOMPARE(f.meta("step"), std::string("12"));
        QVERIFY(f.find("c") == nullptr);
        QVERIFY_THROWS_EXCEPTION(st::Error, f.at("c"));
        QVERIFY_THROWS_EXCEPTION(st::Error, f.meta("epoch"));
    }

    void serializeIsTheFormat() {
        const float v[3] = {1, 2, 3};
        const std::string bytes = st::serialize({{"w", st::Dtype::F32, {3}, v, sizeof v}}, {{"k", "v"}});
        // Length prefix, then a header padded with spaces to 8-byte alignment of the data.
        uint64_t n = 0;
        for (int i = 7; i >= 0; --i)
            n = (n << 8) | static_cast<unsigned char>(bytes[i]);
        QCOMPARE((8 + n) % 8, uint64_t(0));
        QCOMPARE(bytes.size(), 8 + n + 12);
        const std::string header = bytes.substr(8, n);
        QVERIFY(header.starts_with("{"));
        QVERIFY(header.find(R"("w":{"data_offsets":[0,12],"dtype":"F32","shape":[3]})") != std::string::npos);
        QVERIFY(header.find(R"("__metadata__":{"k":"v"})") != std::string::npos);
        QCOMPARE(std::memcmp(bytes.data() + 8 + n, v, 12), 0);
    }

    void roundTripsThroughAFile() {
        QTemporaryDir tmp;
        const std::string path = (fs::path(tmp.path().toStdString()) / "w.safetensors").string();
        std::vector<uint16_t> half(6, 0x3F80);  // bf16 1.0
        std::vector<double> d = {0.1, 0.2};
        std::vector<uint8_t> empty;
        st::write(path,
                  {{"half", st::Dtype::BF16, {2, 3}, half.data(), half.size() * 2},
                   {"empty", st::Dtype::U8, {0, 4}, empty.data(), 0},
                   {"d", st::Dtype::F64, {2}, d.data(), 16}},
                  {{"config", R"({"x": 1})"}});
        const st::File f = st::File::open(path);
        QCOMPARE(f.tensors().size(), std::size_t(3));
        QCOMPARE(f.at("half").shape, (std::vector<int64_t>{2, 3}));
        QCOMPARE(f.at("empty").elements(), uint64_t(0));
        QCOMPARE(f.bytes(f.at("empty")).size(), std::size_t(0));
        double back[2];
        std::memcpy(back, f.bytes(f.at("d")).data(), 16);
        QCOMPARE(back[1], 0.2);
        QCOMPARE(f.meta("config"), std::string(R"({"x": 1})"));
        // Nothing but the file is left in the folder (the temporary was renamed).
        QCOMPARE(std::distance(fs::directory_iterator(tmp.path().toStdString()), fs::directory_iterator{}),
                 1);
    }

    // Files written by Hugging Face's safetensors package (numpy backend): our reader must agree.
    void readsFilesMadeByTheReferenceLibrary() {
        const fs::path dir = fs::path(FONE_SOURCE_DIR) / "tests/golden/safetensors";
        const st::File f = st::File::open((dir / "reference.safetensors").string());
        QCOMPARE(f.meta("made_by"), std::string("safetensors.numpy.save_file"));
        const st::TensorInfo& w = f.at("weight");
        QCOMPARE(w.dtype, st::Dtype::F32);
        QCOMPARE(w.shape, (std::vector<int64_t>{2, 3}));
        float wv[6];
        std::memcpy(wv, f.bytes(w).data(), sizeof wv);
        for (int i = 0; i < 6; ++i)
            QCOMPARE(wv[i], 0.5f * static_cast<float>(i) - 1.0f);  // np.arange(6) * 0.5 - 1
        const st::TensorInfo& ids = f.at("ids");
        QCOMPARE(ids.dtype, st::Dtype::I64);
        int64_t iv[4];
        std::memcpy(iv, f.bytes(ids).data(), sizeof iv);
        QCOMPARE(iv[3], int64_t(-7));
        QCOMPARE(f.at("half").dtype, st::Dtype::F16);
        uint16_t h = 0;
        std::memcpy(&h, f.bytes(f.at("half")).data(), 2);
        QCOMPARE(h, uint16_t(0x3C00));  // IEEE half 1.0
        QCOMPARE(f.at("flag").dtype, st::Dtype::BOOL);
        QCOMPARE(f.at("flag").shape, (std::vector<int64_t>{3}));
    }

    void refusesDamagedFiles_data() {
        QTest::addColumn<QString>("bytes");
        QTest::addColumn<QString>("expected");
        const std::string ok_entry = R"("a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]})";
        const std::string four(4, 'x');
        auto row = [](const char* name, const std::string& bytes, const char* expected) {
            QTest::newRow(name) << QString::fromLatin1(bytes.data(), static_cast<int>(bytes.size()))
                                << QString::fromUtf8(expected);
        };
        row("empty", "", "shorter than the 8-byte");
        row("short", std::string(5, '\0'), "shorter than the 8-byte");
        row("huge header", le64(1ull << 40) + "{}", "more than the 100 MB");
        row("header past end", le64(64) + "{}", "the file holds");
        row("not an object", file_of("[1,2]", ""), "does not start with '{'");
        row("not json", file_of("{\"a\":", ""), "not JSON");
        row("too deep", file_of("{\"a\":{\"shape\":[[[[[1]]]]]}}", ""), "nests deeper");
        row("duplicate", file_of("{" + ok_entry + "," + ok_entry + "}", four), "twice");
        row("no dtype", file_of(R"({"a":{"shape":[1],"data_offsets":[0,4]}})", four), "has no dtype");
        row("bad dtype", file_of(R"({"a":{"dtype":"F8","shape":[1],"data_offsets":[0,4]}})", four),
            "unknown dtype");
        row("negative dim", file_of(R"({"a":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}})", four),
            "whole numbers");
        row("float dim", file_of(R"({"a":{"dtype":"F32","shape":[1.5],"data_offsets":[0,4]}})", four),
            "whole numbers");
        row("extra field", file_of(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4],"x":1}})", four),
            "unknown field");
        row("size mismatch", file_of(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}})", four),
            "need 8");
        row("overflowing shape",
            file_of(R"({"a":{"dtype":"F64","shape":[4294967296,4294967296],"data_offsets":[0,4]}})", four),
            "overflows");
        row("reversed", file_of(R"({"a":{"dtype":"F32","shape":[0],"data_offsets":[4,0]}})", four),
            "ends before");
        row("gap", file_of(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})", std::string(8, 'x')),
            "belong to no tensor");
        row("overlap",
            file_of(
                R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"b":{"dtype":"U8","shape":[2],"data_offsets":[2,4]}})",
                four),
            "overlaps");
        row("past data", file_of("{" + ok_entry + "}", "xx"), "the file has 2");
        row("trailing bytes", file_of("{" + ok_entry + "}", std::string(9, 'x')), "after the last tensor");
        row("bad metadata", file_of(R"({"__metadata__":{"k":1}})", ""), "is not a string");
    }

    void refusesDamagedFiles() {
        QFETCH(QString, bytes);
        QFETCH(QString, expected);
        const QByteArray raw = bytes.toLatin1();
        const std::string msg = problem(std::string(raw.constData(), static_cast<std::size_t>(raw.size())));
        QVERIFY2(!msg.empty(), "accepted");
        QVERIFY2(msg.find(expected.toStdString()) != std::string::npos, msg.c_str());
        QVERIFY2(msg.starts_with("x.safetensors: "), msg.c_str());
        QVERIFY(msg.find('\n') == std::string::npos);
    }

    // Special files are refused at once: a FIFO must not block the reader, a device must not be read.
    void refusesFilesThatAreNotRegular() {
        QTemporaryDir tmp;
        const std::string fifo = tmp.path().toStdString() + "/fifo";
        QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
        QVERIFY_THROWS_EXCEPTION(st::Error, st::File::open(fifo));
        QVERIFY_THROWS_EXCEPTION(st::Error, st::File::open("/dev/zero"));
        QVERIFY_THROWS_EXCEPTION(st::Error, st::File::open(tmp.path().toStdString()));
        QVERIFY_THROWS_EXCEPTION(st::Error, st::File::open(tmp.path().toStdString() + "/missing"));
    }

    void writerRefusesBadTensorsAndLeavesNothing() {
        QTemporaryDir tmp;
        const std::string path = tmp.path().toStdString() + "/w.safetensors";
        const float v[2] = {1, 2};
        QVERIFY_THROWS_EXCEPTION(st::Error, st::write(path, {{"a", st::Dtype::F32, {3}, v, 8}}));
        QVERIFY_THROWS_EXCEPTION(
            st::Error, st::write(path, {{"a", st::Dtype::F32, {2}, v, 8}, {"a", st::Dtype::F32, {2}, v, 8}}));
        QVERIFY_THROWS_EXCEPTION(st::Error, st::write(path, {{"__metadata__", st::Dtype::F32, {2}, v, 8}}));
        QVERIFY(!fs::exists(path));
        // An unwritable folder: the error names the file and the free space, and no temporary is left.
        try {
            st::write(tmp.path().toStdString() + "/no/such/dir/w.safetensors",
                      {{"a", st::Dtype::F32, {2}, v, 8}});
            QFAIL("wrote into a missing folder");
        } catch (const st::Error& e) {
            const std::string msg = e.what();
            QVERIFY2(msg.find("w.safetensors: cannot write") != std::string::npos, msg.c_str());
            QVERIFY2(msg.find("free") != std::string::npos, msg.c_str());
        }
        QCOMPARE(std::distance(fs::directory_iterator(tmp.path().toStdString()), fs::directory_iterator{}),
                 0);
    }

    // A link planted under the temporary's name (this test used one to /dev/full to fake a full disk; the
    // full disk itself is tests/reliability/test_safe_runs's tmpfs): the writer removes the name and
    // creates its own file (O_EXCL|O_NOFOLLOW), never writing through the link (issue 33). A link in the
    // destination's place is refused, its target untouched.
    void plantedLinksAreNotWrittenThrough() {
        QTemporaryDir tmp;
        const std::string path = tmp.path().toStdString() + "/w.safetensors";
        const std::string victim = tmp.path().toStdString() + "/victim";
        spit(victim, "keep");
        const float v[2] = {1, 2};
        const std::string tmp_name = path + ".tmp-" + std::to_string(::getpid());
        fs::create_symlink(victim, tmp_name);
        st::write(path, {{"a", st::Dtype::F32, {2}, v, 8}});
        QCOMPARE(slurp(victim), std::string("keep"));
        QVERIFY(!fs::exists(fs::symlink_status(tmp_name)));
        QCOMPARE(st::File::open(path).tensors().size(), std::size_t(1));
        const std::string linked = tmp.path().toStdString() + "/linked.safetensors";
        fs::create_symlink(victim, linked);
        try {
            st::write(linked, {{"a", st::Dtype::F32, {2}, v, 8}});
            QFAIL("a write through a link succeeded");
        } catch (const st::Error& e) {
            QVERIFY2(std::string(e.what()).find("symbolic link") != std::string::npos, e.what());
        }
        QCOMPARE(slurp(victim), std::string("keep"));
    }
};

QTEST_GUILESS_MAIN(TestSafetensors)
#include "test_safetensors.moc"
