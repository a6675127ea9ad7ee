// A trained run's representations of numbers, for the analyses (fone/analysis/number_representations.h).
#pragma once

#include <vector>

#include "fone/analysis/number_representations.h"
#include "fone/numbers/decimal.h"

namespace fone {

// Throws std::invalid_argument for a number the run cannot take (too many digits for its slots; for token
// methods, a number that is not one of its tokens) and RunError for an unreadable run.
NumberRepresentations number_representations(const std::string& run_dir, const std::vector<Decimal>& numbers,
                                             int threads = 0);

}  // namespace fone
