// Analyses of representations along the number axis; see fone/analysis.h and docs/analysis.md.
#include "fone/analysis/analysis.h"

#include "fone/io/file_read.h"

#include <Eigen/Dense>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <complex>
#include <fstream>
#include <limits>
#include <numbers>
#include <numeric>
#include <random>
#include <sstream>
#include <unsupported/Eigen/FFT>

#include "fone/numbers/number_parser.h"

namespace fone::analysis {
namespace {

constexpr double kTwoPi = 2.0 * std::numbers::pi;

void check_cancel(const Progress& progress) {
    progress.check();
}

void report(const Progress& progress, double done) {
    progress.tell(done);
}

Decimal power_of_ten(int exponent) {
    return Decimal::parse("1e" + std::to_string(exponent));
}

// floor(x) as an integer Decimal.
Decimal floor_of(const Decimal& x) {
    Decimal whole = Decimal::from_digits(x.negative(), x.int_digits(), "");
    if (x.negative() && x.frac_digit_count() > 0) whole = whole - Decimal::from_int(1);
    return whole;
}

// x mod T in [0, T) for T = c·10^e, exactly: scale both to integers by 10^s, take the integer mod.
Decimal residue_base10(const Decimal& x, const Period& t) {
    if (t.multiplier == 1) {
        // |x| mod 10^e is |x|'s digits below position e; a negative x wraps to 10^e minus that.
        const std::string& whole = x.int_digits();
        const std::string& frac = x.frac_digits();
        const std::size_t e = static_cast<std::size_t>(std::abs(t.exponent));
        const std::string low_whole =
            t.exponent <= 0 ? "" : whole.substr(whole.size() - std::min(whole.size(), e));
        const std::string low_frac = t.exponent >= 0 ? frac : frac.substr(std::min(frac.size(), e));
        const Decimal r =
            Decimal::from_digits(false, low_whole, std::string(t.exponent < 0 ? e : 0, '0') + low_frac);
        return x.negative() && !r.is_zero() ? power_of_ten(t.exponent) - r : r;
    }
    const int s = std::max(x.frac_digit_count(), std::max(0, -t.exponent));
    const Decimal scaled_x = x * power_of_ten(s);
    const Decimal scaled_t = Decimal::from_int(t.multiplier) * power_of_ten(t.exponent + s);
    return Decimal::mod(scaled_x, scaled_t) * power_of_ten(-s);
}

// x mod T for an integer period T = c·b^e (e >= 0) in another base: (floor(x) mod T) + frac(x). A period
// below 1 (e < 0) has no finite decimal value in most bases: it is taken as c·b^0 here.
Decimal residue_integer_period(const Decimal& x, const Period& t) {
    const Decimal period = Decimal::from_int(t.multiplier) * Decimal::power(t.base, std::max(0, t.exponent));
    const Decimal whole = floor_of(x);
    return Decimal::mod(whole, period) + (x - whole);
}

void validate_rows(const Eigen::MatrixXd& rows, const char* what) {
    if (rows.rows() < 2 || rows.cols() < 1)
        throw std::invalid_argument(std::string(what) + " needs at least 2 numbers and 1 column, got " +
                                    std::to_string(rows.rows()) + " x " + std::to_string(rows.cols()));
    if (!rows.allFinite())
        throw std::invalid_argument(std::string(what) + ": the matrix has NaN or infinity");
}

std::string trim(std::string_view s) {
    const auto b = s.find_first_not_of(" \t\r\n");
    if (b == std::string_view::npos) return "";
    return std::string(s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1));
}

bool parse_double(const std::string& text, double& out) {
    if (text.empty()) return false;
    const char* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data() + (text[0] == '+' ? 1 : 0), end, out);
    return ec == std::errc() && ptr == end;
}

bool is_word_byte(unsigned char c) {
    return std::isalnum(c) || c == '_' || c >= 0x80;
}

