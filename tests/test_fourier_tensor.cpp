// Batch encoding into LibTorch tensors agrees with the scalar encoder, pads with zeros, and reports
// numbers that do not fit.
#include <QtTest>

#include "fone/train/fourier_tensor.h"

using fone::Decimal;

class TestFourierTensor : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void batch_matches_scalar_encoder() {
        fone::FoneSpec spec;  // m=7, n=3, sign
        const std::vector<Decimal> xs = {Decimal::parse("0"), Decimal::parse("123.456"),
                                         Decimal::parse("-9999999.999")};
        const auto t = fone::encode_batch(xs, spec, 64);
        QCOMPARE(t.size(0), 3);
        QCOMPARE(t.size(1), 64);
        QCOMPARE(t.scalar_type(), torch::kFloat32);
        for (int b = 0; b < 3; ++b) {
            const auto e = fone::encode(xs[b], spec);
            for (int i = 0; i < 64; ++i) {
                const double want = i < spec.width() ? e[i] : 0.0;
                QVERIFY(std::abs(t[b][i].item<float>() - want) < 1e-7);
            }
        }
        QCOMPARE(fone::encode_batch(xs, spec).size(1), spec.width());
    }

    void labels() {
        fone::FoneSpec spec;
        spec.int_digits = 3;
        spec.frac_digits = 1;
        const std::vector<Decimal> xs = {Decimal::parse("12.5"), Decimal::parse("-7")};
        const auto d = fone::label_digits_batch(xs, spec);
        QCOMPARE(d.size(1), 4);
        QCOMPARE(d[0][0].item<int64_t>(), 5);
        QCOMPARE(d[0][1].item<int64_t>(), 2);
        QCOMPARE(d[0][2].item<int64_t>(), 1);
        QCOMPARE(d[1][1].item<int64_t>(), 7);
        const auto s = fone::label_signs_batch(xs);
        QCOMPARE(s[0].item<int64_t>(), 0);
        QCOMPARE(s[1].item<int64_t>(), 1);
    }

    void errors() {
        fone::FoneSpec spec;
        const std::vector<Decimal> xs = {Decimal::parse("1"), Decimal::parse("123456789")};
        QVERIFY_THROWS_EXCEPTION(fone::NumberError, fone::encode_batch(xs, spec));
        QVERIFY_THROWS_EXCEPTION(fone::NumberError,
                                 fone::encode_batch(std::vector<Decimal>{Decimal()}, spec, 8));
    }
};

QTEST_APPLESS_MAIN(TestFourierTensor)
#include "test_fourier_tensor.moc"
