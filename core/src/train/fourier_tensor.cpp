#include "fone/train/fourier_tensor.h"

#include <algorithm>
#include <cstring>

namespace fone {

torch::Tensor encode_batch(std::span<const Decimal> numbers, const FoneSpec& spec, int64_t dim) {
    const int64_t width = spec.width();
    if (dim == 0) dim = width;
    if (dim < width)
        throw NumberError("model width " + std::to_string(dim) + " is smaller than the FoNE width " +
                          std::to_string(width));
    for (const Decimal& x : numbers)
        check_fits(x, spec);
    auto out = torch::zeros({static_cast<int64_t>(numbers.size()), dim}, torch::kFloat32);
    float* p = out.data_ptr<float>();
    for (std::size_t b = 0; b < numbers.size(); ++b)
        encode_into(numbers[b], spec, p + b * dim);
    return out;
}

torch::Tensor label_digits_batch(std::span<const Decimal> numbers, const FoneSpec& spec) {
    const int64_t slots = spec.pair_count();
    auto out = torch::empty({static_cast<int64_t>(numbers.size()), slots}, torch::kInt64);
    int64_t* p = out.data_ptr<int64_t>();
    for (std::size_t b = 0; b < numbers.size(); ++b) {
        const auto digits = label_digits(numbers[b], spec);
        std::copy(digits.begin(), digits.end(), p + b * slots);
    }
    return out;
}

torch::Tensor label_signs_batch(std::span<const Decimal> numbers) {
    auto out = torch::empty({static_cast<int64_t>(numbers.size())}, torch::kInt64);
    int64_t* p = out.data_ptr<int64_t>();
    for (std::size_t b = 0; b < numbers.size(); ++b)
        p[b] = numbers[b].negative() ? 1 : 0;
    return out;
}

}  // namespace fone