// Words (runs of word bytes) plus one token per other non-space character.
int text_tokens(std::string_view text) {
    int tokens = 0;
    bool in_word = false;
    for (unsigned char c : text) {
        if (is_word_byte(c)) {
            if (!in_word) ++tokens;
            in_word = true;
            continue;
        }
        in_word = false;
        if (!std::isspace(c)) ++tokens;
    }
    return tokens;
}

int code_points(std::string_view text) {
    int n = 0;
    for (unsigned char c : text)
        if ((c & 0xC0) != 0x80) ++n;
    return n;
}

// Digit runs in chunks of at most three, every other code point one token.
int subword_tokens(std::string_view number_text) {
    int tokens = 0;
    std::size_t i = 0;
    while (i < number_text.size()) {
        const unsigned char c = static_cast<unsigned char>(number_text[i]);
        if (std::isdigit(c)) {
            std::size_t run = 0;
            while (i < number_text.size() && std::isdigit(static_cast<unsigned char>(number_text[i]))) {
                ++run;
                ++i;
            }
            tokens += static_cast<int>((run + 2) / 3);
            continue;
        }
        if ((c & 0xC0) != 0x80) ++tokens;
        ++i;
    }
    return tokens;
}

void count_cell(const std::string& cell, TokenCounts& counts) {
    const ParsedText parsed = parse_numbers(cell);
    std::string rest = cell;
    for (const ParsedNumber& n : parsed.numbers) {
        for (std::size_t b = n.byte_start; b < n.byte_end; ++b)
            rest[b] = ' ';
        ++counts.numbers;
        ++counts.fone_number_tokens;
        counts.digit_number_tokens += code_points(n.text);
        counts.subword_number_tokens += subword_tokens(n.text);
    }
    counts.text_tokens += text_tokens(rest);
}

// The residue c in 0..T-1 whose angle 2πc/T is nearest the angle of (x, y).
Eigen::Index nearest_residue(double x, double y, int period) {
    double turns = std::atan2(y, x) / kTwoPi;
    if (turns < 0) turns += 1.0;
    return static_cast<Eigen::Index>(std::llround(turns * period) % period);
}

// Above this prime factor of N, kissfft's generic radix costs O(N^2) per column (997 numbers x 512: 1.3 s,
// measured in bench_analysis); such lengths go through Bluestein's chirp-z transform instead.
constexpr Eigen::Index kLargestFftRadix = 50;

Eigen::Index largest_prime_factor(Eigen::Index n) {
    Eigen::Index largest = 1;
    for (Eigen::Index p = 2; p * p <= n; ++p)
        while (n % p == 0) {
            largest = p;
            n /= p;
        }
    return std::max(largest, n);
}

// sum_d |X_d(k)|^2 for k = 0..N/2: add_power(column, power) adds one column's |X(k)|^2 to power, for each
// column in turn (centred if asked), with the progress reported and the cancel flag checked on the way.
template <class AddPower>
Eigen::VectorXd power_by_columns(const Eigen::MatrixXd& rows, bool centre, const Progress& progress,
                                 AddPower add_power) {
    Eigen::VectorXd column(rows.rows());
    Eigen::VectorXd power = Eigen::VectorXd::Zero(rows.rows() / 2 + 1);
    for (Eigen::Index d = 0; d < rows.cols(); ++d) {
        if (d % 32 == 0) {
            check_cancel(progress);
            report(progress, static_cast<double>(d) / static_cast<double>(rows.cols()));
        }
        column = rows.col(d);
        if (centre) column.array() -= column.mean();
        add_power(column, power);
    }
    return power;
}

// One FFT per column.
Eigen::VectorXd power_by_fft(const Eigen::MatrixXd& rows, bool centre, const Progress& progress) {
    const Eigen::Index n = rows.rows(), half = n / 2;
    Eigen::FFT<double> fft;
    fft.SetFlag(Eigen::FFT<double>::HalfSpectrum);
    std::vector<std::complex<double>> coefficients(static_cast<std::size_t>(half + 1));
    return power_by_columns(rows, centre, progress, [&](Eigen::VectorXd& column, Eigen::VectorXd& power) {
        fft.fwd(coefficients.data(), column.data(), n);
        for (Eigen::Index k = 0; k <= half; ++k)
            power[k] += std::norm(coefficients[static_cast<std::size_t>(k)]);
    });
}

