// The Fourier basis over the modulus and the measures Nanda et al. (2023, "Progress measures for grokking via
// mechanistic interpretability") read grokking with (issue 17). Plain C++ and Eigen: the model side (the
// MLP activations of every pair a, b at every snapshot) is fone/train/grokking.h. Definitions in
// docs/analysis.md ("Grokking's key frequencies"); tests in tests/test_grokking.cpp.
//
// Residues x = 0..p-1, w_k = 2πk/p. The basis: p orthonormal vectors over x, the constant 1/√p, then for
// k = 1..⌊(p-1)/2⌋ the pair cos(w_k x), sin(w_k x) scaled to unit norm (and for even p the alternating
// (-1)^x, frequency p/2).
#pragma once

#include <Eigen/Core>
#include <string>
#include <vector>

namespace fone::analysis {

// p x p, row i = basis vector i in the order above. Throws std::invalid_argument for p < 2.
Eigen::MatrixXd fourier_basis(int p);
// "const", "cos 1", "sin 1", ..., ("alt" for even p).
std::vector<std::string> fourier_basis_names(int p);

// How strongly a representation of the residues (p rows, row x = residue x) uses each frequency
// k = 1..⌊p/2⌋: the norm of its projection on the frequency's basis vectors, sqrt(sum over columns of
// <cos_k, col>² + <sin_k, col>²). Entry k-1 is frequency k. Throws std::invalid_argument for fewer than 2 rows.
std::vector<double> frequency_norms(const Eigen::MatrixXd& residues);

// The frequencies (1-based) whose squared norm is at least `share` of the squared norms of all k >= 1,
// strongest first. A representation without structure spreads its norm evenly (each k about 1/⌊p/2⌋).
std::vector<int> key_frequencies(const std::vector<double>& norms, double share = 0.05);

// values: p² rows, row a·p + b for the pair (a, b), any number of columns (neuron activations). Each column
// projected on span{cos w_k(a+b), sin w_k(a+b) : k in freqs} (orthogonal directions over the whole grid),
// plus the constant when `constant`. Throws std::invalid_argument when values has not p² rows or a
// frequency is outside 1..⌊(p-1)/2⌋.
Eigen::MatrixXd project_on_sum_frequencies(const Eigen::MatrixXd& values, int p, const std::vector<int>& freqs,
                                           bool constant);

// Mean cross-entropy -log softmax(logits_i)[label_i] over the given rows (all rows when empty), in double
// precision with the log-sum-exp shift. Throws std::invalid_argument for a label out of range.
double cross_entropy(const Eigen::MatrixXd& logits, const std::vector<int>& labels,
                     const std::vector<int>& rows = {});
// Share of the given rows whose largest logit is the label.
double accuracy(const Eigen::MatrixXd& logits, const std::vector<int>& labels, const std::vector<int>& rows = {});

// One snapshot of a mod-add run, measured.
struct GrokkingStep {
    long long step = 0;
    double train_loss = 0, test_loss = 0;  // p-way cross-entropy at the answer position
    double train_accuracy = 0, test_accuracy = 0;
    double restricted_loss = 0;  // test pairs, the MLP activations restricted to the key frequencies
    double excluded_loss = 0;    // training pairs, the key frequencies removed from the MLP activations
    std::vector<double> embedding_norms;  // frequency_norms of the residues' embedding, k = 1..⌊p/2⌋
};

struct GrokkingCurves {
    int modulus = 0;
    std::vector<int> key_frequencies;  // of the last snapshot's embedding
    std::vector<GrokkingStep> steps;
};

// step,train_loss,test_loss,train_accuracy,test_accuracy,restricted_loss,excluded_loss
std::string grokking_csv(const GrokkingCurves& c);
// step,k,norm: the embedding's frequency norms at every step.
std::string frequency_norms_csv(const GrokkingCurves& c);

}  // namespace fone::analysis
