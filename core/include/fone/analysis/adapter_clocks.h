// A fone-adapter run's number pieces on the adapter's clocks (the workbench's "FoNE adapter" view; plain
// C++, no LibTorch: the run's checkpoint is read as a safetensors file).
//
// The adapter adds W·FoNE(v) + b to a number piece's embedding row e (W: hidden × 6, FoNE with periods 10,
// 100, 1000; docs/pretrained.md, "FoNE inside a pretrained model"). Period T's clock is the plane of W's
// two columns for T, (w_cos, w_sin): a row's reading on it is the least-squares (a, b) with
// a·w_cos + b·w_sin closest to the row. "Before" reads the model's own row e, "after" the row the model is
// fed, e + W·FoNE(v) + b; the hand's angle is atan2(b, a) (0 = digit 0, as FoNE's own hand at 2πv/T).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace fone::analysis {

struct ClockReading {
    double a = 0, b = 0;   // coordinates on the clock's two columns
    double angle() const;  // atan2(b, a) in [0, 2π)
    double length() const;
};

struct PieceClock {
    int period = 10;
    double fone_angle = 0;  // 2π (v mod T) / T: where FoNE puts the piece
    ClockReading before, after;
};

class AdapterClocks {
  public:
    // The checkpoint of a fone-adapter run (embed.weight [V, H], fone_map.weight [H, 6], fone_map.bias [H],
    // float32). Throws std::runtime_error naming the file and what is missing.
    static AdapterClocks open(const std::string& checkpoint);

    int64_t hidden() const { return hidden_; }
    int64_t vocab_size() const { return vocab_; }
    // Whether W is still zero (a run that has not trained: no clock to read on).
    bool untrained() const { return untrained_; }
    // The clocks of token `id`, a number piece of value `value` (0..999), periods 10, 100, 1000. Throws
    // std::out_of_range for an id outside the vocabulary.
    std::array<PieceClock, 3> clocks(int64_t id, int value) const;

    // From the weights themselves (tests): embedding rows [V, H], W [H, 6], b [H], row-major.
    AdapterClocks(std::vector<float> embedding, std::vector<float> w, std::vector<float> bias,
                  int64_t hidden);

  private:
    AdapterClocks() = default;
    ClockReading read(const std::vector<double>& row, int pair) const;
    void set_projection(std::vector<float> w, std::vector<float> bias, int64_t hidden);
    // Copies embedding row `id` into out[0..hidden): the checkpoint's rows stay in its mapping (a 128k
    // vocabulary is half a gigabyte and more).
    std::function<void(int64_t id, float* out)> row_;
    std::vector<float> w_, bias_;
    int64_t hidden_ = 0, vocab_ = 0;
    bool untrained_ = true;
};

}  // namespace fone::analysis