// The same by Bluestein's identity kn = (k² + n² - (k-n)²)/2: with b_m = exp(iπm²/N),
// X(k) = conj(b_k) · sum_n (x_n conj(b_n)) b_(k-n), a convolution done with power-of-two FFTs.
Eigen::VectorXd power_by_bluestein(const Eigen::MatrixXd& rows, bool centre, const Progress& progress) {
    using Complex = std::complex<double>;
    const Eigen::Index n = rows.rows(), half = n / 2;
    Eigen::Index m = 1;
    while (m < 2 * n - 1)
        m *= 2;
    std::vector<Complex> chirp(static_cast<std::size_t>(n));
    for (Eigen::Index t = 0; t < n; ++t)  // angle from t² mod 2N, so it stays exact for large t
        chirp[static_cast<std::size_t>(t)] = std::polar(
            1.0, std::numbers::pi * static_cast<double>((t * t) % (2 * n)) / static_cast<double>(n));
    Eigen::FFT<double> fft;
    std::vector<Complex> kernel(static_cast<std::size_t>(m)), kernel_hat, a(static_cast<std::size_t>(m)),
        a_hat, conv;
    kernel[0] = chirp[0];
    for (Eigen::Index t = 1; t < n; ++t)
        kernel[static_cast<std::size_t>(t)] = kernel[static_cast<std::size_t>(m - t)] =
            chirp[static_cast<std::size_t>(t)];
    fft.fwd(kernel_hat, kernel);
    return power_by_columns(rows, centre, progress, [&](Eigen::VectorXd& column, Eigen::VectorXd& power) {
        std::fill(a.begin(), a.end(), Complex());
        for (Eigen::Index t = 0; t < n; ++t)
            a[static_cast<std::size_t>(t)] = column[t] * std::conj(chirp[static_cast<std::size_t>(t)]);
        fft.fwd(a_hat, a);
        for (std::size_t i = 0; i < a_hat.size(); ++i)
            a_hat[i] *= kernel_hat[i];
        fft.inv(conv, a_hat);
        for (Eigen::Index k = 0; k <= half; ++k)
            power[k] += std::norm(conv[static_cast<std::size_t>(k)]);  // |conj(b_k)| = 1
    });
}

}  // namespace

// ---- Sources ------------------------------------------------------------------------------------------

std::vector<Decimal> number_range(const Decimal& start, const Decimal& step, int count) {
    if (count < 1) throw NumberError("a range needs at least one number, got " + std::to_string(count));
    std::vector<Decimal> numbers;
    numbers.reserve(static_cast<std::size_t>(count));
    Decimal x = start;
    for (int i = 0; i < count; ++i, x = x + step)
        numbers.push_back(x);
    return numbers;
}

Eigen::MatrixXd encoder_matrix(const std::vector<Decimal>& numbers, const FoneSpec& spec) {
    spec.validate();
    const int width = spec.width();
    Eigen::MatrixXd m(static_cast<Eigen::Index>(numbers.size()), width);
    std::vector<double> row(static_cast<std::size_t>(width));
    for (std::size_t i = 0; i < numbers.size(); ++i) {
        check_fits(numbers[i], spec);
        encode_into(numbers[i], spec, row.data());
        for (int d = 0; d < width; ++d)
            m(static_cast<Eigen::Index>(i), d) = row[static_cast<std::size_t>(d)];
    }
    return m;
}

RepresentationSource encoder_source(const FoneSpec& spec) {
    return [spec](const std::vector<Decimal>& numbers) { return encoder_matrix(numbers, spec); };
}

