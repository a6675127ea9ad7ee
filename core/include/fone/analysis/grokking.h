// Grokking's progress measures (Nanda et al. 2023, "Progress measures for grokking via mechanistic
// interpretability"; issue 17) for mod-add runs: the Fourier basis over the modulus, the key frequencies of
// the residues' embedding, and the restricted and excluded loss of the p-way logits. Plain C++ and Eigen;
// the model side (the logits of every pair a, b at every evaluation) is core/src/probes/grokking_probe.cpp.
// Definitions and our reproduction in docs/analysis.md ("Grokking's key frequencies"); tests in
// tests/test_grokking.cpp.
//
// Residues x = 0..p-1, w_k = 2πk/p. The basis: p orthonormal vectors over x, the constant 1/√p, then for
// k = 1..⌊(p-1)/2⌋ the pair cos(w_k x), sin(w_k x) scaled to unit norm, and for even p the alternating
// (-1)^x (frequency p/2).
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace fone::analysis {

// p x p, row i = basis vector i in the order above. Throws std::invalid_argument for p < 2.
Eigen::MatrixXd fourier_basis(int p);
// "const", "cos 1", "sin 1", ..., ("alt" for even p).
std::vector<std::string> fourier_basis_names(int p);

// How strongly a representation of the residues (p rows, row x = residue x; any number of columns) uses
// each frequency k = 1..⌊p/2⌋: the norm of its projection on the frequency's basis vectors,
// sqrt(sum over columns of <cos_k, col>² + <sin_k, col>²). Entry k-1 is frequency k. Throws
// std::invalid_argument for fewer than 2 rows.
std::vector<double> frequency_norms(const Eigen::MatrixXd& residues);

// The frequencies (1-based) whose squared norm is at least `share` of the sum of all squared norms,
// strongest first. A representation without structure spreads its norm evenly (each k about 1/⌊p/2⌋ of
// it, under 2% for p = 113), so the default 5% picks only frequencies the model made stand out.
std::vector<int> key_frequencies(const std::vector<double>& norms, double share = 0.05);

// The part of `values` (p² rows, row a·p + b for the pair (a, b); any columns, e.g. the logits of the p
// answers) that lies in span{cos w_k(a+b), sin w_k(a+b) : k in freqs}, the orthogonal projection over the
// whole grid of pairs. It depends on a + b only: row s of the result (p rows) is the part of every pair
// with (a + b) mod p = s. Throws std::invalid_argument when values has not p² rows or a frequency is
// outside 1..⌊p/2⌋.
Eigen::MatrixXd sum_frequency_part(const Eigen::MatrixXd& values, int p, const std::vector<int>& freqs);

// Mean cross-entropy -log softmax(logits_i)[label_i] over the given rows, in double precision with the
// log-sum-exp shift (0 for no rows). Throws std::invalid_argument for a label out of range.
double cross_entropy(const Eigen::MatrixXd& logits, const std::vector<int>& labels,
                     const std::vector<int>& rows);
// Share of the given rows whose largest logit is the label (0 for no rows).
double accuracy(const Eigen::MatrixXd& logits, const std::vector<int>& labels, const std::vector<int>& rows);

// One evaluation of a mod-add run, measured over all p² ordered pairs.
struct GrokkingMeasures {
    double train_loss = 0, test_loss = 0;  // p-way cross-entropy at the answer position
    double train_accuracy = 0, test_accuracy = 0;
    // Training pairs. Restricted: the logits' mean over all pairs plus their key-frequency part
    // (sum_frequency_part); excluded: the logits less their key-frequency part.
    double restricted_loss = 0, excluded_loss = 0;
    std::vector<int> key_frequencies;     // of the embedding at this evaluation (key_frequencies)
    std::vector<double> embedding_norms;  // frequency_norms of the residues' embedding, k = 1..⌊p/2⌋
};

// logits: p² x p (row a·p + b, column c = the answer c); trained[a·p + b]: the pair was a training
// example; embedding: p rows, the residues' embedding. Throws std::invalid_argument for shapes that do
// not fit p. The key frequencies take at least max(key_share, 2/⌊p/2⌋) of the squared norms (twice an even
// spread's share, so that a small p does not call every frequency key).
GrokkingMeasures measure_grokking(const Eigen::MatrixXd& logits, const std::vector<bool>& trained,
                                  const Eigen::MatrixXd& embedding, double key_share = 0.05);

// {"train_loss", "test_loss", "train_accuracy", "test_accuracy", "restricted_loss", "excluded_loss",
//  "key_frequencies": [k...], "embedding_norms": [k = 1..]}: what an eval event records under "grokking".
nlohmann::json grokking_json(const GrokkingMeasures& m);
// The inverse of grokking_json. Throws std::invalid_argument naming a missing or mistyped field.
GrokkingMeasures grokking_from_json(const nlohmann::json& j);

// A run's measures over training: one point per evaluation that recorded them.
struct GrokkingPoint {
    std::int64_t step = 0;
    GrokkingMeasures measures;
};
// The points of a run's metrics records (metrics.jsonl): its eval events with "grokking", by step (a
// resumed run's repeated steps: the later record wins).
std::vector<GrokkingPoint> grokking_points(const std::vector<nlohmann::json>& records);
// step,train_loss,test_loss,train_accuracy,test_accuracy,restricted_loss,excluded_loss,key_frequencies
// (the key frequencies space-separated, strongest first).
std::string grokking_csv(const std::vector<GrokkingPoint>& points);
// step,k,norm: the embedding's norm at every frequency k at every point.
std::string frequency_norms_csv(const std::vector<GrokkingPoint>& points);
// The first step whose test (or train) accuracy is at least `level`; -1 when none is.
std::int64_t first_step_reaching(const std::vector<GrokkingPoint>& points, double level, bool test);

}  // namespace fone::analysis
