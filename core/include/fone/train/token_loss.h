// The losses a text run's model pays for each piece of a test document, and two runs side by side
// (fone/analysis/token_loss.h holds the result; `fone analyse token-loss` and the window's "token-loss"
// view show it). Each call opens the run's best checkpoint (else its last) and names it in the result.
#pragma once

#include <string>

#include "fone/analysis/token_loss.h"

namespace fone {

// A document of a run's test split: "3" (its index, from 0) or its first line ("India", a country's name in
// the World Factbook; case-insensitive). Throws std::invalid_argument for a run that is not a text run, an
// index out of range or a name no test document has (one line each), RunError for an unreadable run.
analysis::DocumentLosses run_document_losses(const std::string& run_dir, const std::string& document,
                                             int threads = 0);

// The document under two runs, aligned piece by piece; throws std::invalid_argument (one line) for runs
// whose test splits or text tokenizers differ (analysis::compare_documents).
analysis::TokenLossComparison compare_runs_on_document(const std::string& run_a, const std::string& run_b,
                                                       const std::string& document, int threads = 0);

}  // namespace fone