RepresentationTable read_representation_csv(const std::string& path) {
    const FileRead file = read_regular_file(path, kMaxDataFileBytes);
    if (!file.ok()) throw std::runtime_error(file.error);
    const auto table = split_csv(file.text);
    RepresentationTable out;
    std::vector<std::vector<double>> values;
    std::size_t width = 0;
    for (std::size_t line = 0; line < table.size(); ++line) {
        const auto& cells = table[line];
        const std::string where = path + " line " + std::to_string(line + 1);
        Decimal number;
        if (!Decimal::try_parse(trim(cells[0]), number)) {
            if (line == 0) continue;  // a header
            throw std::runtime_error(where + ": the first cell '" + trim(cells[0]) + "' is not a number");
        }
        if (cells.size() < 2) throw std::runtime_error(where + ": a number with no values");
        if (width == 0) width = cells.size() - 1;
        if (cells.size() - 1 != width)
            throw std::runtime_error(where + ": " + std::to_string(cells.size() - 1) + " values, expected " +
                                     std::to_string(width));
        std::vector<double> row(width);
        for (std::size_t c = 1; c < cells.size(); ++c)
            if (!parse_double(trim(cells[c]), row[c - 1]) || !std::isfinite(row[c - 1]))
                throw std::runtime_error(where + ": '" + trim(cells[c]) + "' is not a finite number");
        out.numbers.push_back(number);
        values.push_back(std::move(row));
    }
    if (values.empty()) throw std::runtime_error(path + ": no rows of numbers");
    out.values.resize(static_cast<Eigen::Index>(values.size()), static_cast<Eigen::Index>(width));
    for (std::size_t r = 0; r < values.size(); ++r)
        for (std::size_t c = 0; c < width; ++c)
            out.values(static_cast<Eigen::Index>(r), static_cast<Eigen::Index>(c)) = values[r][c];
    return out;
}

// ---- Spectrum -----------------------------------------------------------------------------------------

Spectrum fourier_spectrum(const Eigen::MatrixXd& rows, const SpectrumOptions& options,
                          const Progress& progress) {
    validate_rows(rows, "a spectrum");
    const Eigen::Index n = rows.rows(), half = n / 2;
    const Eigen::VectorXd power = largest_prime_factor(n) > kLargestFftRadix
                                      ? power_by_bluestein(rows, options.centre, progress)
                                      : power_by_fft(rows, options.centre, progress);
    Spectrum s;
    s.count = static_cast<int>(n);
    for (Eigen::Index k = 0; k <= half; ++k) {
        const bool edge = k == 0 || 2 * k == n;
        s.k.push_back(static_cast<int>(k));
        s.period.push_back(k == 0 ? std::numeric_limits<double>::infinity()
                                  : static_cast<double>(n) / static_cast<double>(k));
        s.magnitude.push_back((edge ? 1.0 : 2.0) * std::sqrt(power[k]) / static_cast<double>(n));
    }
    report(progress, 1.0);
    return s;
}

std::vector<Spike> top_spikes(const Spectrum& spectrum, int max_count, double relative_threshold) {
    std::vector<Spike> spikes;
    double largest = 0.0;
    for (std::size_t i = 0; i < spectrum.k.size(); ++i)
        if (spectrum.k[i] > 0) largest = std::max(largest, spectrum.magnitude[i]);
    if (largest <= 0.0) return spikes;
    for (std::size_t i = 0; i < spectrum.k.size(); ++i)
        if (spectrum.k[i] > 0 && spectrum.magnitude[i] >= relative_threshold * largest)
            spikes.push_back({spectrum.k[i], spectrum.period[i], spectrum.magnitude[i]});
    std::stable_sort(spikes.begin(), spikes.end(),
                     [](const Spike& a, const Spike& b) { return a.magnitude > b.magnitude; });
    if (static_cast<int>(spikes.size()) > max_count)
        spikes.resize(static_cast<std::size_t>(std::max(0, max_count)));
    return spikes;
}

