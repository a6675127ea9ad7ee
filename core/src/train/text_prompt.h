// How a text run's generation starts (inference.cpp's generate_run and the arithmetic benchmark share it).
// Private to core/src/train/ (torch types through the scheme).
#pragma once

#include "fone/store/train_config.h"
#include "fone/train/inference.h"
#include "schemes/text_scheme.h"

namespace fone {

// What generation starts from: "[BOS] prompt [ANS]" for runs trained on prompts and answers (unless the
// request continues the text), else "[BOS] prompt". Throws std::invalid_argument for an empty prompt of a
// run that answers prompts or a prompt the tokenizer refuses, NumberError for a number that does not fit.
EncodedText generation_prompt(const TextLmScheme& text, const TrainConfig& config, const GenerateRequest& r);

}  // namespace fone
