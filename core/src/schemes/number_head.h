// A number method's number head: for the methods that make every number ONE [NUM] token (fone,
// fone-direct, xval, bittokens), what a number becomes in the model's input at its [NUM] position, and
// what the model's output reads back where a number comes next (its loss, its value, what it can say
// about it). Each head is defined in its method's own file (fone_head.cpp, fone_direct_head.cpp,
// xval_head.cpp, bittokens_head.cpp) and used by both the arithmetic scheme (number_token_scheme.cpp) and
// the text scheme (text_scheme.cpp), so a method's arithmetic and its text are one code. Private to
// core/src/schemes.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "schemes/scheme.h"

namespace fone {

// The labels a head learns from at K positions where a number comes next: its digits per slot (least
// significant first, any integer dtype) and its sign (1: negative) for the heads that read digits, its
// float64 value for those that learn values (learns_values()).
struct NumberTargets {
    torch::Tensor digits;  // [K, slots]
    torch::Tensor signs;   // [K]
    torch::Tensor values;  // [K] float64
};

// What a head is built from: the run's settings, the digit slots, and whether the run is on text (fone
// weighs its digit loss there by TrainConfig::digit_loss_weight).
struct HeadSettings {
    const TrainConfig& config;
    const FoneSpec& spec;
    bool text = false;
};

class NumberHead {
  public:
    virtual ~NumberHead() = default;

    // The model's heads and input width for this head (ModelHeads::fone_width, digit slots, regression).
    virtual ModelHeads heads() const = 0;
    // Entries of one [NUM]'s input vector (ModelInputs::fone); 0: the head has none.
    virtual int64_t feature_width() const = 0;
    // Whether the head sets [NUM]'s embedding scale (ModelInputs::scale: xval by the value, bittokens 0).
    virtual bool scales_embedding() const { return false; }
    // One number's input: feature_width() floats at `features` (zero before) and, with scales_embedding(),
    // *scale (1 before). Throws NumberError for a number the head cannot take.
    virtual void input(const Decimal& x, float* features, float* scale) const = 0;

    // Whether its labels are the number's digits over the slots, so that an answer must fit them (an
    // arithmetic answer's check); false for bittokens, whose bits hold any double.
    virtual bool labels_fit_slots() const { return true; }
    // Whether the loss reads NumberTargets::values (xval, bittokens) rather than digits and signs.
    virtual bool learns_values() const { return false; }
    // Whether the Fourier digit head reads the number (the model's read_digits): the text measures then
    // count a value right when every digit and the sign are, as the head is trained.
    virtual bool reads_digits() const { return false; }
    // False when the head's loss is switched off (fone on text with digit_loss_weight 0).
    virtual bool has_loss() const { return true; }

    // The loss at hidden states h [K, d] (on their device) for the numbers that come next there.
    virtual torch::Tensor loss(FoneTransformer& model, const torch::Tensor& h,
                               const NumberTargets& y) const = 0;
    // The numbers the head reads at hidden states h [K, d]; nullopt where it reads none (a NaN's bits).
    virtual std::vector<Answer> read(FoneTransformer& model, const torch::Tensor& h) const = 0;
    // What the head says about the number at h [1, d]: "value" and the head's own details.
    virtual nlohmann::json explain(FoneTransformer& model, const torch::Tensor& h) const = 0;
};

// A method's number head, defined in the method's own file and found by its name in the methods table.
struct NumberHeadMaker {
    std::string method;  // the methods table's name (fone/store/methods.h)
    std::unique_ptr<NumberHead> (*make)(const HeadSettings& settings);
};

// The head of config.method. Throws std::invalid_argument naming a method that has no number head (its
// numbers are tokens, or nothing defines one for its row).
std::unique_ptr<NumberHead> make_number_head(const HeadSettings& settings);
// Whether config.method has a number head (its numbers are ONE [NUM] token).
bool has_number_head(const std::string& method);

// The heads' makers, one per file (fone_head.cpp, fone_direct_head.cpp, xval_head.cpp, bittokens_head.cpp).
const NumberHeadMaker& fone_head_maker();
const NumberHeadMaker& fone_direct_head_maker();
const NumberHeadMaker& xval_head_maker();
const NumberHeadMaker& bittokens_head_maker();

}  // namespace fone