LayerSpectra layer_spectra(const std::vector<Eigen::MatrixXd>& layers, const SpectrumOptions& options,
                           const Progress& progress) {
    if (layers.empty()) throw std::invalid_argument("layer spectra need at least one layer");
    LayerSpectra out;
    const double count = static_cast<double>(layers.size());
    for (std::size_t l = 0; l < layers.size(); ++l) {
        if (layers[l].rows() != layers[0].rows())
            throw std::invalid_argument("layer " + std::to_string(l) + " has " +
                                        std::to_string(layers[l].rows()) + " numbers, layer 0 has " +
                                        std::to_string(layers[0].rows()));
        Progress part{nullptr, progress.cancel};
        if (progress.report)
            part.report = [&progress, l, count](double f) {
                progress.report((static_cast<double>(l) + f) / count);
            };
        const Spectrum s = fourier_spectrum(layers[l], options, part);
        if (l == 0) {
            out.k = s.k;
            out.period = s.period;
            out.magnitude.resize(static_cast<Eigen::Index>(layers.size()),
                                 static_cast<Eigen::Index>(s.k.size()));
        }
        for (std::size_t i = 0; i < s.magnitude.size(); ++i)
            out.magnitude(static_cast<Eigen::Index>(l), static_cast<Eigen::Index>(i)) = s.magnitude[i];
    }
    return out;
}

// ---- PCA ----------------------------------------------------------------------------------------------

Pca pca(const Eigen::MatrixXd& rows, int components, const Progress& progress) {
    validate_rows(rows, "PCA");
    const Eigen::Index n = rows.rows(), d = rows.cols();
    if (components < 1 || components > d)
        throw std::invalid_argument("PCA components must be in 1.." + std::to_string(d) + ", got " +
                                    std::to_string(components));
    check_cancel(progress);
    const Eigen::MatrixXd centred = rows.rowwise() - rows.colwise().mean();
    const double dof = static_cast<double>(n - 1);
    // The D x D covariance, or with more columns than rows the N x N Gram matrix: same non-zero eigenvalues,
    // and an axis is Xᵀu / sqrt(λ·(N-1)) for a Gram eigenvector u.
    const bool gram = d > n;
    const Eigen::Index size = gram ? n : d;
    Eigen::MatrixXd moments = Eigen::MatrixXd::Zero(size, size);
    if (gram)
        moments.selfadjointView<Eigen::Lower>().rankUpdate(centred, 1.0 / dof);
    else
        moments.selfadjointView<Eigen::Lower>().rankUpdate(centred.transpose(), 1.0 / dof);
    report(progress, 0.4);
    check_cancel(progress);
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> solver(moments.selfadjointView<Eigen::Lower>());
    if (solver.info() != Eigen::Success)
        throw std::runtime_error("PCA: the eigen-decomposition did not converge");
    report(progress, 0.9);
    const double total = std::max(moments.diagonal().sum(), 0.0);
    Pca out;
    out.axes = Eigen::MatrixXd::Zero(d, components);
    for (int c = 0; c < components; ++c) {
        const Eigen::Index index = size - 1 - c;  // eigenvalues ascend
        const double variance = index >= 0 ? std::max(solver.eigenvalues()[index], 0.0) : 0.0;
        out.variance.push_back(variance);
        out.explained_ratio.push_back(total > 0.0 ? variance / total : 0.0);
        if (index < 0 || (gram && variance <= 1e-12 * total)) continue;  // beyond the rank: no direction
        Eigen::VectorXd axis = gram ? Eigen::VectorXd(centred.transpose() * solver.eigenvectors().col(index) /
                                                      std::sqrt(variance * dof))
                                    : Eigen::VectorXd(solver.eigenvectors().col(index));
        Eigen::Index largest = 0;
        axis.cwiseAbs().maxCoeff(&largest);
        if (axis[largest] < 0) axis = -axis;
        out.axes.col(c) = axis;
    }
    out.projection = centred * out.axes;
    report(progress, 1.0);
    return out;
}

// ---- Probe --------------------------------------------------------------------------------------------

std::vector<int> residue_classes(const std::vector<Decimal>& numbers, std::int64_t period) {
    if (period < 1 || period > 1000000000)
        throw NumberError("a residue class needs a period in 1..10^9, got " + std::to_string(period));
    const Decimal t = Decimal::from_int(period);
    std::vector<int> classes;
    classes.reserve(numbers.size());
    for (const Decimal& x : numbers)
        classes.push_back(std::stoi(Decimal::mod(floor_of(x), t).to_string()));
    return classes;
}

