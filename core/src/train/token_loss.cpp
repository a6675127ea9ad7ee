// fone/train/token_loss.h and train/token_loss_model.h: a text model's loss on every piece of a document.
#include "fone/train/token_loss.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <filesystem>
#include <stdexcept>

#include "checkpoints/run_model.h"
#include "fone/hf/generate.h"
#include "fone/io/shown_text.h"
#include "fone/numbers/number_parser.h"
#include "train/token_loss_model.h"

namespace fone {
namespace {

namespace F = torch::nn::functional;
namespace tt = text_token;
using analysis::DocumentLosses;
using analysis::LossPiece;

constexpr int64_t kIgnore = kTextNoTarget;
constexpr int64_t kRowsPerPass = 64;  // windows per forward pass

// What the model says at one token of the document, teacher-forced: the loss of that token (predicted at
// the position before it), the token it found most probable there, and for a fone [NUM] the digit head's
// loss on the number's digits and sign and the value it reads.
struct Scored {
    bool scored = false;
    double nll = 0;
    int64_t best = -1;
    bool digit_head = false;
    double digit_nll = 0;
    std::string head_value;
};

// Row i's tokens up to its padding.
int64_t row_length(const int64_t* tokens, int64_t l) {
    int64_t n = 0;
    while (n < l && tokens[n] != tt::kPad)
        ++n;
    return n;
}

// fone: the digit head at every position whose target is a number ([K] rows, row-major): its nats on the
// number's digits and sign (digit_loss is their mean, the sign one more term), and the value it reads.
std::vector<std::pair<double, std::string>> digit_head_scores(const TextLmScheme& scheme,
                                                              FoneTransformer& model, const Batch& b,
                                                              const torch::Tensor& h) {
    std::vector<std::pair<double, std::string>> out;
    const auto at = b.number_start;
    if (!scheme.reads_digits() || !at.any().item<bool>()) return out;
    const auto hs = h.index({at});
    const auto digits = b.digits.index({at}).to(torch::kInt64), signs = b.signs.index({at});
    const double terms = static_cast<double>(model->slots + (model->sign_feature ? 1 : 0));
    FoneSpec plain = scheme.digit_spec();
    plain.multipliers.clear();
    const std::vector<Decimal> values = read_numbers(model->read_digits(hs), plain);
    for (int64_t k = 0; k < hs.size(0); ++k) {
        const auto one = torch::indexing::Slice(k, k + 1);
        const double mean =
            model->digit_loss(hs.index({one}), digits.index({one}), signs.index({one})).item<double>();
        out.emplace_back(mean * terms, values[static_cast<std::size_t>(k)].to_string());
    }
    return out;
}

// Scores the rows [from, from + n) of the document's windows into `at` (indexed by the document's token);
// `start` is the document position of the first row's first token and moves past the rows.
void score_rows(const TextLmScheme& scheme, FoneTransformer& model, const Batch& all, int64_t from, int64_t n,
                const torch::Device& device, const std::vector<int>& ids, std::vector<Scored>& at,
                int64_t& start) {
    const Batch b = to_device(select_rows(all, torch::arange(from, from + n, torch::kInt64)), device);
    const auto h = model->forward(b.in, /*last_only=*/false);
    const auto logits = model->lm_logits(h).to(torch::kFloat32);
    const auto nll =
        F::cross_entropy(logits.reshape({-1, logits.size(-1)}), b.targets.reshape({-1}),
                         F::CrossEntropyFuncOptions().ignore_index(kIgnore).reduction(torch::kNone))
            .to(torch::kFloat64)
            .to(torch::kCPU)
            .contiguous();
    const auto best = logits.argmax(-1).to(torch::kCPU).contiguous();
    const auto tokens = b.in.tokens.to(torch::kCPU).contiguous();
    const auto targets = b.targets.to(torch::kCPU).contiguous();
    const auto starts = b.number_start.to(torch::kCPU).contiguous();
    const auto head = digit_head_scores(scheme, model, b, h);
    const int64_t l = tokens.size(1);
    std::size_t k = 0;  // the next digit-head score (row-major, as index() took them)
    for (int64_t i = 0; i < n; ++i) {
        const int64_t len = row_length(tokens.data_ptr<int64_t>() + i * l, l);
        for (int64_t t = 0; t < l; ++t) {
            const bool number_next = starts.data_ptr<bool>()[i * l + t];
            if (t + 1 >= len) {
                k += number_next;
                continue;
            }
            const int64_t j = start + t + 1;  // the document's token this position predicts
            if (j >= static_cast<int64_t>(ids.size()) || tokens.data_ptr<int64_t>()[i * l + t + 1] != ids[j])
                throw std::logic_error("token losses: the windows do not spell the document");
            Scored& s = at[static_cast<std::size_t>(j)];
            if (targets.data_ptr<int64_t>()[i * l + t] != kIgnore) {
                s.scored = true;
                s.nll = nll.data_ptr<double>()[i * l + t];
                s.best = best.data_ptr<int64_t>()[i * l + t];
            }
            if (number_next && k < head.size()) {
                s.digit_head = true;
                std::tie(s.digit_nll, s.head_value) = head[k++];
            }
        }
        start += len - 1;  // the next window starts at this one's last token
    }
}

// The number that the model's most probable tokens over [from, to) spell, up to its first token that
// does not write a number; "" when they spell none.
std::string best_tokens_number(const TextTokenizer& tok, const std::vector<Scored>& at, int from, int to) {
    std::string text;
    for (int j = from; j < to && at[j].best >= tok.text_piece_count(); ++j)
        text += tok.piece(static_cast<int>(at[j].best));
    Decimal x;
    return !text.empty() && Decimal::try_parse(text, x) ? x.to_string() : std::string();
}

// The numbers as the document writes them, in order (the tokenizer's numbers are the parser's).
std::vector<std::string> written_numbers(const TextExample& d, std::size_t count,
                                         const NumberLimits& limits) {
    std::vector<std::string> out;
    for (const std::string* text : {&d.prompt, &d.answer})
        for (const ParsedNumber& x : parse_numbers(*text, limits).numbers)
            out.push_back(x.text);
    if (out.size() != count) out.clear();
    return out;
}

bool is_byte(int id) {
    return id >= 6 && id < 262;  // the byte pieces (text_tokenizer.h): one character may take several
}

// The text piece(s) from ids[j]: one token, or the byte tokens that make one character together.
LossPiece text_piece(const TextTokenizer& tok, const std::vector<int>& ids, const std::vector<Scored>& at,
                     int& j, int end) {
    LossPiece p;
    std::vector<int> group{ids[j]};
    while (is_byte(ids[j]) && j + 1 < end && is_byte(ids[j + 1]) &&
           tok.decode(group).ends_with("\xEF\xBF\xBD"))  // an incomplete character: U+FFFD so far
        group.push_back(ids[++j]);
    p.text = ids[j] == tt::kEos ? "[EOS]" : ids[j] == tt::kAns ? "[ANS]" : tok.decode(group);
    p.tokens = 0;
    for (std::size_t u = 0; u < group.size(); ++u) {
        const Scored& s = at[static_cast<std::size_t>(j) + 1 - group.size() + u];
        if (!s.scored) continue;
        p.loss += s.nll;
        ++p.tokens;
    }
    return p;
}

}  // namespace

DocumentLosses document_losses(const TextLmScheme& scheme, FoneTransformer& model,
                               const TextExample& document, const torch::Device& device) {
    torch::NoGradGuard no_grad;
    const TextTokenizer& tok = scheme.tokenizer();
    const EncodedText e = tok.encode(document);
    const int n = static_cast<int>(e.ids.size());
    if (!scheme.packs({document}) && n > model->config.max_seq)
        throw std::invalid_argument("the document has " + std::to_string(n) + " tokens; this model reads " +
                                    std::to_string(model->config.max_seq) +
                                    " (a run with --context packs it)");
    const Batch all = scheme.encode_text({document});
    std::vector<Scored> at(e.ids.size());
    int64_t start = 0;
    for (int64_t from = 0; from < all.n; from += kRowsPerPass)
        score_rows(scheme, model, all, from, std::min(kRowsPerPass, all.n - from), device, e.ids, at, start);
    const std::vector<std::string> written = written_numbers(document, e.numbers.size(), tok.number_limits());
    DocumentLosses d;
    std::size_t k = 0;  // the next number span
    for (int j = 1; j < n; ++j) {
        LossPiece p;
        if (k < e.number_spans.size() && e.number_spans[k].begin == j) {
            const int end = e.number_spans[k].end;
            p.number = true;
            p.value = e.numbers[k].to_string();
            p.text = written.empty() ? p.value : written[k];
            p.tokens = end - j;
            for (int u = j; u < end; ++u)
                p.loss += at[u].nll;
            p.loss += at[j].digit_nll;
            p.predicted = at[j].digit_head ? at[j].head_value : best_tokens_number(tok, at, j, end);
            const bool scored = at[j].scored;
            j = end - 1;
            ++k;
            if (!scored) continue;
        } else {
            p = text_piece(tok, e.ids, at, j, n);
            if (p.tokens == 0) continue;
        }
        d.pieces.push_back(std::move(p));
    }
    return d;
}

namespace {

// The digits of a number as its pieces spell it (" 1990" -> "1990").
std::string digits_of(const std::string& text) {
    std::string out;
    for (const char c : text)
        if (std::isdigit(static_cast<unsigned char>(c))) out += c;
    return out;
}

// A fone-adapter run's losses on a document: its text in the pretrained tokenizer's ids, teacher-forced
// (AdapterScheme::token_scores). A number is a run of number pieces (tokens of one to three digits: the
// adapter's FoNE sits on them), its value their digits; a text piece is one token, or the tokens that
// make one character together.
DocumentLosses adapter_document_losses(const AdapterScheme& scheme, FoneTransformer& model,
                                       const TextExample& document) {
    const std::vector<int64_t> ids = scheme.ids_of(write_example(document));
    const AdapterScheme::TokenScores s = scheme.token_scores(model, ids);
    const std::vector<int>& values = scheme.piece_values();
    const auto is_number = [&](int64_t id) { return values[static_cast<std::size_t>(id)] >= 0; };
    const auto text_of = [&](std::size_t from, std::size_t to) {
        return pretrained::decode_ids(scheme.tokenizer(),
                                      std::vector<int64_t>(ids.begin() + from, ids.begin() + to));
    };
    DocumentLosses d;
    for (std::size_t j = 1, end = 0; j < ids.size(); j = end) {  // ids[0] (the prefix) is not predicted
        LossPiece p;
        p.number = is_number(ids[j]);
        end = j + 1;
        while (end < ids.size() &&
               (p.number ? is_number(ids[end])
                         : !valid_utf8(text_of(j, end)) && end - j < 4 && !is_number(ids[end])))
            ++end;
        p.text = text_of(j, end);
        p.tokens = static_cast<int>(end - j);
        for (std::size_t u = j; u < end; ++u)
            p.loss += s.nll[u - 1];
        if (p.number) {
            p.value = digits_of(p.text);
            std::vector<int64_t> best;  // the model's first choices at the number's places, while numbers
            for (std::size_t u = j; u < end && is_number(s.best[u - 1]); ++u)
                best.push_back(s.best[u - 1]);
            p.predicted = digits_of(pretrained::decode_ids(scheme.tokenizer(), best));
        }
        d.pieces.push_back(std::move(p));
    }
    return d;
}

std::string first_line(const TextExample& e) {
    const std::string& text = e.prompt.empty() ? e.answer : e.prompt;
    return text.substr(0, std::min(text.find('\n'), std::size_t{80}));
}

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    return s;
}

// The test document `document` names: an index from 0, or a first line (case-insensitive).
std::size_t find_document(const std::vector<TextExample>& test, const std::string& document,
                          const std::string& run) {
    std::size_t index = 0;
    const auto [end, ec] = std::from_chars(document.data(), document.data() + document.size(), index);
    if (ec == std::errc() && end == document.data() + document.size()) {
        if (index < test.size()) return index;
        throw std::invalid_argument("document " + document + ": the test split of " + run + " has " +
                                    std::to_string(test.size()) + " documents (0.." +
                                    std::to_string(test.size() - 1) + ")");
    }
    for (std::size_t i = 0; i < test.size(); ++i)
        if (lower(first_line(test[i])) == lower(document)) return i;
    throw std::invalid_argument("no test document of " + run + " is called \"" + document.substr(0, 60) +
                                "\" (its first is \"" + first_line(test[0]) +
                                "\"; give a name or an index 0.." + std::to_string(test.size() - 1) + ")");
}

}  // namespace

DocumentLosses run_document_losses(const std::string& run_dir, const std::string& document, int threads) {
    AnsweringRun a = open_for_answers(run_dir, threads, RunData::splits);
    const std::string run = std::filesystem::path(run_dir).filename().string();
    check_answers(run, a.run.config, RunCommand::token_loss);
    const std::vector<TextExample>& test = a.run.text_splits.test;
    if (test.empty()) throw std::invalid_argument(run + " has no test documents");
    const std::size_t index = find_document(test, document, run);
    DocumentLosses d = a.run.adapter ? adapter_document_losses(*a.run.adapter, a.run.model, test[index])
                                     : document_losses(*a.run.text, a.run.model, test[index], a.device);
    d.run = run;
    d.method = a.run.config.method;
    d.checkpoint = a.checkpoint;
    d.document = first_line(test[index]);
    d.index = index;
    d.documents = test.size();
    return d;
}

analysis::TokenLossComparison compare_runs_on_document(const std::string& run_a, const std::string& run_b,
                                                       const std::string& document, int threads) {
    return analysis::compare_documents(run_document_losses(run_a, document, threads),
                                       run_document_losses(run_b, document, threads));
}

}  // namespace fone
