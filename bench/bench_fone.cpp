// Throughput of exact FoNE, single thread: encoding from the in-memory representation, from text
// (parse + encode), and decoding. Prints one line per figure.
//   build/bin/bench_fone [count]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "fone/numbers/fourier.h"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Random decimals that fill m integer and n fractional digit slots.
std::vector<std::string> random_texts(std::size_t count, int m, int n, std::mt19937_64& rng) {
    std::vector<std::string> out;
    out.reserve(count);
    std::uniform_int_distribution<int> digit(0, 9);
    for (std::size_t i = 0; i < count; ++i) {
        std::string s;
        for (int k = 0; k < m; ++k)
            s += static_cast<char>('0' + digit(rng));
        s += '.';
        for (int k = 0; k < n; ++k)
            s += static_cast<char>('0' + digit(rng));
        out.push_back(s);
    }
    return out;
}

void report(const char* what, const fone::FoneSpec& spec, std::size_t count, double secs, double checksum) {
    std::printf("%-34s m=%d n=%d slots=%d: %8.2f M numbers/s  (%zu in %.3f s, checksum %.3f)\n", what,
                spec.int_digits, spec.frac_digits, spec.pair_count(), count / secs / 1e6, count, secs,
                checksum);
}

void bench_spec(const fone::FoneSpec& spec, std::size_t count) {
    std::mt19937_64 rng(42);
    const auto texts = random_texts(count, spec.int_digits, spec.frac_digits, rng);
    std::vector<fone::Decimal> numbers;
    numbers.reserve(count);
    for (const auto& t : texts)
        numbers.push_back(fone::Decimal::parse(t));
    std::vector<float> out(static_cast<std::size_t>(spec.width()));

    double checksum = 0.0;
    auto t0 = Clock::now();
    for (const auto& x : numbers) {
        fone::encode_into(x, spec, out.data());
        checksum += out[0];
    }
    report("encode from Decimal", spec, count, seconds_since(t0), checksum);

    checksum = 0.0;
    t0 = Clock::now();
    for (const auto& t : texts) {
        const fone::Decimal x = fone::Decimal::parse(t);
        fone::check_fits(x, spec);
        fone::encode_into(x, spec, out.data());
        checksum += out[0];
    }
    report("encode from text (parse+check)", spec, count, seconds_since(t0), checksum);

    std::vector<std::vector<float>> embeddings(count / 4, std::vector<float>(spec.width()));
    for (std::size_t i = 0; i < embeddings.size(); ++i)
        fone::encode_into(numbers[i], spec, embeddings[i].data());
    checksum = 0.0;
    t0 = Clock::now();
    for (const auto& e : embeddings)
        checksum += fone::decode(std::span<const float>(e), spec).int_digit_count();
    report("decode (exact inverse)", spec, embeddings.size(), seconds_since(t0), checksum);
}

}  // namespace

int main(int argc, char** argv) {
    const std::size_t count = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 2'000'000;
    std::printf("FoNE throughput, one thread, float32 output\n");
    for (auto [m, n] : {std::pair{4, 3}, std::pair{7, 0}, std::pair{7, 3}, std::pair{20, 0}}) {
        fone::FoneSpec spec;
        spec.int_digits = m;
        spec.frac_digits = n;
        bench_spec(spec, count);
    }
    return 0;
}