Eigen::MatrixXd ridge_weights(const Eigen::MatrixXd& x, const Eigen::MatrixXd& y, double ridge,
                              Eigen::Index width) {
    const double lambda =
        ridge * std::max(x.squaredNorm() / static_cast<double>(std::max<Eigen::Index>(width, 1)), 1e-300);
    if (x.cols() > x.rows()) {
        Eigen::MatrixXd gram = x * x.transpose();
        gram.diagonal().array() += lambda;
        return x.transpose() * gram.ldlt().solve(y);
    }
    Eigen::MatrixXd gram = x.transpose() * x;
    gram.diagonal().array() += lambda;
    return gram.ldlt().solve(x.transpose() * y);
}

ProbeResult probe(const Eigen::MatrixXd& rows, const std::vector<int>& classes, int class_count,
                  const ProbeOptions& options) {
    const Eigen::Index n = rows.rows(), d = rows.cols();
    if (static_cast<Eigen::Index>(classes.size()) != n)
        throw std::invalid_argument("probe: " + std::to_string(classes.size()) + " classes for " +
                                    std::to_string(n) + " rows");
    if (class_count < 1) throw std::invalid_argument("probe: at least one class");
    for (int c : classes)
        if (c < 0 || c >= class_count)
            throw std::invalid_argument("probe: class " + std::to_string(c) + " out of range");
    const int test_count = static_cast<int>(std::floor(options.test_fraction * static_cast<double>(n)));
    const int train_count = static_cast<int>(n) - test_count;
    if (test_count < 1 || train_count < 1)
        throw std::invalid_argument("probe: " + std::to_string(n) +
                                    " rows leave an empty training or test split");
    validate_rows(rows, "a probe");

    std::vector<Eigen::Index> order(static_cast<std::size_t>(n));
    std::iota(order.begin(), order.end(), Eigen::Index{0});
    std::mt19937_64 rng(options.seed);
    std::shuffle(order.begin(), order.end(), rng);

    const bool circular = options.code == ProbeCode::circular;
    Eigen::MatrixXd x(train_count, d);
    Eigen::MatrixXd y = Eigen::MatrixXd::Zero(train_count, circular ? 2 : class_count);
    for (int i = 0; i < train_count; ++i) {
        x.row(i) = rows.row(order[static_cast<std::size_t>(i)]);
        const int c = classes[static_cast<std::size_t>(order[static_cast<std::size_t>(i)])];
        if (circular)
            y.row(i) << std::cos(kTwoPi * c / class_count), std::sin(kTwoPi * c / class_count);
        else
            y(i, c) = 1.0;
    }
    const Eigen::RowVectorXd x_mean = x.colwise().mean(), y_mean = y.colwise().mean();
    x.rowwise() -= x_mean;
    y.rowwise() -= y_mean;
    const Eigen::MatrixXd weights = ridge_weights(x, y, options.ridge, d);

    ProbeResult r;
    r.period = class_count;
    r.train_count = train_count;
    r.test_count = test_count;
    int correct = 0;
    std::vector<int> frequency(static_cast<std::size_t>(class_count), 0);
    for (int i = train_count; i < static_cast<int>(n); ++i) {
        const Eigen::Index row = order[static_cast<std::size_t>(i)];
        const Eigen::RowVectorXd scores = (rows.row(row) - x_mean) * weights + y_mean;
        Eigen::Index predicted = 0;
        if (circular)
            predicted = nearest_residue(scores[0], scores[1], class_count);
        else
            scores.maxCoeff(&predicted);
        const int truth = classes[static_cast<std::size_t>(row)];
        correct += predicted == truth;
        r.test_rows.push_back(static_cast<int>(row));
        r.predicted.push_back(static_cast<int>(predicted));
        if (circular) r.points.push_back({scores[0], scores[1]});
        ++frequency[static_cast<std::size_t>(truth)];
    }
    r.accuracy = static_cast<double>(correct) / test_count;
    r.chance = static_cast<double>(*std::max_element(frequency.begin(), frequency.end())) / test_count;
    return r;
}

