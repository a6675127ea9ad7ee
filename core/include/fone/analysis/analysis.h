// Analyses that show why FoNE works (issue 7): Fourier spectra of representations along the number axis,
// PCA, linear probes of residues, unit-circle geometry, misprediction patterns and token counts.
// Plain C++ and Eigen, no LibTorch, no Qt: the `fone analyse` command and the workbench views both call
// these, and the views draw the results (widgets/analysis/). Definitions are spelled out in
// docs/analysis.md; every one has a test against a known answer in tests/test_analysis.cpp.
//
// A representation is an N x D matrix: row i belongs to the i-th number of a list, the columns are
// whatever the source gives (the FoNE encoder's entries, a baseline's embedding row, a hidden state).
#pragma once

#include <Eigen/Core>
#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "fone/numbers/decimal.h"
#include "fone/numbers/fourier.h"

namespace fone::analysis {

// Thrown when the caller's cancel flag is set during a long analysis.
class Cancelled : public std::runtime_error {
  public:
    Cancelled() : std::runtime_error("analysis cancelled") {}
};

// Lets a GUI run an analysis off its thread: `report` gets the fraction done (0..1) now and then, and
// the analysis throws Cancelled soon after `*cancel` becomes true. Both are optional.
struct Progress {
    std::function<void(double)> report;
    const std::atomic<bool>* cancel = nullptr;
    // Throws Cancelled when the flag is set; passes the fraction done to report.
    void check() const {
        if (cancel && cancel->load(std::memory_order_relaxed)) throw Cancelled();
    }
    void tell(double done) const {
        if (report) report(done);
    }
};

// ---- Sources: where the N x D matrix comes from ---------------------------------------------------------

// A source turns a list of numbers into their representation matrix, one row per number. The FoNE
// encoder and a CSV file are sources here; a trained model's hidden state at a layer is another one.
using RepresentationSource = std::function<Eigen::MatrixXd(const std::vector<Decimal>& numbers)>;

// start, start + step, ..., count numbers, exactly (decimal steps allowed). Throws NumberError for
// count < 1.
std::vector<Decimal> number_range(const Decimal& start, const Decimal& step, int count);

// The FoNE embedding of each number, one row each (spec.width() columns): the reference every view is
// checked against. Throws NumberError naming the first number that does not fit the spec.
Eigen::MatrixXd encoder_matrix(const std::vector<Decimal>& numbers, const FoneSpec& spec);
RepresentationSource encoder_source(const FoneSpec& spec);

// A representation dumped by another tool: CSV, one row per number, the first column the number, the
// other columns the values. A first line whose first cell is not a number is a header and skipped.
struct RepresentationTable {
    std::vector<Decimal> numbers;
    Eigen::MatrixXd values;  // numbers.size() x D
};
// Throws std::runtime_error naming the file and line for ragged rows, non-numbers or an empty file.
RepresentationTable read_representation_csv(const std::string& path);

// ---- Fourier spectrum along the number axis -------------------------------------------------------------
//
// For column d, X_d(k) = sum_n R[n,d] · exp(-2πi·kn/N). The magnitude at frequency k is the length of the
// vector of amplitudes over all columns:
//     magnitude(k) = (2/N) · sqrt(sum_d |X_d(k)|^2)   for 0 < k < N/2,   (1/N)·sqrt(...) at k = 0 and N/2.
// So a column cos(2πn/T) (amplitude 1) contributes exactly 1 at k = N/T, and a FoNE pair
// [cos 2πn/T, sin 2πn/T] contributes sqrt(2). Rows are the numbers in order, evenly spaced; the period
// of frequency k is N/k in rows (times the step between the numbers).

struct SpectrumOptions {
    bool centre = true;  // subtract each column's mean first (the k = 0 term then is 0)
};

struct Spectrum {
    int count = 0;                  // N
    std::vector<int> k;             // 0 .. N/2
    std::vector<double> period;     // N/k in rows (infinity at k = 0)
    std::vector<double> magnitude;  // see above
};

// Exact DFT through Eigen's FFT module (kissfft, mixed radix); lengths with a prime factor above 50 go
// through Bluestein's chirp-z transform on power-of-two FFTs, so any N costs O(N log N) per column.
// Throws std::invalid_argument for fewer than 2 rows or no columns, Cancelled on cancel.
Spectrum fourier_spectrum(const Eigen::MatrixXd& rows, const SpectrumOptions& options = {},
                          const Progress& progress = {});

struct Spike {
    int k = 0;
    double period = 0.0;
    double magnitude = 0.0;
};
// The frequencies k > 0 whose magnitude is at least `relative_threshold` times the largest one, largest
// first, at most `max_count`.
std::vector<Spike> top_spikes(const Spectrum& spectrum, int max_count = 10, double relative_threshold = 0.01);

// One spectrum per layer (all with the same N), as a layers x (N/2 + 1) heatmap.
struct LayerSpectra {
    std::vector<int> k;
    std::vector<double> period;
    Eigen::MatrixXd magnitude;  // row = layer, column = k
};
LayerSpectra layer_spectra(const std::vector<Eigen::MatrixXd>& layers, const SpectrumOptions& options = {},
                           const Progress& progress = {});

// ---- PCA ------------------------------------------------------------------------------------------------

struct Pca {
    Eigen::MatrixXd projection;           // N x components: the centred rows on the principal axes
    Eigen::MatrixXd axes;                 // D x components, unit columns, largest variance first
    std::vector<double> variance;         // per component, with 1/(N-1)
    std::vector<double> explained_ratio;  // variance / total variance over all D columns
};
// Eigen-decomposition (SelfAdjointEigenSolver) of the D x D covariance, or of the N x N Gram matrix when D >
// N (wide hidden states of few numbers); axes beyond the rank are zero. Each axis' sign is fixed so that its
// largest-magnitude entry is positive, so the picture does not flip between runs. Throws
// std::invalid_argument for fewer than 2 rows or components outside 1..D.
Pca pca(const Eigen::MatrixXd& rows, int components, const Progress& progress = {});

// ---- Linear probe of x mod T ----------------------------------------------------------------------------
//
// Ridge regression (with a bias) from the representation onto a code of the class c = x mod T, fitted
// on a random training split and scored on the held-out rows. Two codes:
//   circular (default)  the point (cos 2πc/T, sin 2πc/T); the predicted class is the residue whose angle
//                       is nearest the predicted point's angle. This asks exactly "is x mod T a linear
//                       function of the representation", the way FoNE writes it.
//   one_hot             the T indicator columns; the predicted class is the largest output (the usual
//                       classifier probe; weaker with many noise dimensions, see docs/analysis.md).
// A spectrum spike shows a period is present; the probe shows it can be read linearly.

enum class ProbeCode { circular, one_hot };

struct ProbeOptions {
    ProbeCode code = ProbeCode::circular;
    double ridge = 1e-6;          // λ, relative to the mean diagonal of XᵀX
    double test_fraction = 0.25;  // held-out share of the rows
    std::uint64_t seed = 1;       // the split
};

struct ProbeResult {
    std::int64_t period = 0;  // T
    double accuracy = 0.0;    // on the held-out rows
    double chance = 0.0;      // share of the most frequent class among held-out rows
    int train_count = 0;
    int test_count = 0;
    // The held-out rows (indices into the rows probed), the class predicted for each, and for the circular
    // code the predicted point (cos, sin) the class was read from: the numbers on the probe's clock.
    std::vector<int> test_rows;
    std::vector<int> predicted;
    std::vector<std::array<double, 2>> points;
};

// The class of each number for the probe: floor(x) mod T in 0..T-1 (mathematical mod, so -1 mod 10 is 9);
// for integers exactly x mod T. Exact for numbers of any length. Throws NumberError for T outside 1..10^9.
std::vector<int> residue_classes(const std::vector<Decimal>& numbers, std::int64_t period);

// The ridge regression of every probe: W = (XᵀX + λI)⁻¹ XᵀY for centred X (N x D) and Y, with
// λ = ridge · max(trace(XᵀX) / width, 1e-300) (width: the representation's dimension). With more columns
// than rows it is solved in its dual form, W = Xᵀ(XXᵀ + λI)⁻¹Y (the same W for λ > 0): N x N instead of
// D x D, so the cost is O(N·D·min(N, D)), never cubic in a representation's width (issue 33: a 4 MB
// snapshot of 3,000 dimensions took over 130 s to replay).
Eigen::MatrixXd ridge_weights(const Eigen::MatrixXd& x, const Eigen::MatrixXd& y, double ridge,
                              Eigen::Index width);

// Throws std::invalid_argument when the sizes disagree or either split would be empty.
ProbeResult probe(const Eigen::MatrixXd& rows, const std::vector<int>& classes, int class_count,
                  const ProbeOptions& options = {});
ProbeResult probe_residue(const Eigen::MatrixXd& rows, const std::vector<Decimal>& numbers,
                          std::int64_t period, const ProbeOptions& options = {});

// ---- Unit circles ---------------------------------------------------------------------------------------

// The marker of digit j on a circle: φ(j, base) = (cos 2πj/base, sin 2πj/base).
struct DigitMarker {
    int digit = 0;
    double angle = 0.0;  // radians
    double x = 0.0, y = 0.0;
};
std::vector<DigitMarker> digit_markers(int base);

// A period as people write it: 10, 0.01, 5000, 49 (7^2); very large or small ones as 10^30.
std::string period_text(const Period& period);

// One circle: the number's point at angle 2π·(x mod T)/T.
struct CircleReading {
    Period period;
    double period_value = 0.0;
    std::string residue;        // x mod T in [0, T), exact decimal text (see residue_exact)
    bool residue_exact = true;  // false only for fractional periods of a base other than 10
    double turns = 0.0;         // (x mod T)/T in [0, 1)
    double angle = 0.0;         // 2π·turns
    double x = 0.0, y = 0.0;    // the embedding's pair for this period: (cos, sin)
    int digit = -1;             // the digit of |x| this pair carries (plain specs), else -1
    int nearest_marker = 0;     // the j whose marker is nearest the point: round(turns·base) mod base
};

struct UnitCircles {
    Decimal number;
    int base = 10;
    std::vector<DigitMarker> markers;
    std::vector<CircleReading> circles;  // smallest period first, as in the embedding
};
// Throws NumberError when the number does not fit the spec.
UnitCircles unit_circles(const Decimal& number, const FoneSpec& spec);

// ---- A hidden state on the circles ---------------------------------------------------------------------
// What a trained model's digit head reads (fourier.h, read_digits): slot k's pair [h_2k, h_2k+1], drawn on
// the circle of period k normalised, with its length, the digit it predicts (the marker with the largest
// logit, i.e. the nearest one), the softmax probabilities and, given the true number, the true digit.

struct HiddenSlot {
    Period period;
    double length = 0.0;                // |(h_2k, h_2k+1)|
    double x = 0.0, y = 0.0;            // the pair normalised to the unit circle ((0, 0) for a zero pair)
    double angle = 0.0;                 // radians in [0, 2π)
    int predicted = 0;                  // argmax of the digit logits
    std::vector<double> probabilities;  // softmax over the digits, at the head's scale
    int truth = -1;                     // the true digit, when a true number is given
    bool wrong() const { return truth >= 0 && truth != predicted; }
};

struct HiddenCircles {
    int base = 10;
    std::vector<DigitMarker> markers;
    std::vector<HiddenSlot> pairs;  // pair 0 = smallest period, as in the embedding
    Decimal predicted;              // the predicted digits (and sign) assembled exactly
    bool has_truth = false;
    Decimal truth;
};
// `hidden` has at least spec.width() entries (a model's last hidden state may be wider). Throws NumberError
// for mixed periods (no digit per pair), a short hidden state or a true number that does not fit the spec.
HiddenCircles hidden_circles(std::span<const float> hidden, const FoneSpec& spec,
                             const Decimal* truth = nullptr, double scale = 1.0);

// ---- Mispredictions -------------------------------------------------------------------------------------

struct DigitDifference {
    int position = 0;  // 0 units, 1 tens, -1 tenths
    int predicted = 0;
    int actual = 0;
    bool off_by_5() const { return predicted - actual == 5 || actual - predicted == 5; }
};

struct Misprediction {
    Decimal predicted, actual;
    bool sign_differs = false;
    std::vector<DigitDifference> differing;  // highest position first
    // Every differing digit is off by exactly 5 (and the signs agree): the pattern of the paper's mod-5
    // ablation (appendix table "Mispredictions ... only mod 5").
    bool all_off_by_5() const;
};

struct PositionErrors {
    int position = 0;
    int errors = 0;  // pairs whose digit at this position differs
    int total = 0;   // all pairs
    double rate() const { return total ? static_cast<double>(errors) / total : 0.0; }
};

struct ErrorAnalysis {
    int total = 0;  // pairs given
    std::vector<Misprediction> mispredictions;
    std::vector<PositionErrors> per_position;  // highest position first, over every position any number uses
    int differing_digits = 0;                  // over all mispredictions
    int off_by_5_digits = 0;                   // of those, off by exactly 5
    int all_off_by_5 = 0;                      // mispredictions whose every differing digit is off by 5
    int single_digit_off_by_5 = 0;             // ... and exactly one digit differs
};

// Digits are compared position by position (missing digits are 0), signs separately.
ErrorAnalysis analyse_errors(const std::vector<Decimal>& predicted, const std::vector<Decimal>& actual);

// ---- Tokens per table -----------------------------------------------------------------------------------
//
// Each CSV cell is scanned by the number parser (number_parser.h). Numbers cost, per scheme:
//   fone     one token per number
//   digit    one token per character of the number as written (digit, sign, point, separator, exponent)
//   subword  every run of digits in ≤3-digit chunks left to right, plus one token per other character
// The rest of a cell is counted the same for every scheme: one token per word (a run of letters, digits,
// '_' or non-ASCII characters) and one per other non-space character. Cell delimiters, quotes around a
// cell and line breaks cost nothing.

struct TokenCounts {
    int rows = 0;  // non-empty lines
    int cells = 0;
    int numbers = 0;
    int text_tokens = 0;
    int fone_number_tokens = 0;
    int digit_number_tokens = 0;
    int subword_number_tokens = 0;
    int fone_total() const { return fone_number_tokens + text_tokens; }
    int digit_total() const { return digit_number_tokens + text_tokens; }
    int subword_total() const { return subword_number_tokens + text_tokens; }
};
// Splits CSV (RFC 4180 quoting, ',' delimiter) and counts. Never throws on any text.
TokenCounts count_table_tokens(std::string_view csv);
std::vector<std::vector<std::string>> split_csv(std::string_view csv);

}  // namespace fone::analysis
