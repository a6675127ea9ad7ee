// fone/analysis/adapter_clocks.h: a number piece's readings on a fone-adapter's clocks, worked out by hand on
// a 6-wide model whose projection W is the identity (period T's clock is then the embedding's own pair of
// entries) and one with scaled columns and a bias, from weights in memory and from a checkpoint file.
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <numbers>

#include "fone/analysis/adapter_clocks.h"
#include "fone/io/safetensors.h"

namespace fa = fone::analysis;

namespace {

constexpr double kPi = std::numbers::pi;

std::vector<float> identity6() {
    std::vector<float> w(36, 0.0f);
    for (int k = 0; k < 6; ++k)
        w[static_cast<std::size_t>(k * 6 + k)] = 1.0f;
    return w;
}

bool near(double a, double b) {
    return std::abs(a - b) < 1e-6;
}

}  // namespace

class TestAdapterClocks : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void identity_projection_by_hand();
    void scaled_columns_and_bias();
    void untrained_adapter_has_no_clock();
    void from_a_checkpoint_file();
};

void TestAdapterClocks::identity_projection_by_hand() {
    // Two tokens; token 1's row is (0.5, 0, 0, 0.25, 0, -2), its value 3.
    std::vector<float> embedding(12, 0.0f);
    embedding[6] = 0.5f, embedding[9] = 0.25f, embedding[11] = -2.0f;
    const fa::AdapterClocks c(embedding, identity6(), std::vector<float>(6, 0.0f), 6);
    QCOMPARE(c.vocab_size(), int64_t{2});
    QVERIFY(!c.untrained());
    const auto k = c.clocks(1, 3);
    QCOMPARE(k[0].period, 10);
    QCOMPARE(k[2].period, 1000);
    // FoNE's own angles: 2π·3/10, 2π·3/100, 2π·3/1000.
    QVERIFY(near(k[0].fone_angle, 0.6 * kPi));
    QVERIFY(near(k[1].fone_angle, 0.06 * kPi));
    // Before: the row's own pairs. T=10: (0.5, 0), angle 0, length 0.5; T=100: (0, 0.25), 90°;
    // T=1000: (0, -2), 270°.
    QVERIFY(near(k[0].before.a, 0.5) && near(k[0].before.b, 0.0));
    QVERIFY(near(k[0].before.angle(), 0.0) && near(k[0].before.length(), 0.5));
    QVERIFY(near(k[1].before.angle(), kPi / 2));
    QVERIFY(near(k[2].before.angle(), 1.5 * kPi) && near(k[2].before.length(), 2.0));
    // After: the row plus FoNE(3) (W = I, b = 0). T=10: (0.5 + cos 0.6π, sin 0.6π).
    QVERIFY(near(k[0].after.a, 0.5 + std::cos(0.6 * kPi)));
    QVERIFY(near(k[0].after.b, std::sin(0.6 * kPi)));
    QVERIFY(near(k[1].after.a, std::cos(0.06 * kPi)));
    QVERIFY(near(k[1].after.b, 0.25 + std::sin(0.06 * kPi)));
    QVERIFY(near(k[2].after.b, -2.0 + std::sin(0.006 * kPi)));
    QVERIFY_THROWS_EXCEPTION(std::out_of_range, c.clocks(2, 3));
}

void TestAdapterClocks::scaled_columns_and_bias() {
    // W's T=10 columns are 2·e0 and 4·e1, the bias 1 on e0: the reading divides by the column lengths.
    std::vector<float> w(36, 0.0f);
    w[0 * 6 + 0] = 2.0f;  // entry h=0, FoNE cos T=10
    w[1 * 6 + 1] = 4.0f;  // entry h=1, FoNE sin T=10
    std::vector<float> bias(6, 0.0f);
    bias[0] = 1.0f;
    std::vector<float> row = {3.0f, 2.0f, 0, 0, 0, 0};
    const fa::AdapterClocks c(row, w, bias, 6);
    const auto k = c.clocks(0, 5);  // FoNE(5) at T=10: (cos π, sin π) = (-1, 0)
    QVERIFY(near(k[0].before.a, 1.5) && near(k[0].before.b, 0.5));
    // After: row + W·FoNE + b = (3 + 2·(-1) + 1, 2 + 4·0) = (2, 2) -> (1, 0.5).
    QVERIFY(near(k[0].after.a, 1.0) && near(k[0].after.b, 0.5));
    // T=100's columns are zero: no clock (a reading of length 0).
    QCOMPARE(k[1].before.length(), 0.0);
}

void TestAdapterClocks::untrained_adapter_has_no_clock() {
    const fa::AdapterClocks c(std::vector<float>(6, 1.0f), std::vector<float>(36, 0.0f),
                              std::vector<float>(6, 0.0f), 6);
    QVERIFY(c.untrained());
    QCOMPARE(c.clocks(0, 7)[0].after.length(), 0.0);
    QVERIFY_THROWS_EXCEPTION(
        std::invalid_argument,
        fa::AdapterClocks(std::vector<float>(6), std::vector<float>(35), std::vector<float>(6), 6));
}

void TestAdapterClocks::from_a_checkpoint_file() {
    QTemporaryDir dir;
    std::vector<float> embedding(12, 0.0f);
    embedding[6] = 0.5f;
    const std::vector<float> w = identity6(), bias(6, 0.0f);
    namespace st = fone::safetensors;
    const std::string path = (dir.path() + "/checkpoint-best.safetensors").toStdString();
    st::write(path, {{"embed.weight", st::Dtype::F32, {2, 6}, embedding.data(), embedding.size() * 4},
                     {"fone_map.weight", st::Dtype::F32, {6, 6}, w.data(), w.size() * 4},
                     {"fone_map.bias", st::Dtype::F32, {6}, bias.data(), bias.size() * 4}});
    const fa::AdapterClocks c = fa::AdapterClocks::open(path);
    QCOMPARE(c.hidden(), int64_t{6});
    QVERIFY(near(c.clocks(1, 3)[0].before.a, 0.5));
    QVERIFY(near(c.clocks(1, 3)[0].after.a, 0.5 + std::cos(0.6 * kPi)));
    // A checkpoint without the adapter: one line naming the file.
    const std::string other = (dir.path() + "/other.safetensors").toStdString();
    st::write(other, {{"embed.weight", st::Dtype::F32, {2, 6}, embedding.data(), embedding.size() * 4}});
    try {
        fa::AdapterClocks::open(other);
        QFAIL("a checkpoint without fone_map was read");
    } catch (const std::runtime_error& e) {
        QVERIFY2(std::string(e.what()).find("not a fone-adapter run") != std::string::npos, e.what());
    }
}

QTEST_MAIN(TestAdapterClocks)
#include "test_adapter_clocks.moc"