ProbeResult probe_residue(const Eigen::MatrixXd& rows, const std::vector<Decimal>& numbers,
                          std::int64_t period, const ProbeOptions& options) {
    if (period > 100000)
        throw std::invalid_argument("probe: period " + std::to_string(period) + " is too large");
    return probe(rows, residue_classes(numbers, period), static_cast<int>(period), options);
}

// ---- Unit circles -------------------------------------------------------------------------------------

std::vector<DigitMarker> digit_markers(int base) {
    const std::vector<double> prototypes = digit_prototypes(base);
    std::vector<DigitMarker> markers;
    for (int j = 0; j < base; ++j)
        markers.push_back({j, kTwoPi * j / base, prototypes[2 * static_cast<std::size_t>(j)],
                           prototypes[2 * static_cast<std::size_t>(j) + 1]});
    return markers;
}

std::string period_text(const Period& period) {
    const bool small_exponent = std::abs(period.exponent) <= 6;
    if (period.base == 10 && small_exponent)
        return (Decimal::from_int(period.multiplier) * power_of_ten(period.exponent)).to_string();
    if (period.exponent >= 0 && period.value() <= 1e6)
        return (Decimal::from_int(period.multiplier) * Decimal::power(period.base, period.exponent))
            .to_string();
    return period.to_string();
}

UnitCircles unit_circles(const Decimal& number, const FoneSpec& spec) {
    check_fits(number, spec);
    const std::vector<double> embedding = encode(number, spec);
    const std::vector<int> digits = spec.plain() ? label_digits(number, spec) : std::vector<int>();
    UnitCircles out;
    out.number = number;
    out.base = spec.base;
    out.markers = digit_markers(spec.base);
    const std::vector<Period> periods = spec.periods();
    for (std::size_t k = 0; k < periods.size(); ++k) {
        CircleReading c;
        c.period = periods[k];
        c.period_value = periods[k].value();
        c.x = embedding[2 * k];
        c.y = embedding[2 * k + 1];
        double turns = std::atan2(c.y, c.x) / kTwoPi;
        if (turns < 0) turns += 1.0;
        if (periods[k].base == 10 || periods[k].exponent >= 0) {
            const Decimal r = periods[k].base == 10 ? residue_base10(number, periods[k])
                                                    : residue_integer_period(number, periods[k]);
            c.residue = r.to_string();
            turns = r.to_double() / c.period_value;
        } else {
            c.residue_exact = false;
            std::ostringstream text;
            text.precision(12);
            text << turns * c.period_value;
            c.residue = text.str();
        }
        c.turns = turns >= 1.0 ? 0.0 : turns;
        c.angle = kTwoPi * c.turns;
        c.nearest_marker = static_cast<int>(std::llround(c.turns * spec.base) % spec.base);
        if (!digits.empty()) c.digit = digits[k];
        out.circles.push_back(c);
    }
    return out;
}

HiddenCircles hidden_circles(std::span<const float> hidden, const FoneSpec& spec, const Decimal* truth,
                             double scale) {
    spec.validate();
    if (!spec.plain())
        throw NumberError("hidden-state circles need plain periods base^i (one digit per pair)");
    const DigitReadout readout = read_digits(hidden, spec, scale);  // checks the length
    const std::vector<int> true_digits = truth ? label_digits(*truth, spec) : std::vector<int>();
    HiddenCircles out;
    out.base = spec.base;
    out.markers = digit_markers(spec.base);
    out.predicted = readout.value;
    out.has_truth = truth != nullptr;
    if (truth) out.truth = *truth;
    const std::vector<Period> periods = spec.periods();
    for (std::size_t k = 0; k < periods.size(); ++k) {
        HiddenSlot slot;
        slot.period = periods[k];
        const double hx = hidden[2 * k], hy = hidden[2 * k + 1];
        slot.length = std::hypot(hx, hy);
        if (slot.length > 0.0) {
            slot.x = hx / slot.length;
            slot.y = hy / slot.length;
            slot.angle = std::atan2(hy, hx);
            if (slot.angle < 0) slot.angle += kTwoPi;
        }
        slot.predicted = readout.digits[k];
        slot.probabilities = readout.probs[k];
        if (truth) slot.truth = true_digits[k];
        out.pairs.push_back(std::move(slot));
    }
    return out;
}

