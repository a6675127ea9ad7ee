#include "fone/analysis/token_loss.h"

#include <algorithm>
#include <stdexcept>

namespace fone::analysis {

using nlohmann::json;

std::size_t DocumentLosses::text_pieces() const {
    return pieces.size() - numbers();
}

std::size_t DocumentLosses::numbers() const {
    std::size_t n = 0;
    for (const LossPiece& p : pieces)
        n += p.number;
    return n;
}

std::size_t DocumentLosses::text_tokens() const {
    std::size_t n = 0;
    for (const LossPiece& p : pieces)
        if (!p.number) n += static_cast<std::size_t>(p.tokens);
    return n;
}

double DocumentLosses::text_loss() const {
    double sum = 0;
    for (const LossPiece& p : pieces)
        if (!p.number) sum += p.loss;
    const std::size_t n = text_tokens();
    return n ? sum / static_cast<double>(n) : 0.0;
}

double DocumentLosses::number_loss() const {
    double sum = 0;
    for (const LossPiece& p : pieces)
        if (p.number) sum += p.loss;
    const std::size_t n = numbers();
    return n ? sum / static_cast<double>(n) : 0.0;
}

TokenLossComparison compare_documents(DocumentLosses a, DocumentLosses b) {
    if (a.documents != b.documents || a.document != b.document)
        throw std::invalid_argument(a.run + " and " + b.run + " have different test documents (\"" +
                                    a.document + "\" of " + std::to_string(a.documents) + " against \"" +
                                    b.document + "\" of " + std::to_string(b.documents) +
                                    "): compare runs on the same corpus");
    const std::size_t n = std::min(a.pieces.size(), b.pieces.size());
    for (std::size_t i = 0; i <= n; ++i) {
        if (i == n && a.pieces.size() == b.pieces.size()) break;
        const bool same = i < n && a.pieces[i].number == b.pieces[i].number &&
                          (a.pieces[i].number ? a.pieces[i].value == b.pieces[i].value
                                              : a.pieces[i].text == b.pieces[i].text);
        if (!same)
            throw std::invalid_argument(
                a.run + " and " + b.run + " cut \"" + a.document + "\" into different pieces (piece " +
                std::to_string(i + 1) + ": \"" + (i < a.pieces.size() ? a.pieces[i].text : "(end)") +
                "\" against \"" + (i < b.pieces.size() ? b.pieces[i].text : "(end)") +
                "\"): compare runs trained on the same corpus with the same text tokenizer");
    }
    return {std::move(a), std::move(b)};
}

ComparisonSummary summarise(const TokenLossComparison& c) {
    ComparisonSummary s;
    s.text_loss_a = c.a.text_loss();
    s.text_loss_b = c.b.text_loss();
    s.number_loss_a = c.a.number_loss();
    s.number_loss_b = c.b.number_loss();
    std::size_t text_lower = 0, numbers_lower = 0;
    for (std::size_t i = 0; i < c.a.pieces.size(); ++i) {
        const bool lower = c.a.pieces[i].loss < c.b.pieces[i].loss;
        if (c.a.pieces[i].number) {
            ++s.numbers;
            numbers_lower += lower;
        } else {
            ++s.text_pieces;
            text_lower += lower;
        }
    }
    const auto share = [](std::size_t k, std::size_t n) { return n ? double(k) / double(n) : 0.0; };
    s.text_a_lower = share(text_lower, s.text_pieces);
    s.numbers_a_lower = share(numbers_lower, s.numbers);
    return s;
}

namespace {

json run_json(const DocumentLosses& d) {
    return {{"run", d.run},
            {"method", d.method},
            {"checkpoint", d.checkpoint},
            {"text_loss", d.text_loss()},
            {"text_tokens", d.text_tokens()},
            {"number_loss", d.number_loss()},
            {"numbers", d.numbers()}};
}

// A field of the expected type, or std::invalid_argument naming it.
template <class T>
T field(const json& j, const char* key) {
    if (!j.is_object() || !j.contains(key))
        throw std::invalid_argument(std::string("token-loss JSON: no \"") + key + "\"");
    try {
        return j.at(key).get<T>();
    } catch (const json::exception&) {
        throw std::invalid_argument(std::string("token-loss JSON: \"") + key + "\" has the wrong type");
    }
}

}  // namespace

json token_loss_json(const TokenLossComparison& c) {
    const ComparisonSummary s = summarise(c);
    json pieces = json::array();
    for (std::size_t i = 0; i < c.a.pieces.size(); ++i) {
        const LossPiece &a = c.a.pieces[i], &b = c.b.pieces[i];
        json p = {{"text", a.text},   {"number", a.number},   {"loss_a", a.loss},
                  {"loss_b", b.loss}, {"tokens_a", a.tokens}, {"tokens_b", b.tokens}};
        if (a.number) {
            p["value"] = a.value;
            p["predicted_a"] = a.predicted;
            p["predicted_b"] = b.predicted;
        }
        pieces.push_back(std::move(p));
    }
    return {{"analysis", "token-loss"},
            {"document", c.a.document},
            {"index", c.a.index},
            {"documents", c.a.documents},
            {"a", run_json(c.a)},
            {"b", run_json(c.b)},
            {"summary",
             {{"text_loss_a", s.text_loss_a},
              {"text_loss_b", s.text_loss_b},
              {"number_loss_a", s.number_loss_a},
              {"number_loss_b", s.number_loss_b},
              {"text_a_lower", s.text_a_lower},
              {"numbers_a_lower", s.numbers_a_lower},
              {"text_pieces", s.text_pieces},
              {"numbers", s.numbers}}},
            {"pieces", pieces}};
}

TokenLossComparison token_loss_from_json(const json& j) {
    if (field<std::string>(j, "analysis") != "token-loss")
        throw std::invalid_argument("token-loss JSON: \"analysis\" is not \"token-loss\"");
    TokenLossComparison c;
    for (auto [d, key] : {std::pair{&c.a, "a"}, {&c.b, "b"}}) {
        const json r = field<json>(j, key);
        d->run = field<std::string>(r, "run");
        d->method = field<std::string>(r, "method");
        d->checkpoint = field<std::string>(r, "checkpoint");
        d->document = field<std::string>(j, "document");
        d->index = field<std::size_t>(j, "index");
        d->documents = field<std::size_t>(j, "documents");
    }
    const json pieces = field<json>(j, "pieces");
    if (!pieces.is_array()) throw std::invalid_argument("token-loss JSON: \"pieces\" is not an array");
    for (const json& p : pieces) {
        LossPiece a, b;
        a.text = b.text = field<std::string>(p, "text");
        a.number = b.number = field<bool>(p, "number");
        a.loss = field<double>(p, "loss_a");
        b.loss = field<double>(p, "loss_b");
        a.tokens = field<int>(p, "tokens_a");
        b.tokens = field<int>(p, "tokens_b");
        if (a.number) {
            a.value = b.value = field<std::string>(p, "value");
            a.predicted = field<std::string>(p, "predicted_a");
            b.predicted = field<std::string>(p, "predicted_b");
        }
        c.a.pieces.push_back(std::move(a));
        c.b.pieces.push_back(std::move(b));
    }
    return c;
}

}  // namespace fone::analysis
