// What training a text tokenizer needs of a corpus, checked without training, so that `fone train` refuses a
// corpus before the run folder exists (bad input writes nothing).
#pragma once

#include <vector>

#include "fone/text/text_data.h"
#include "fone/text/text_tokenizer.h"

namespace fone {

// The characters that options.character_coverage of the corpus's characters need (counted as SentencePiece
// counts them: a space as U+2581, the most frequent first) must fit the vocabulary beside the 262 specials
// and bytes; a CJK corpus at the default 1,000 does not. TokenizerError naming both figures and a size that
// fits. TextTokenizer::train checks the same before SentencePiece runs.
void check_tokenizer_vocabulary(const std::vector<TextExample>& corpus, const TokenizerOptions& options = {});

}  // namespace fone