// ---- Mispredictions -----------------------------------------------------------------------------------

bool Misprediction::all_off_by_5() const {
    if (sign_differs || differing.empty()) return false;
    return std::all_of(differing.begin(), differing.end(),
                       [](const DigitDifference& d) { return d.off_by_5(); });
}

ErrorAnalysis analyse_errors(const std::vector<Decimal>& predicted, const std::vector<Decimal>& actual) {
    if (predicted.size() != actual.size())
        throw std::invalid_argument("error analysis: " + std::to_string(predicted.size()) +
                                    " predictions for " + std::to_string(actual.size()) + " answers");
    int highest = 0, lowest = 0;
    for (const auto* list : {&predicted, &actual})
        for (const Decimal& x : *list) {
            highest = std::max(highest, x.int_digit_count() - 1);
            lowest = std::min(lowest, -x.frac_digit_count());
        }
    ErrorAnalysis out;
    out.total = static_cast<int>(predicted.size());
    for (int p = highest; p >= lowest; --p)
        out.per_position.push_back({p, 0, out.total});
    for (std::size_t i = 0; i < predicted.size(); ++i) {
        if (predicted[i] == actual[i]) continue;
        Misprediction m{predicted[i], actual[i], predicted[i].negative() != actual[i].negative(), {}};
        for (int p = highest; p >= lowest; --p) {
            const int a = predicted[i].digit(p), b = actual[i].digit(p);
            if (a == b) continue;
            m.differing.push_back({p, a, b});
            ++out.per_position[static_cast<std::size_t>(highest - p)].errors;
            ++out.differing_digits;
            out.off_by_5_digits += m.differing.back().off_by_5();
        }
        if (m.all_off_by_5()) {
            ++out.all_off_by_5;
            out.single_digit_off_by_5 += m.differing.size() == 1;
        }
        out.mispredictions.push_back(std::move(m));
    }
    return out;
}

// ---- Tokens -------------------------------------------------------------------------------------------

std::vector<std::vector<std::string>> split_csv(std::string_view csv) {
    std::vector<std::vector<std::string>> table;
    std::vector<std::string> row;
    std::string cell;
    bool quoted = false, row_has_text = false;
    auto end_row = [&] {
        row.push_back(std::move(cell));
        cell.clear();
        if (row_has_text) table.push_back(std::move(row));
        row.clear();
        row_has_text = false;
    };
    for (std::size_t i = 0; i < csv.size(); ++i) {
        const char c = csv[i];
        if (quoted) {
            if (c != '"') {
                cell += c;
            } else if (i + 1 < csv.size() && csv[i + 1] == '"') {
                cell += '"';
                ++i;
            } else {
                quoted = false;
            }
            continue;
        }
        if (c == '"') {
            quoted = true;
            row_has_text = true;
        } else if (c == ',') {
            row.push_back(std::move(cell));
            cell.clear();
        } else if (c == '\n') {
            end_row();
        } else if (c != '\r') {
            cell += c;
            if (!std::isspace(static_cast<unsigned char>(c))) row_has_text = true;
        }
    }
    end_row();
    return table;
}

TokenCounts count_table_tokens(std::string_view csv) {
    TokenCounts counts;
    for (const auto& row : split_csv(csv)) {
        ++counts.rows;
        for (const std::string& cell : row) {
            ++counts.cells;
            try {
                count_cell(cell, counts);
            } catch (const NumberError&) {
                // The cell holds the literal "[NUM]" placeholder: count it as plain text.
                counts.text_tokens += text_tokens(cell);
            }
        }
    }
    return counts;
}

}  // namespace fone::analysis
